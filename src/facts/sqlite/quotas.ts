/**
 * The SQLite store's quota counts: each an index range scan that stops at
 * its limit (statements in ../quotas.ts; migration 5 → 6 adds the
 * delegations' index by manager).
 */
import type Database from 'better-sqlite3';
import { agentThread } from '../../core/threads.js';
import type { CountedQuotaKind, QuotaCountQuery, QuotaCounts } from '../../core/quotas.js';
import { checkQuotaCountQuery, edgeOffset, QUOTA_SPECS, quotaStatements, type Placeholders } from '../quotas.js';
import { guard } from './guard.js';

const PLACEHOLDERS: Placeholders = { seat: '$seat', since: '$since', limit: '$limit', offset: '$offset', thread: '$thread' };

/** The statements of every kind, as SQLite runs them. */
export const SQLITE_QUOTA_SQL = Object.fromEntries(
  Object.entries(QUOTA_SPECS).map(([kind, spec]) => [kind, quotaStatements(spec, PLACEHOLDERS)]),
) as Record<CountedQuotaKind, { recent: string; standing: string; edge: string }>;

/** The plans on a seat's active hold (one seek on the active-hold index). */
const HOLD_PLANS = `SELECT plans FROM holds WHERE agent = $seat AND state = 'active'`;

/**
 * The quota counts of a SQLite store.
 *
 * @example
 * const counts = sqliteQuotaCounts(db);
 * await counts({ kind: 'messages', seat: '0xW', since: Date.now() - 3_600_000, rateLimit: 601, standingLimit: 50_001 })
 */
export function sqliteQuotaCounts(db: Database.Database): (q: QuotaCountQuery) => Promise<QuotaCounts> {
  const prepared = new Map<string, Database.Statement>();
  const stmt = (sql: string): Database.Statement => {
    let s = prepared.get(sql);
    if (s === undefined) prepared.set(sql, (s = db.prepare(sql).pluck()));
    return s;
  };
  return async (query) => guard('quotaCounts', () => {
    const q = checkQuotaCountQuery(query);
    const kind = q.kind as CountedQuotaKind;
    const sql = SQLITE_QUOTA_SQL[kind];
    const own = QUOTA_SPECS[kind].where?.includes('$thread') ? { thread: agentThread(q.seat) } : {};
    const recent = stmt(sql.recent).get({ seat: q.seat, since: q.since, limit: q.rateLimit, ...own }) as number;
    const standing = QUOTA_SPECS[kind].standingFromHold
      ? Math.min(q.standingLimit, (stmt(HOLD_PLANS).get({ seat: q.seat }) as number | undefined) ?? 0)
      : (stmt(sql.standing).get({ seat: q.seat, limit: q.standingLimit, ...own }) as number);
    const offset = edgeOffset(q, recent);
    const edge = offset === undefined ? undefined : (stmt(sql.edge).get({ seat: q.seat, since: q.since, offset, ...own }) as number | undefined);
    return edge === undefined ? { recent, standing } : { recent, standing, edge };
  });
}
