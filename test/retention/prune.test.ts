/**
 * What a prune deletes and keeps, on SQLite and PostgreSQL: messages past
 * the cutoff go, unless a kept hold links to them; runs, delegations and
 * holds go once over for longer than their own setting, open and live ones
 * never; `--dry-run` counts and deletes nothing; on PostgreSQL the audit
 * table is pruned too, and a second replica skips while one prunes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresAuditSink } from '../../src/audit/postgres.js';
import { openPostgresStore } from '../../src/facts/postgres/store.js';
import { PRUNE_LOCK_KEY } from '../../src/facts/postgres/prune.js';
import { openSqliteStore } from '../../src/facts/sqlite/store.js';
import type { Store } from '../../src/facts/port.js';
import { cutoffs, DEFAULT_RETENTION, type PruneCutoffs } from '../../src/facts/retention.js';
import { retentionFromEnv } from '../../src/main/retention.js';
import { freshSchemaUrl, havePostgres } from '../support/postgres.js';

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2026, 5, 1, 12);
const dir = mkdtempSync(join(tmpdir(), 'plangate-prune-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 40 days of history: old and new messages, runs, delegations and holds, one hold still active. */
async function fill(store: Store): Promise<void> {
  const say = (thread: string, ageDays: number, runId?: string) =>
    store.postMessage({ thread, author: '0xW', authorKind: 'agent', kind: 'plan', body: `plan ${ageDays}`, at: NOW - ageDays * DAY, ...(runId ? { runId } : {}) });
  for (const age of [40, 39, 38, 2, 1]) await say('agent:0xW', age);
  // A run open for 40 days (started long before a rule change, say): its messages stay.
  await store.startRun({ id: 'long', seat: '0xW', startedAt: NOW - 40 * DAY, expiresAt: NOW + DAY, startedBy: 'host' });
  await say('agent:0xW', 35, 'long');
  await store.startRun({ id: 'old', seat: '0xW', startedAt: NOW - 40 * DAY, expiresAt: NOW - 39 * DAY, startedBy: 'host' });
  await store.startRun({ id: 'ended', seat: '0xW', startedAt: NOW - 3 * DAY, expiresAt: NOW + DAY, startedBy: 'host' });
  await store.endRun('ended', { by: 'host', at: NOW - 2 * DAY });
  await store.delegate({ id: 'gone', manager: '0xM', worker: '0xW', createdAt: NOW - 40 * DAY, expiresAt: NOW - 39 * DAY, createdBy: 'ci' });
  await store.delegate({ id: 'live', manager: '0xM', worker: '0xW', createdAt: NOW - 40 * DAY, createdBy: 'ci' });
  // A hold long over, with its plan; and an active one whose plan is old.
  await store.placeHold({ agent: '0xX', kind: 'on_demand', placedBy: 'ops', placedAt: NOW - 40 * DAY });
  await store.postHoldMessage('0xX', 'plan', { thread: 'agent:0xX', author: '0xX', authorKind: 'agent', kind: 'plan', body: 'old review', at: NOW - 40 * DAY });
  await store.endHold('0xX', { state: 'cleared', by: 'ops', at: NOW - 39 * DAY });
  await store.placeHold({ agent: '0xY', kind: 'on_demand', placedBy: 'ops', placedAt: NOW - 40 * DAY });
  await store.postHoldMessage('0xY', 'plan', { thread: 'agent:0xY', author: '0xY', authorKind: 'agent', kind: 'plan', body: 'waiting', at: NOW - 40 * DAY });
}

const settings = { ...DEFAULT_RETENTION, messagesDays: 30, runsDays: 1, delegationsDays: 30, holdsDays: 30, batch: 2 };
const at = (): PruneCutoffs => cutoffs(NOW, settings, undefined, { windowMin: 30, runMin: 1440 });

async function check(store: Store): Promise<void> {
  const dry = await store.prune!(at(), { dryRun: true, maxRows: 1000, batch: 2 });
  expect(dry).toMatchObject({ holds: 1, runs: 2, delegations: 1 });
  // The old review plan is counted as kept in a dry run: its hold is deleted first only in a real one.
  expect(dry.messages).toBe(3);
  expect(await store.listThread('agent:0xW', 100)).toHaveLength(6);
  const r = await store.prune!(at(), { maxRows: 1000, batch: 2 });
  expect(r).toMatchObject({ messages: 4, holds: 1, runs: 2, delegations: 1 });
  expect(r.keptFrom).toBe(NOW - 40 * DAY);
  expect((await store.listThread('agent:0xW', 100)).map((m) => m.body).sort()).toEqual(['plan 1', 'plan 2', 'plan 35']);
  expect(await store.listThread('agent:0xX', 10)).toEqual([]);
  expect((await store.listThread('agent:0xY', 10)).map((m) => m.body)).toEqual(['waiting']);
  expect((await store.activeHold('0xY'))?.lastPlanId).not.toBeNull();
  expect(await store.getRun('long')).toBeDefined();
  expect(await store.getRun('old')).toBeUndefined();
  expect(await store.getRun('ended')).toBeUndefined();
  expect(await store.getDelegation('live')).toBeDefined();
  expect(await store.getDelegation('gone')).toBeUndefined();
  // Nothing left to go; the cap holds a prune to its rows.
  expect(await store.prune!(at(), { maxRows: 1000, batch: 2 })).toMatchObject({ messages: 0, runs: 0, delegations: 0, holds: 0 });
}

describe('prune', () => {
  it('sqlite: deletes what retention lets go and keeps what can count, the review queue and open runs', async () => {
    const store = openSqliteStore(join(dir, 'a.db'));
    try {
      await fill(store);
      await check(store);
    } finally {
      await store.close();
    }
  });

  it('sqlite: at most maxRows of each kind a prune', async () => {
    const store = openSqliteStore(join(dir, 'b.db'));
    try {
      for (let i = 0; i < 7; i++) await store.postMessage({ thread: 'org', author: 'a', authorKind: 'agent', kind: 'note', body: 'x', at: NOW - 40 * DAY + i });
      expect((await store.prune!(at(), { maxRows: 5, batch: 2 })).messages).toBe(5);
      expect((await store.prune!(at(), { maxRows: 5, batch: 2 })).messages).toBe(2);
    } finally {
      await store.close();
    }
  });

  it('reads its settings from the environment, naming a bad variable', () => {
    expect(retentionFromEnv({ PLANGATE_RETAIN_MESSAGES_DAYS: '7', PLANGATE_PRUNE_MAX_ROWS: '10' })).toMatchObject({ messagesDays: 7, maxRows: 10, runsDays: 30 });
    expect(() => retentionFromEnv({ PLANGATE_RETAIN_RUNS_DAYS: '-1' })).toThrow(/env:PLANGATE_RETAIN_RUNS_DAYS: expected a whole number of at least 0/);
    expect(() => retentionFromEnv({ PLANGATE_PRUNE_BATCH: '0' })).toThrow(/PLANGATE_PRUNE_BATCH/);
    // The decision's needs beat the floor: a week's window keeps a week whatever the floor says.
    const c = cutoffs(NOW, { ...DEFAULT_RETENTION, messagesDays: 0 }, { planRequired: { workspace: { mode: 'side_effects', windowMin: 10_080, source: 'x' }, crews: {}, agents: {} }, tools: { default: 'effect', exact: {}, patterns: [] } }, { windowMin: 0, runMin: 0 });
    expect(c.messagesBefore).toBe(NOW - 7 * DAY);
  });

  it.runIf(havePostgres('prune'))('postgres: the same, the audit table too, and one replica at a time', async () => {
    const s = await freshSchemaUrl('prune');
    const store = await openPostgresStore(s.url);
    try {
      await fill(store);
      const audit = await createPostgresAuditSink(store.pool);
      await audit.record({ type: 'PlanRequiredBlocked', time: new Date(NOW - 400 * DAY).toISOString(), agent: '0xW', crew: null, tool: 't', toolClass: 'effect', mode: 'side_effects', code: 'plan_required:t:none', runId: null, rule: { scope: 'default' } });
      await audit.record({ type: 'PlanRequiredBlocked', time: new Date(NOW - 1 * DAY).toISOString(), agent: '0xW', crew: null, tool: 't', toolClass: 'effect', mode: 'side_effects', code: 'plan_required:t:none', runId: null, rule: { scope: 'default' } });
      // Another replica holds the lock: this one skips, deleting nothing.
      const other = new pg.Client({ connectionString: s.url });
      await other.connect();
      try {
        await other.query('SELECT pg_advisory_lock($1)', [PRUNE_LOCK_KEY]);
        expect(await store.prune!(at(), { maxRows: 1000, batch: 2 })).toMatchObject({ skipped: true, messages: 0, runs: 0 });
        await other.query('SELECT pg_advisory_unlock($1)', [PRUNE_LOCK_KEY]);
      } finally {
        await other.end();
      }
      await check(store);
      const { rows } = await store.pool.query<{ n: string }>('SELECT count(*) AS n FROM audit_events');
      expect(Number(rows[0]?.n)).toBe(1);
    } finally {
      await store.close();
      await s.drop();
    }
  });
});

describe('the prune schedule', () => {
  it('prunes every period and logs what it deleted; stopped, it prunes no more', async () => {
    const { openPlangate } = await import('../../src/main/open.js');
    const { schedulePrune } = await import('../../src/main/retention.js');
    const pg = await openPlangate({ rules: join(dir, 'no-rules'), store: join(dir, 'sched.db'), audit: join(dir, 'sched.jsonl'), log: () => {} });
    try {
      const old = () => pg.store.postMessage({ thread: 'org', author: 'a', authorKind: 'agent', kind: 'note', body: 'x', at: Date.now() - 40 * DAY });
      await old();
      const lines: string[] = [];
      const s = schedulePrune(pg, settings, 50, Date.now, (t) => lines.push(t));
      for (let i = 0; i < 100 && lines.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(lines[0]).toMatch(/^plangate: pruned 1 messages \(posted before /);
      s.stop();
      await old();
      await new Promise((r) => setTimeout(r, 200));
      expect(lines).toHaveLength(1);
      expect(await pg.store.listThread('org', 10)).toHaveLength(1);
    } finally {
      await pg.close();
    }
  });
});
