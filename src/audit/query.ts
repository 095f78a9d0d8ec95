/**
 * What an `AuditQuery` means, in one place: which events match it, and
 * which queries are valid. Every `AuditReader` (memory, JSONL, PostgreSQL)
 * answers with exactly the events `matchesAudit` accepts, newest first.
 */
import { ErrorCode, PlangateError, type Problem } from '../core/errors.js';
import type { AuditEvent, AuditEventType, AuditQuery, AuditReader, AuditSink } from './port.js';

/** Every audit event type, in a stable order. */
export const AUDIT_EVENT_TYPES: readonly AuditEventType[] = [
  'PlanRequiredBlocked',
  'PlanningHoldBlocked',
  'ReadGuardBlocked',
  'ToolChangedBlocked',
  'HoldPlaced',
  'HoldPlanSubmitted',
  'HoldPushedBack',
  'HoldReleased',
  'HoldUnblocked',
  'ClaimRefused',
  'ApprovalRequested',
  'ApprovalGranted',
  'ApprovalDenied',
  'ApprovalUsed',
  'ApprovalExpired',
  'StoreFailureRefused',
];

/** The check behind each refusal event (the decision's `check`); other events have none. */
export const AUDIT_CHECKS = {
  plan_required: 'PlanRequiredBlocked',
  planning_hold: 'PlanningHoldBlocked',
  read_guard: 'ReadGuardBlocked',
  tool_pin: 'ToolChangedBlocked',
} as const satisfies Record<string, AuditEventType>;
export type AuditCheck = keyof typeof AUDIT_CHECKS;

/** The event types of refused calls (and shadow-mode would-be refusals). */
export const REFUSAL_EVENT_TYPES: readonly AuditEventType[] = Object.values(AUDIT_CHECKS);

/** Default and largest `limit` of a query. */
export const DEFAULT_AUDIT_LIMIT = 100;
export const MAX_AUDIT_LIMIT = 1000;

/** A query with every field checked and the limit filled in. */
export interface CheckedAuditQuery extends Omit<AuditQuery, 'type' | 'limit'> {
  /** Undefined: every type. */
  types?: ReadonlySet<AuditEventType>;
  limit: number;
}

/**
 * The check that refused the call an event records, or undefined for a
 * hold's life event.
 *
 * @example
 * checkOf({ type: 'ReadGuardBlocked', … }) // 'read_guard'
 */
export function checkOf(event: AuditEvent): AuditCheck | undefined {
  for (const [check, type] of Object.entries(AUDIT_CHECKS)) if (event.type === type) return check as AuditCheck;
  return undefined;
}

/**
 * Validates a query (every problem at once) and fills in the limit.
 *
 * @example
 * checkAuditQuery({ crew: 'desk', check: 'plan_required' }).limit // 100
 * checkAuditQuery({ limit: 5000 }) // throws invalid_input: limit must be an integer from 0 to 1000
 */
export function checkAuditQuery(query: AuditQuery = {}): CheckedAuditQuery {
  if (typeof query !== 'object' || query === null) throw new PlangateError(ErrorCode.InvalidInput, 'an audit query must be an object');
  const problems: Problem[] = [];
  const out: CheckedAuditQuery = { limit: DEFAULT_AUDIT_LIMIT };
  if (query.type !== undefined) {
    const types = Array.isArray(query.type) ? query.type : [query.type];
    const unknown = types.filter((t) => !AUDIT_EVENT_TYPES.includes(t));
    if (unknown.length > 0 || types.length === 0) {
      problems.push({ path: '/type', message: `type must be one or more of ${AUDIT_EVENT_TYPES.join(', ')}${unknown.length ? ` (got ${unknown.map((t) => JSON.stringify(t)).join(', ')})` : ''}` });
    } else {
      out.types = new Set(types);
    }
  }
  for (const field of ['agent', 'crew', 'tool', 'code'] as const) {
    const v = query[field];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v === '' || v.length > 512) problems.push({ path: `/${field}`, message: `${field} must be a non-empty string of at most 512 characters` });
    else out[field] = v;
  }
  if (query.check !== undefined) {
    if (!Object.hasOwn(AUDIT_CHECKS, query.check)) problems.push({ path: '/check', message: `check must be one of ${Object.keys(AUDIT_CHECKS).join(', ')}` });
    else out.check = query.check;
  }
  if (query.shadow !== undefined) {
    if (typeof query.shadow !== 'boolean') problems.push({ path: '/shadow', message: 'shadow must be true or false' });
    else out.shadow = query.shadow;
  }
  for (const field of ['since', 'until'] as const) {
    const v = query[field];
    if (v === undefined) continue;
    if (!Number.isSafeInteger(v)) problems.push({ path: `/${field}`, message: `${field} must be a time (epoch milliseconds)` });
    else out[field] = v;
  }
  if (out.since !== undefined && out.until !== undefined && out.since > out.until) {
    problems.push({ path: '/since', message: 'since must not be later than until' });
  }
  if (query.limit !== undefined) {
    if (!Number.isSafeInteger(query.limit) || query.limit < 0 || query.limit > MAX_AUDIT_LIMIT) {
      problems.push({ path: '/limit', message: `limit must be an integer from 0 to ${MAX_AUDIT_LIMIT}` });
    } else {
      out.limit = query.limit;
    }
  }
  if (problems.length > 0) {
    throw new PlangateError(ErrorCode.InvalidInput, `invalid audit query: ${problems.map((p) => p.message).join('; ')}`, problems);
  }
  return out;
}

/**
 * Whether an event matches a checked query. A filter on a field the event's
 * type does not have (`crew` on a `HoldPlaced`) does not match it.
 *
 * @example
 * matchesAudit(event, checkAuditQuery({ crew: 'desk', shadow: true }))
 */
export function matchesAudit(event: AuditEvent, q: CheckedAuditQuery): boolean {
  if (q.types && !q.types.has(event.type)) return false;
  if (q.check !== undefined && checkOf(event) !== q.check) return false;
  const fields = event as unknown as Record<string, unknown>;
  for (const field of ['agent', 'crew', 'tool', 'code'] as const) {
    if (q[field] !== undefined && fields[field] !== q[field]) return false;
  }
  if (q.shadow !== undefined && (fields['shadow'] === true) !== q.shadow) return false;
  if (q.since !== undefined || q.until !== undefined) {
    const t = Date.parse(event.time);
    if (Number.isNaN(t)) return false;
    if (q.since !== undefined && t < q.since) return false;
    if (q.until !== undefined && t > q.until) return false;
  }
  return true;
}

/**
 * The reader of a sink that can read its events back (memory, JSONL,
 * PostgreSQL), or undefined for a write-only sink.
 *
 * @example
 * const reader = readerOf(pg.audit); // undefined for a sink without query()
 */
export function readerOf(sink: AuditSink | undefined): AuditReader | undefined {
  const query = (sink as Partial<AuditReader> | undefined)?.query;
  return typeof query === 'function' ? { query: (q) => query.call(sink, q) } : undefined;
}

const DURATION = /^(\d{1,6})(m|h|d)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A time bound as people and URLs write it: epoch milliseconds, an
 * ISO-8601 date or date-time, or a duration back from `now` (`15m`, `24h`,
 * `7d`). Undefined when the text is none of these.
 *
 * @example
 * parseAuditTime('7d', Date.UTC(2026, 10, 30)) // Date.UTC(2026, 10, 23)
 * parseAuditTime('2026-11-30T09:00:00Z')        // 1796029200000
 */
export function parseAuditTime(text: string, now: number = Date.now()): number | undefined {
  if (/^\d{1,16}$/.test(text)) return Number(text);
  const d = DURATION.exec(text);
  if (d) return now - Number(d[1]) * UNIT_MS[d[2] as keyof typeof UNIT_MS];
  if (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) return undefined;
  const t = Date.parse(text);
  return Number.isNaN(t) ? undefined : t;
}
