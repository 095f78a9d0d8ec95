/**
 * Counting a seat's writes for its quotas (core/quotas.ts), the same way in
 * every driver: what each kind counts, how a query is checked, and the
 * statements, kept here as data so that a test can check each is an index
 * range scan that stops at its limit.
 *
 * Each count is bounded by the quota it serves (its limit is the quota plus
 * one), never by how many rows the seat wrote: a seat with a million
 * messages costs the count of one over its quota.
 */
import { ErrorCode, PlangateError } from '../core/errors.js';
import { QUOTA_KINDS, type CountedQuotaKind, type QuotaCountQuery } from '../core/quotas.js';
import { isValidId } from '../core/threads.js';

/** The largest count limit a query may ask for (the largest standing quota plus one). */
export const MAX_QUOTA_COUNT = 200_001;

/** What one kind counts: the table, the seat's column, the time column, and the rows' own condition. */
export interface QuotaSpec {
  table: string;
  seat: string;
  time: string;
  /** A condition every counted row meets, written as its partial index's is; `$thread` is the seat's own thread. */
  where?: string;
  /** The standing count is the plans on the seat's active hold, not rows. */
  standingFromHold?: boolean;
}

/**
 * What each kind counts. A hold plan is a plan in the seat's own thread
 * (the reviewer channel posts it there): the rate counts those, the standing
 * count the plans on the seat's active hold.
 */
export const QUOTA_SPECS: Readonly<Record<CountedQuotaKind, QuotaSpec>> = {
  messages: { table: 'messages', seat: 'author', time: 'at', where: "author_kind = 'agent'" },
  holdPlans: { table: 'messages', seat: 'author', time: 'at', where: "thread = $thread AND kind = 'plan' AND author_kind = 'agent'", standingFromHold: true },
  delegations: { table: 'delegations', seat: 'manager', time: 'created_at' },
  runs: { table: 'runs', seat: 'seat', time: 'started_at' },
  approvalRequests: { table: 'approvals', seat: 'seat', time: 'requested_at' },
};

/** Whether a kind is one the stores count. */
export function isCountedKind(kind: unknown): kind is CountedQuotaKind {
  return typeof kind === 'string' && Object.hasOwn(QUOTA_SPECS, kind);
}

function limit(n: unknown, field: string): number {
  if (!Number.isSafeInteger(n) || (n as number) < 1 || (n as number) > MAX_QUOTA_COUNT) {
    throw new PlangateError(ErrorCode.InvalidInput, `quota count: ${field} must be an integer from 1 to ${MAX_QUOTA_COUNT}, got ${String(n)}`);
  }
  return n as number;
}

/**
 * Checks a count query; throws `invalid_input` for a malformed one.
 *
 * @example
 * checkQuotaCountQuery({ kind: 'messages', seat: '0xW', since: 0, rateLimit: 601, standingLimit: 50001 })
 */
export function checkQuotaCountQuery(q: QuotaCountQuery): QuotaCountQuery {
  if (!isCountedKind(q?.kind)) {
    const known = QUOTA_KINDS.includes(q?.kind as never);
    throw new PlangateError(ErrorCode.InvalidInput, known ? `quota count: ${q.kind} are not counted` : `quota count: unknown kind ${JSON.stringify(q?.kind)}`);
  }
  if (!isValidId(q.seat)) throw new PlangateError(ErrorCode.InvalidInput, `quota count: not a valid seat: ${JSON.stringify(q.seat)}`);
  if (!Number.isSafeInteger(q.since)) throw new PlangateError(ErrorCode.InvalidInput, `quota count: since must be epoch milliseconds, got ${String(q.since)}`);
  return { kind: q.kind, seat: q.seat, since: q.since, rateLimit: limit(q.rateLimit, 'rateLimit'), standingLimit: limit(q.standingLimit, 'standingLimit') };
}

/** A driver's placeholders: SQLite's named ones, PostgreSQL's numbered ones. */
export interface Placeholders {
  seat: string;
  since: string;
  limit: string;
  offset: string;
  thread: string;
}

/**
 * The three statements of one kind, in a driver's placeholders: the rows
 * in the window (up to a limit), the rows kept (up to a limit), and the
 * time of the row at an offset from the newest in the window.
 *
 * @example
 * quotaStatements(QUOTA_SPECS.runs, sqlitePlaceholders).recent
 * // "SELECT count(*) AS n FROM (SELECT 1 FROM runs WHERE seat = $seat AND started_at > $since LIMIT $limit)"
 */
export function quotaStatements(
  spec: QuotaSpec,
  p: Placeholders | { recent: Placeholders; standing: Placeholders; edge: Placeholders },
): { recent: string; standing: string; edge: string } {
  const of = (which: 'recent' | 'standing' | 'edge'): Placeholders => ('recent' in p ? p[which] : p);
  const rows = (x: Placeholders): string => `FROM ${spec.table} WHERE ${spec.seat} = ${x.seat}${spec.where ? ` AND ${spec.where.replace('$thread', x.thread)}` : ''}`;
  const [r, s, e] = [of('recent'), of('standing'), of('edge')];
  return {
    recent: `SELECT count(*) AS n FROM (SELECT 1 ${rows(r)} AND ${spec.time} > ${r.since} LIMIT ${r.limit}) AS counted`,
    standing: `SELECT count(*) AS n FROM (SELECT 1 ${rows(s)} LIMIT ${s.limit}) AS counted`,
    edge: `SELECT ${spec.time} AS t ${rows(e)} AND ${spec.time} > ${e.since} ORDER BY ${spec.time} DESC LIMIT 1 OFFSET ${e.offset}`,
  };
}

/**
 * The offset of the edge row (the rate-th newest in the window), or
 * undefined when there is none to look for: the rate is 0, or the window
 * holds fewer rows than the rate.
 *
 * @example
 * edgeOffset({ rateLimit: 601 }, 600) // 599
 */
export function edgeOffset(q: Pick<QuotaCountQuery, 'rateLimit'>, recent: number): number | undefined {
  const rate = q.rateLimit - 1;
  return rate >= 1 && recent >= rate ? rate - 1 : undefined;
}
