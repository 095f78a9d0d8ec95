/**
 * Retention never deletes a message that could still count: for random
 * worlds (a window and a longest run in the rules, plans and notes of any
 * age, with and without runs, runs open, ended and expired), every call at
 * the prune time or later is decided exactly as before the prune — by the
 * real gate and policy, on SQLite and on PostgreSQL — with the floor at 0
 * days, so only what the decision needs keeps a message. Runs are kept
 * (their own setting), so a call naming one still finds it.
 *
 * One thing may change, and only in the wording of a refusal: a plan too
 * old to count says `stale` while it is stored and `none` once retention
 * has deleted it (docs/guides/retention-and-quotas.md says so).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decision } from '../../src/core/types.js';
import { DEFAULT_RETENTION } from '../../src/facts/retention.js';
import { openPlangate, type Plangate } from '../../src/main/open.js';
import { pruneOnce } from '../../src/main/retention.js';
import { freshSchemaUrl, havePostgres } from '../support/postgres.js';

const MIN = 60_000;
const NOW = Date.UTC(2026, 5, 1, 12);
const SEATS = ['0xA', '0xB'] as const;
const RUNS = ['r1', 'r2'] as const;
const SQLITE_RUNS = Number(process.env.PLANGATE_PROPERTY_SQLITE_RUNS ?? 30);
const POSTGRES_RUNS = Number(process.env.PLANGATE_PROPERTY_POSTGRES_RUNS ?? 12);

const messageArb = fc.record({
  author: fc.constantFrom(...SEATS),
  own: fc.boolean(),
  kind: fc.constantFrom('plan', 'plan', 'note'),
  ageMin: fc.integer({ min: 0, max: 3000 }),
  run: fc.constantFrom(undefined, ...RUNS),
});
const runArb = fc.record({
  seat: fc.constantFrom(...SEATS),
  startAgeMin: fc.integer({ min: 1, max: 3000 }),
  ttlMin: fc.integer({ min: 5, max: 3000 }),
  endedAfterMin: fc.option(fc.integer({ min: 1, max: 3000 }), { nil: undefined }),
});
const worldArb = fc.record({
  windowMin: fc.constantFrom(5, 30, 120, 600),
  maxRunMin: fc.constantFrom(60, 600, 1440),
  runs: fc.tuple(runArb, runArb),
  messages: fc.array(messageArb, { maxLength: 14 }),
});
type World = typeof worldArb extends fc.Arbitrary<infer T> ? T : never;

/** The calls retention promises to keep answerable: at the prune time or after, with and without each run. */
const CALL_OFFSETS_MIN = [0, 1, 4, 29, 119];

/** What a decision says, without what only explains it; a stale plan reads as none (see above). */
function verdict(d: Decision): unknown {
  const reason = d.reason === 'stale' ? 'none' : d.reason;
  const code = d.code?.replace(/:stale$/, ':none');
  return { allowed: d.allowed, code, reason, check: d.check, plan: d.plan, run: d.run, failOpen: (d as { failOpen?: unknown }).failOpen };
}

async function decideAll(pg: Plangate, setNow: (t: number) => void): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const offset of CALL_OFFSETS_MIN) {
    setNow(NOW + offset * MIN);
    for (const agent of SEATS) {
      for (const runId of [undefined, ...RUNS]) {
        out.push(verdict(await pg.gate.decide({ agent, tool: 'github.merge_pull_request', ...(runId ? { runId } : {}) })));
      }
    }
  }
  return out;
}

async function checkWorld(w: World, store: string, root: string, tally: { pruned: number; allowed: number; refused: number }): Promise<void> {
  const rules = join(root, `rules-${Math.random().toString(36).slice(2)}`);
  mkdirSync(rules);
  writeFileSync(join(rules, 'rules.yaml'), `planRequired:\n  workspace: { mode: side_effects, windowMin: ${w.windowMin} }\nruns: { maxMinutes: ${w.maxRunMin} }\n`);
  let now = NOW;
  const pg = await openPlangate({ rules, store, audit: join(root, 'audit.jsonl'), clock: () => now, log: () => {} });
  try {
    for (const [i, r] of w.runs.entries()) {
      now = NOW - r.startAgeMin * MIN;
      await pg.gate.runs.start({ seat: r.seat, by: 'host', id: RUNS[i] as string, ttlMs: r.ttlMin * MIN });
      if (r.endedAfterMin !== undefined && r.endedAfterMin < r.startAgeMin) {
        now = NOW - (r.startAgeMin - r.endedAfterMin) * MIN;
        await pg.gate.runs.end(RUNS[i] as string, { by: 'host' });
      }
    }
    for (const m of w.messages) {
      // A run-tagged message is mostly its run's seat's, posted while the run went on: the ones a run keeps.
      const run = m.run === undefined ? undefined : w.runs[RUNS.indexOf(m.run)];
      const author = run && m.own ? run.seat : m.author;
      const ageMin = run && m.own ? Math.floor((m.ageMin / 3000) * run.startAgeMin) : m.ageMin;
      await pg.gate.say({ thread: `agent:${author}`, author, authorKind: 'agent', kind: m.kind, body: 'b', at: NOW - ageMin * MIN, ...(m.run ? { runId: m.run } : {}) });
    }
    const before = await decideAll(pg, (t) => void (now = t));
    now = NOW;
    const r = await pruneOnce(pg, { ...DEFAULT_RETENTION, messagesDays: 0, holdsDays: 0, delegationsDays: 0, batch: 3 }, { now: NOW });
    tally.pruned += r.messages;
    const after = await decideAll(pg, (t) => void (now = t));
    expect(after).toEqual(before);
    for (const v of before as Array<{ allowed: boolean }>) tally[v.allowed ? 'allowed' : 'refused']++;
  } finally {
    await pg.close();
  }
}

/** The runs must have pruned messages and seen both answers, or the property proved little. */
function assertCoverage(t: { pruned: number; allowed: number; refused: number }): void {
  expect(t.pruned).toBeGreaterThan(0);
  expect(t.allowed).toBeGreaterThan(0);
  expect(t.refused).toBeGreaterThan(0);
}

describe('retention keeps every message that can still count', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'plangate-retention-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it(`sqlite: decisions at and after the prune are unchanged (${SQLITE_RUNS} worlds)`, { timeout: 240_000 }, async () => {
    const tally = { pruned: 0, allowed: 0, refused: 0 };
    let n = 0;
    await fc.assert(fc.asyncProperty(worldArb, (w) => checkWorld(w, join(root, `s${n++}.db`), root, tally)), { numRuns: SQLITE_RUNS });
    assertCoverage(tally);
  });

  it.runIf(havePostgres('retention property'))(`postgres: decisions at and after the prune are unchanged (${POSTGRES_RUNS} worlds)`, { timeout: 240_000 }, async () => {
    const tally = { pruned: 0, allowed: 0, refused: 0 };
    await fc.assert(fc.asyncProperty(worldArb, async (w) => {
      const s = await freshSchemaUrl('ret');
      try {
        await checkWorld(w, s.url, root, tally);
      } finally {
        await s.drop();
      }
    }), { numRuns: POSTGRES_RUNS });
    assertCoverage(tally);
  });
});
