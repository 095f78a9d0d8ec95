/**
 * A decision's delegation lookup stays bounded whatever a manager recorded.
 * An agent may record delegations as manager with its own token; it records
 * a flood of them to a worker — bound to a run that never starts, expired,
 * revoked — and then claims that link. The lookup must read only rows that
 * can answer it: on PostgreSQL the executed plan (EXPLAIN ANALYZE) reads no
 * more rows than its limits, on SQLite the plan is one index range per
 * branch (EXPLAIN QUERY PLAN). Also: an older file or schema upgrades, and a
 * revocation recorded after a decision's time is returned for the policy to judge.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/core/migrations.js';
import { STORE_MIGRATIONS } from '../../src/facts/postgres/migrations.js';
import { RUN_SQL as PG_RUN_SQL } from '../../src/facts/postgres/schema.js';
import { openPostgresStore, type PostgresStore } from '../../src/facts/postgres/store.js';
import { MIGRATIONS, RUN_SQL } from '../../src/facts/sqlite/schema.js';
import { openSqliteStore } from '../../src/facts/sqlite/store.js';
import { createMemoryStore } from '../../src/facts/memory/store.js';
import type { DelegationStore } from '../../src/facts/port.js';
import { freshSchemaUrl, havePostgres } from '../support/postgres.js';

const NOW = 10_000_000;
/** Rows of each kind the flooding manager W records to worker X. */
const FLOOD = 40_000;

/** The five partial indexes of the bounded lookup. */
const INDEXES = ['delegations_open', 'delegations_open_expiring', 'delegations_run', 'delegations_run_expiring', 'delegations_revoked'];

/** Run-bound, expired and revoked delegations from W to X (none live for a call without that run), and one live X → Y. */
const FLOOD_SQL = (series: string) => `
  INSERT INTO delegations (id, manager, worker, run_id, created_at, expires_at, revoked_at, created_by)
    SELECT 'run-' || i, 'W', 'X', 'never-started', ${NOW} - i, CAST(NULL AS bigint), CAST(NULL AS bigint), 'W' FROM ${series}
    UNION ALL SELECT 'runx-' || i, 'W', 'X', 'never-started', ${NOW} - i, ${NOW} + i, NULL, 'W' FROM ${series}
    UNION ALL SELECT 'exp-' || i, 'W', 'X', NULL, ${NOW} - 2 * i - 10, ${NOW} - i, NULL, 'W' FROM ${series}
    UNION ALL SELECT 'rev-' || i, 'W', 'X', NULL, ${NOW} - 2 * i - 10, NULL, ${NOW} - i, 'W' FROM ${series}`;

/** What every store must answer on the flooded data. */
function contract(open: () => Promise<DelegationStore & { close(): Promise<void> }>, seed: (store: DelegationStore) => Promise<void>) {
  let store: DelegationStore & { close(): Promise<void> };
  beforeAll(async () => {
    store = await open();
    await seed(store);
    await store.delegate({ id: 'live', manager: 'Y', worker: 'X', createdBy: 'host', createdAt: NOW - 5 });
    await store.delegate({ id: 'late-revoked', manager: 'Z', worker: 'X', createdBy: 'host', createdAt: NOW - 50 });
    await store.revokeDelegation('late-revoked', NOW - 10);
  }, 120_000);
  afterAll(() => store.close());

  it('finds no live W → X delegation for a call outside the run, and at most the limit inside it', async () => {
    expect(await store.delegationsTo('X', NOW, undefined, 'W')).toEqual([]);
    expect(await store.delegationsTo('X', NOW, 'another-run', 'W')).toEqual([]);
    const inRun = await store.delegationsTo('X', NOW, 'never-started', 'W');
    expect(inRun).toHaveLength(100);
    expect(inRun.every((d) => d.runId === 'never-started' && d.revokedAt === null)).toBe(true);
    expect(inRun[0]?.createdAt).toBe(NOW - 1);
  });

  it("finds another manager's live delegation however many W recorded", async () => {
    expect((await store.delegationsTo('X', NOW, undefined, 'Y')).map((d) => d.id)).toEqual(['live']);
  });

  it('returns a delegation revoked after the decision time (the policy judges it), not one revoked before', async () => {
    expect((await store.delegationsTo('X', NOW - 20, undefined, 'Z')).map((d) => [d.id, d.revokedAt])).toEqual([['late-revoked', NOW - 10]]);
    expect(await store.delegationsTo('X', NOW, undefined, 'Z')).toEqual([]);
    expect(await store.delegationsTo('X', NOW - 10, undefined, 'Z')).toEqual([]);
  });
}

describe('memory store: the bounded lookup answers the same', () => {
  contract(async () => createMemoryStore(), async (store) => {
    for (let i = 1; i <= 200; i++) {
      await store.delegate({ id: `run-${i}`, manager: 'W', worker: 'X', runId: 'never-started', createdBy: 'W', createdAt: NOW - i });
      await store.delegate({ id: `exp-${i}`, manager: 'W', worker: 'X', createdBy: 'W', createdAt: NOW - 2 * i - 10, expiresAt: NOW - i });
    }
  });
});

describe('sqlite store: the delegation lookup reads by index only, however many rows a manager recorded', () => {
  const path = join(mkdtempSync(join(tmpdir(), 'plangate-bounded-')), 'store.db');
  contract(async () => openSqliteStore(path), async (store) => {
    await store.delegate({ id: 'first', manager: 'W', worker: 'Q', createdBy: 'W', createdAt: 1 });
    const db = new Database(path);
    db.exec(FLOOD_SQL(`(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${FLOOD}) SELECT i FROM s)`));
    db.exec('ANALYZE');
    db.close();
  });

  it('plans each branch as an index range on its own partial index, never a scan of the table', () => {
    const db = new Database(path, { readonly: true });
    try {
      for (const run of [null, 'never-started']) {
        const detail = db.prepare(`EXPLAIN QUERY PLAN ${RUN_SQL.delegationsFrom}`).all({ worker: 'X', manager: 'W', now: NOW, run, limit: 100 })
          .map((r) => (r as { detail: string }).detail);
        const searches = detail.filter((d) => d.startsWith('SEARCH'));
        expect(searches).toEqual([
          'SEARCH delegations USING INDEX delegations_open (worker=? AND manager=? AND created_at<?)',
          'SEARCH delegations USING INDEX delegations_open_expiring (worker=? AND manager=? AND expires_at>?)',
          'SEARCH delegations USING INDEX delegations_run (worker=? AND manager=? AND run_id=? AND created_at<?)',
          'SEARCH delegations USING INDEX delegations_run_expiring (worker=? AND manager=? AND run_id=? AND expires_at>?)',
          'SEARCH delegations USING INDEX delegations_revoked (worker=? AND manager=? AND revoked_at>?)',
        ]);
        expect(detail.join(' | ')).not.toMatch(/\bSCAN (?!\(subquery-\d+\))/);
      }
    } finally {
      db.close();
    }
  });

  it('upgrades a version-4 file: its delegations are found through the new indexes', async () => {
    const old = join(mkdtempSync(join(tmpdir(), 'plangate-bounded-')), 'v4.db');
    const v4 = new Database(old);
    for (const step of MIGRATIONS.slice(0, 4)) v4.exec(step);
    v4.pragma('user_version = 4');
    v4.prepare(RUN_SQL.insertDelegation).run('d1', 'M', 'W', null, 1, null, 'host');
    v4.prepare(RUN_SQL.insertDelegation).run('d2', 'M', 'W', 'r1', 2, 100, 'host');
    v4.close();
    const store = openSqliteStore(old);
    try {
      expect((await store.delegationsTo('W', 50, 'r1', 'M')).map((d) => d.id)).toEqual(['d2', 'd1']);
      expect((await store.delegationsTo('W', 100, 'r1', 'M')).map((d) => d.id)).toEqual(['d1']);
    } finally {
      await store.close();
    }
    const db = new Database(old, { readonly: true });
    const names = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'delegations'").all().map((r) => (r as { name: string }).name);
    db.close();
    expect(names).toEqual(expect.arrayContaining(INDEXES));
    expect(names).not.toContain('delegations_live_from_to');
  });
});

const pgRun = havePostgres('bounded delegation lookup on PostgreSQL');

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; 'Actual Rows'?: number; 'Actual Loops'?: number; 'Rows Removed by Filter'?: number; Plans?: PlanNode[] }

/** Every node reading the delegations table, anywhere in the plan. */
function reads(node: PlanNode, out: PlanNode[] = []): PlanNode[] {
  if (node['Relation Name'] === 'delegations') out.push(node);
  for (const child of node.Plans ?? []) reads(child, out);
  return out;
}

describe.runIf(pgRun)('postgres store: the delegation lookup reads by index only, however many rows a manager recorded', () => {
  let drop: () => Promise<void>;
  let url: string;
  let pgStore: PostgresStore;
  contract(async () => {
    const f = await freshSchemaUrl('bounded');
    drop = f.drop;
    url = f.url;
    pgStore = await openPostgresStore(url, { statementTimeoutMs: 120_000 });
    return { ...pgStore, close: async () => { await pgStore.close(); await drop(); } };
  }, async () => {
    await pgStore.pool.query(FLOOD_SQL(`generate_series(1, ${FLOOD}) AS i`));
    await pgStore.pool.query('ANALYZE delegations');
  });

  it('reads no more rows than its limits, with the generic plan the driver runs (EXPLAIN ANALYZE)', async () => {
    const c = await pgStore.pool.connect();
    try {
      await c.query('SET plan_cache_mode = force_generic_plan');
      await c.query(`PREPARE bounded AS ${PG_RUN_SQL.delegationsFrom}`);
      for (const run of ['NULL', "'never-started'", "'another-run'"]) {
        const { rows } = await c.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE bounded('X', ${NOW}, ${run}, 100, 'W')`);
        const plan = (rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan;
        const nodes = reads(plan);
        expect(nodes.map((n) => n['Node Type'])).toEqual(Array(5).fill(expect.stringMatching(/^Index (Only )?Scan$/)));
        expect(nodes.map((n) => n['Index Name']).sort()).toEqual([...INDEXES].sort());
        // Rows read: those returned plus those filtered out, per branch. 4 × 40,000 flooded rows; at most the limit read.
        const touched = nodes.reduce((sum, n) => sum + ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0)) * (n['Actual Loops'] ?? 1), 0);
        expect(touched, `run ${run}`).toBeLessThanOrEqual(run === "'never-started'" ? 200 : 0);
      }
      await c.query('DEALLOCATE bounded');
    } finally {
      c.release();
    }
  });

  it('upgrades a schema at step 2: the old index goes, the new ones serve its delegations', async () => {
    const f = await freshSchemaUrl('bounded_up');
    const pool = (await import('pg')).default;
    const c = new pool.Client({ connectionString: f.url });
    await c.connect();
    try {
      await migrate(c, { component: 'store', steps: STORE_MIGRATIONS.steps.slice(0, 2) });
      await c.query(PG_RUN_SQL.insertDelegation, ['d1', 'M', 'W', null, 1, null, 'host']);
    } finally {
      await c.end();
    }
    const s = await openPostgresStore(f.url);
    try {
      expect((await s.delegationsTo('W', 5, undefined, 'M')).map((d) => d.id)).toEqual(['d1']);
      const { rows } = await s.pool.query("SELECT indexname FROM pg_indexes WHERE tablename = 'delegations' AND schemaname = current_schema()");
      const names = rows.map((r: { indexname: string }) => r.indexname);
      expect(names).toEqual(expect.arrayContaining(INDEXES));
      expect(names).not.toContain('delegations_from_to');
    } finally {
      await s.close();
      await f.drop();
    }
  });
});
