/**
 * Pruning a SQLite store (see ../retention.ts and ../prune-plan.ts): each
 * batch is one short write transaction, and the event loop is given back
 * between batches, so decisions of this process and of others on the same
 * file go on while a large prune runs.
 */
import type Database from 'better-sqlite3';
import type { PruneCounts, PruneCutoffs, PruneOptions } from '../retention.js';
import { beforeOf, STRAGGLERS_MS, OLDEST_OPEN_RUN, PRUNE_TABLES, type PruneTable } from '../prune-plan.js';

/** SQLite's names for the walk keys the plan leaves to each driver. */
const KEYS: Record<string, string> = { ':runKey': 'rowid', ':delegationKey': 'rowid', ':approvalKey': 'rowid' };

const yieldLoop = (): Promise<void> => new Promise((r) => setImmediate(r));

async function pruneTable(db: Database.Database, t: PruneTable, params: Record<string, number>, o: PruneOptions): Promise<number> {
  const key = KEYS[t.key] ?? t.key;
  const scan = db.prepare<[number, number], { k: number; t: number }>(`SELECT ${key} AS k, ${t.recorded} AS t FROM ${t.table} WHERE ${key} > ? ORDER BY ${key} LIMIT ?`);
  const match = `SELECT ${key} FROM ${t.table} WHERE ${key} > :lo AND ${key} <= :hi AND ${t.condition}`;
  const count = db.prepare(`SELECT count(*) FROM (${match})`).pluck();
  const dependents = t.dependents ? db.prepare(t.dependents.replace(':match', match)) : undefined;
  const remove = db.prepare(`DELETE FROM ${t.table} WHERE ${key} IN (${match})`);
  const step = db.transaction((range: Record<string, number>) => {
    dependents?.run(range);
    return remove.run(range).changes;
  });
  let done = 0;
  let lo = Number.MIN_SAFE_INTEGER;
  const before = params['before'] as number;
  while (done < o.maxRows) {
    const rows = scan.all(lo, Math.min(o.batch, o.maxRows - done));
    if (rows.length === 0) break;
    const hi = (rows[rows.length - 1] as { k: number }).k;
    const range = { ...params, lo, hi };
    done += o.dryRun ? (count.get(range) as number) : step(range);
    lo = hi;
    // Past the cutoff: what follows was recorded later still.
    if (rows.every((r) => r.t >= before + STRAGGLERS_MS)) break;
    await yieldLoop();
  }
  return done;
}

/**
 * Prunes what the cutoffs allow; returns the count per kind and the start
 * of the oldest run still open (no message since then was deleted).
 */
export async function pruneSqlite(db: Database.Database, c: PruneCutoffs, o: PruneOptions): Promise<PruneCounts & { keptFrom: number }> {
  const oldest = db.prepare(OLDEST_OPEN_RUN).pluck().get({ now: c.now }) as number | null;
  const keptFrom = oldest ?? c.now;
  const counts: PruneCounts = { messages: 0, runs: 0, delegations: 0, holds: 0, approvals: 0 };
  for (const t of PRUNE_TABLES) {
    counts[t.kind as keyof PruneCounts] = await pruneTable(db, t, { now: c.now, before: beforeOf(t.kind, c), keptFrom }, o);
  }
  return { ...counts, keptFrom };
}
