/**
 * The soak (bench/soak-run.ts, what `npm run bench:soak` runs) at a tiny
 * scale, so the bench cannot rot: two simulated days of a few agents, every
 * retention setting at 0 days so that each kind is pruned on the first day.
 * The second day must be no bigger than the first (without pruning it would
 * hold twice the rows), and every probe decision equal before and after
 * every prune, on SQLite and on PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETENTION } from '../../src/facts/retention.js';
import { runSoak, type SoakOptions, type SoakResult } from '../../bench/soak-run.js';
import { havePostgres, TEST_POSTGRES } from '../support/postgres.js';

const TINY: Omit<SoakOptions, 'driver'> = {
  agents: 10, days: 2, sessionsPerDay: 10, tickMin: 10, pruneEveryMin: 60,
  retention: { ...DEFAULT_RETENTION, messagesDays: 0, runsDays: 0, delegationsDays: 0, holdsDays: 0, auditDays: 0 },
  windowMin: 60, maxRunMin: 240, holdShare: 0.03, longRunShare: 0.2, probeAgents: 6,
};

const total = (rows: Record<string, number>): number => Object.values(rows).reduce((a, b) => a + b, 0);

function check(r: SoakResult, kinds: Array<keyof SoakResult['firstPruned']>): void {
  const [one, two] = r.days;
  expect(r.days).toHaveLength(2);
  // Every kind was pruned on the first day: the second is after the first retention cycle.
  for (const k of kinds) expect(r.firstPruned[k], k).toBe(1);
  expect(two!.bytes).toBeLessThanOrEqual(one!.bytes * 1.1);
  expect(total(two!.rows)).toBeLessThanOrEqual(total(one!.rows) * 1.25);
  expect(two!.decisions).toBeGreaterThan(0);
  // The probes saw both answers and none changed across a prune; the store never failed.
  expect(r.prunes).toBe(47);
  expect(r.probes.allowed).toBeGreaterThan(0);
  expect(r.probes.refused).toBeGreaterThan(0);
  expect(r.probes.mismatches).toEqual([]);
  expect(r.failedOpen).toBe(0);
}

describe('the soak at a tiny scale: flat after the first retention cycle, decisions unchanged by every prune', () => {
  it('sqlite', { timeout: 120_000 }, async () => {
    check(await runSoak({ ...TINY, driver: 'sqlite' }), ['messages', 'runs', 'delegations', 'holds']);
  });

  it.runIf(havePostgres('the soak'))('postgres', { timeout: 180_000 }, async () => {
    check(await runSoak({ ...TINY, driver: 'postgres', postgres: TEST_POSTGRES }), ['messages', 'runs', 'delegations', 'holds', 'audit']);
  });
});
