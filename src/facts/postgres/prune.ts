/**
 * Pruning a PostgreSQL store (see ../retention.ts and ../prune-plan.ts).
 * One replica prunes at a time: the prune holds a session advisory lock
 * (`pg_try_advisory_lock`, https://www.postgresql.org/docs/15/functions-admin.html#FUNCTIONS-ADVISORY-LOCKS)
 * on one connection for its length, and a replica that does not get it
 * skips this cycle. Each batch is one statement in its own transaction;
 * a delete takes row locks on the rows it deletes only, which decisions
 * read without waiting (MVCC).
 */
import type pg from 'pg';
import type { PruneCounts, PruneCutoffs, PruneOptions } from '../retention.js';
import { AUDIT_TABLE, beforeOf, STRAGGLERS_MS, OLDEST_OPEN_RUN, PRUNE_TABLES, type PruneTable } from '../prune-plan.js';

/** The advisory lock key of pruning (the migrations use another). */
export const PRUNE_LOCK_KEY = 0x706c_7072; // 'plpr'

/** PostgreSQL's names for the walk keys the plan leaves to each driver. */
const KEYS: Record<string, string> = { ':runKey': 'seq', ':delegationKey': 'seq', ':approvalKey': 'seq' };

/** A statement with `:name` parameters as pg takes it: `$n` for each name used, and their values in that order. */
function bind(sql: string, values: Record<string, number>): [string, number[]] {
  const names: string[] = [];
  const text = sql.replace(/:(now|before|keptFrom|lo|hi)\b/g, (_, n: string) => {
    if (!names.includes(n)) names.push(n);
    return `$${names.indexOf(n) + 1}::bigint`;
  });
  return [text, names.map((n) => values[n] as number)];
}

async function pruneTable(q: pg.PoolClient, t: PruneTable, params: Record<string, number>, o: PruneOptions): Promise<number> {
  const key = KEYS[t.key] ?? t.key;
  const match = `SELECT ${key} FROM ${t.table} WHERE ${key} > :lo AND ${key} <= :hi AND ${t.condition}`;
  let done = 0;
  let lo = -1;
  const before = params['before'] as number;
  while (done < o.maxRows) {
    const scan = await q.query<{ k: string; t: string }>(`SELECT ${key} AS k, ${t.recorded} AS t FROM ${t.table} WHERE ${key} > $1 ORDER BY ${key} LIMIT $2`, [lo, Math.min(o.batch, o.maxRows - done)]);
    if (scan.rows.length === 0) break;
    const hi = Number((scan.rows[scan.rows.length - 1] as { k: string }).k);
    const values = { ...params, lo, hi };
    if (o.dryRun) {
      done += Number((await q.query<{ n: string }>(...bind(`SELECT count(*) AS n FROM (${match}) AS m`, values))).rows[0]?.n ?? 0);
    } else if (t.dependents) {
      // The links first, then the rows, in one short transaction.
      await q.query('BEGIN');
      try {
        await q.query(...bind(t.dependents.replace(':match', match), values));
        done += (await q.query(...bind(`DELETE FROM ${t.table} WHERE ${key} IN (${match})`, values))).rowCount ?? 0;
        await q.query('COMMIT');
      } catch (err) {
        await q.query('ROLLBACK').catch(() => {});
        throw err;
      }
    } else {
      done += (await q.query(...bind(`DELETE FROM ${t.table} WHERE ${key} IN (${match})`, values))).rowCount ?? 0;
    }
    lo = hi;
    if (scan.rows.every((r) => Number(r.t) >= before + STRAGGLERS_MS)) break;
  }
  return done;
}

/**
 * Prunes under the advisory lock, or returns `skipped` when another replica
 * holds it; the audit table too, when there is one.
 */
export async function prunePostgres(pool: pg.Pool, c: PruneCutoffs, o: PruneOptions): Promise<PruneCounts & { keptFrom: number; skipped?: true }> {
  const q = await pool.connect();
  // A connection whose unlock failed goes back to no one: it would hold the lock for good.
  let broken = false;
  try {
    const got = (await q.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [PRUNE_LOCK_KEY])).rows[0]?.ok === true;
    if (!got) return { messages: 0, runs: 0, delegations: 0, holds: 0, approvals: 0, keptFrom: c.now, skipped: true };
    try {
      const oldest = (await q.query<{ min: string | null }>(...bind(OLDEST_OPEN_RUN.replace('min(started_at)', 'min(started_at) AS min'), { now: c.now }))).rows[0]?.min;
      const keptFrom = oldest === null || oldest === undefined ? c.now : Number(oldest);
      const counts: PruneCounts = { messages: 0, runs: 0, delegations: 0, holds: 0, approvals: 0 };
      // The audit table, where the PostgreSQL audit sink made one.
      const audit = (await q.query<{ ok: boolean }>("SELECT to_regclass('audit_events') IS NOT NULL AS ok")).rows[0]?.ok === true;
      for (const t of [...PRUNE_TABLES, ...(audit ? [AUDIT_TABLE] : [])]) {
        counts[t.kind] = await pruneTable(q, t, { now: c.now, before: beforeOf(t.kind, c), keptFrom }, o);
      }
      return { ...counts, keptFrom };
    } finally {
      await q.query('SELECT pg_advisory_unlock($1)', [PRUNE_LOCK_KEY]).catch(() => {
        broken = true;
      });
    }
  } finally {
    q.release(broken);
  }
}
