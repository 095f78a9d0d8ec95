/**
 * A seat's quota counts cost what its quota allows, never what it wrote:
 * with tens of thousands of rows of its own, each count is an index range
 * scan that stops at its limit. On SQLite the plan is an index search per
 * statement (EXPLAIN QUERY PLAN); on PostgreSQL the executed plan (EXPLAIN
 * ANALYZE, the generic plan the driver runs) reads no more rows than the limit.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CountedQuotaKind } from '../../src/core/quotas.js';
import { POSTGRES_QUOTA_SQL } from '../../src/facts/postgres/quotas.js';
import { openPostgresStore, type PostgresStore } from '../../src/facts/postgres/store.js';
import { SQLITE_QUOTA_SQL } from '../../src/facts/sqlite/quotas.js';
import { openSqliteStore } from '../../src/facts/sqlite/store.js';
import { freshSchemaUrl, havePostgres } from '../support/postgres.js';

const NOW = 10_000_000;
/** Rows of each kind seat W wrote. */
const FLOOD = 20_000;
const pgRun = havePostgres('the PostgreSQL quota counts bounded by their limits');

/** W's messages, plans in its own thread, runs, delegations (as manager) and approval requests, all in the window; `json` an empty JSON object in the driver's SQL. */
const FLOOD_SQL = (series: string, json = "'{}'") => [
  `INSERT INTO messages (thread, author, author_kind, kind, body, at) SELECT 'agent:W', 'W', 'agent', 'plan', 'x', ${NOW} - i FROM ${series}`,
  `INSERT INTO runs (id, seat, started_at, expires_at, started_by) SELECT 'r' || i, 'W', ${NOW} - i, ${NOW} + 1000, 'host' FROM ${series}`,
  `INSERT INTO delegations (id, manager, worker, created_at, created_by) SELECT 'd' || i, 'W', 'X' || (i % 50), ${NOW} - i, 'W' FROM ${series}`,
  `INSERT INTO approvals (id, seat, tool, digest, args, status, requested_at, window_min, approvers) SELECT 'a' || i, 'W', 't', 'h' || i, ${json}, 'used', ${NOW} - i, 15, ${json} FROM ${series}`,
];

const INDEXES: Record<CountedQuotaKind, string> = {
  messages: 'messages_by_agent',
  holdPlans: 'messages_plans',
  runs: 'runs_by_seat',
  delegations: 'delegations_by_manager',
  approvalRequests: 'approvals_by_seat',
};

describe('sqlite store: each quota count is an index search under a limit', () => {
  const path = join(mkdtempSync(join(tmpdir(), 'plangate-quota-')), 'q.db');
  let db: Database.Database;
  beforeAll(async () => {
    await openSqliteStore(path).close();
    db = new Database(path);
    db.exec(`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${FLOOD}) SELECT 1`);
    for (const sql of FLOOD_SQL(`(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${FLOOD}) SELECT i FROM s)`)) db.exec(sql);
    db.exec('ANALYZE');
  }, 60_000);
  afterAll(() => db.close());

  for (const [kind, statements] of Object.entries(SQLITE_QUOTA_SQL)) {
    for (const [which, sql] of Object.entries(statements)) {
      it(`${kind} ${which}`, () => {
        const params = { seat: 'W', since: NOW - 3_600_000, limit: 11, offset: 9, ...(kind === 'holdPlans' ? { thread: 'agent:W' } : {}) };
        const used = Object.fromEntries(Object.entries(params).filter(([k]) => sql.includes(`$${k}`)));
        const text = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(used).map((r) => (r as { detail: string }).detail).join(' | ');
        expect(text).toContain(`INDEX ${INDEXES[kind as CountedQuotaKind]} `);
        expect(text).not.toMatch(/SCAN (messages|runs|delegations|approvals)\b/);
        expect(text).not.toMatch(/TEMP B-TREE/);
      });
    }
  }

  it('counts up to the limit whatever W wrote', async () => {
    const store = openSqliteStore(path);
    try {
      for (const kind of ['messages', 'runs', 'delegations', 'holdPlans', 'approvalRequests'] as const) {
        const c = await store.quotaCounts({ kind, seat: 'W', since: NOW - 3_600_000, rateLimit: 11, standingLimit: 101 });
        expect(c).toEqual({ recent: 11, standing: kind === 'holdPlans' ? 0 : 101, edge: NOW - 10 });
      }
    } finally {
      await store.close();
    }
  });
});

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; 'Actual Rows'?: number; 'Actual Loops'?: number; 'Rows Removed by Filter'?: number; Plans?: PlanNode[] }

/** Every node reading a table, anywhere in the plan. */
function reads(node: PlanNode, out: PlanNode[] = []): PlanNode[] {
  if (node['Relation Name'] !== undefined) out.push(node);
  for (const child of node.Plans ?? []) reads(child, out);
  return out;
}

describe.runIf(pgRun)('postgres store: each quota count reads no more rows than its limit (EXPLAIN ANALYZE)', () => {
  let store: PostgresStore;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await freshSchemaUrl('quota_bounds');
    drop = fresh.drop;
    store = await openPostgresStore(fresh.url, { statementTimeoutMs: 120_000 });
    for (const sql of FLOOD_SQL(`generate_series(1, ${FLOOD}) AS i`, "'{}'::jsonb")) await store.pool.query(sql);
    await store.pool.query('ANALYZE');
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    await drop?.();
  });

  for (const [kind, statements] of Object.entries(POSTGRES_QUOTA_SQL)) {
    for (const [which, sql] of Object.entries(statements)) {
      it(`${kind} ${which}`, async () => {
        const own = kind === 'holdPlans' ? ["'agent:W'"] : [];
        const values = which === 'standing' ? ["'W'", '11', ...own] : ["'W'", String(NOW - 3_600_000), which === 'edge' ? '9' : '11', ...own];
        const c = await store.pool.connect();
        try {
          await c.query('SET plan_cache_mode = force_generic_plan');
          await c.query(`PREPARE counted AS ${sql}`);
          const { rows } = await c.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE counted(${values.join(', ')})`);
          const nodes = reads((rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan);
          expect(nodes.length).toBeGreaterThan(0);
          for (const n of nodes) {
            // Every row here is W's: the planner may read the table in order, and still stops at the limit.
            const touched = ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0)) * (n['Actual Loops'] ?? 1);
            expect(touched, `${FLOOD} rows of W's; the limit is 11`).toBeLessThanOrEqual(11);
          }
        } finally {
          await c.query('DEALLOCATE counted').catch(() => {});
          c.release();
        }
      });
    }
  }
});
