/**
 * The PostgreSQL store's quota counts: each an index range scan that stops
 * at its limit (statements in ../quotas.ts; step 3 → 4 adds the
 * delegations' index by manager).
 */
import type pg from 'pg';
import { agentThread } from '../../core/threads.js';
import type { CountedQuotaKind, QuotaCountQuery, QuotaCounts } from '../../core/quotas.js';
import { checkQuotaCountQuery, edgeOffset, QUOTA_SPECS, quotaStatements, type Placeholders } from '../quotas.js';
import type { Runner } from './pool.js';

const WINDOW: Placeholders = { seat: '$1', since: '$2', limit: '$3', offset: '$3', thread: '$4' };
const PLACEHOLDERS = { recent: WINDOW, edge: WINDOW, standing: { ...WINDOW, limit: '$2', thread: '$3' } };

/**
 * The statements of every kind, as PostgreSQL runs them: $1 the seat, $2
 * the window's start, $3 the limit (or the edge's offset), $4 the seat's
 * own thread where the kind counts in it; the standing count has no window:
 * $2 its limit, $3 the thread.
 */
export const POSTGRES_QUOTA_SQL = Object.fromEntries(
  Object.entries(QUOTA_SPECS).map(([kind, spec]) => [kind, quotaStatements(spec, PLACEHOLDERS)]),
) as Record<CountedQuotaKind, { recent: string; standing: string; edge: string }>;

/** The plans on a seat's active hold (one seek on the active-hold index). */
const HOLD_PLANS = `SELECT plans FROM holds WHERE agent = $1 AND state = 'active'`;

/**
 * The quota counts of a PostgreSQL store.
 *
 * @example
 * const counts = postgresQuotaCounts(pool, run);
 */
export function postgresQuotaCounts(pool: pg.Pool, run: Runner): (q: QuotaCountQuery) => Promise<QuotaCounts> {
  return (query) => run('quotaCounts', async () => {
    const q = checkQuotaCountQuery(query);
    const kind = q.kind as CountedQuotaKind;
    const sql = POSTGRES_QUOTA_SQL[kind];
    const own = QUOTA_SPECS[kind].where?.includes('$thread') ? [agentThread(q.seat)] : [];
    const one = async (text: string, values: unknown[]): Promise<number | undefined> => {
      const row = (await pool.query<{ n?: string | number; t?: string | number; plans?: number }>(text, values)).rows[0];
      const v = row?.n ?? row?.t ?? row?.plans;
      return v === undefined ? undefined : Number(v);
    };
    const recent = (await one(sql.recent, [q.seat, q.since, q.rateLimit, ...own])) ?? 0;
    const standing = QUOTA_SPECS[kind].standingFromHold
      ? Math.min(q.standingLimit, (await one(HOLD_PLANS, [q.seat])) ?? 0)
      : ((await one(sql.standing, [q.seat, q.standingLimit, ...own])) ?? 0);
    const offset = edgeOffset(q, recent);
    const edge = offset === undefined ? undefined : await one(sql.edge, [q.seat, q.since, offset, ...own]);
    return edge === undefined ? { recent, standing } : { recent, standing, edge };
  });
}
