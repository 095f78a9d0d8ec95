/**
 * The audit trail over HTTP, for operators and reviewers (the console's
 * refusals page reads it): the events the gate recorded, newest first,
 * filtered; a reviewer reads the refusals only (see REVIEWER_TYPES).
 * Events never carry a message body.
 *
 *   GET /v1/audit?crew=&agent=&tool=&check=&code=&type=&shadow=&since=&until=&limit=
 *
 * `since`/`until`: epoch ms, ISO-8601, or a duration back from now (`24h`,
 * `7d`); `type`: comma-separated event types; `shadow`: `true` (only
 * shadow-mode would-be refusals) or `false` (only real ones).
 */
import type { AuditEvent, AuditEventType, AuditQuery } from '../../../audit/port.js';
import { checkAuditQuery, parseAuditTime, REFUSAL_EVENT_TYPES } from '../../../audit/query.js';
import { ErrorCode, PlangateError, type Problem } from '../../../core/errors.js';
import type { HttpDeps } from '../deps.js';
import { HttpCode, HttpError } from '../errors.js';
import type { Router } from '../router.js';
import { REVIEW_ROLES } from './review.js';

/**
 * What a reviewer reads of the audit: the refusals, as the console's
 * refusals page shows them (a call an operator's hold refused among them:
 * it is why that agent's work stopped). Not the holds' lives, which carry
 * an operator's task and who placed it (the queue shows the reviewer's own
 * holds), and not where the host resolved a path (the host's file system
 * is the operators').
 */
const REVIEWER_TYPES: readonly AuditEventType[] = [...REFUSAL_EVENT_TYPES, 'ClaimRefused'];

function withoutHostPaths(e: AuditEvent): AuditEvent {
  if (e.type !== 'ReadGuardBlocked') return e;
  const { resolved: _r, files, ...rest } = e;
  return { ...rest, resolved: null, ...(files ? { files: files.map((f) => ({ ...f, resolved: null })) } : {}) };
}

const PARAMS = ['crew', 'agent', 'tool', 'check', 'code', 'type', 'shadow', 'since', 'until', 'limit'] as const;

/**
 * The query a URL asks for; every problem (an unknown or repeated
 * parameter, a bad time) at once, as `invalid_input`.
 *
 * @example
 * auditQueryFrom(new URLSearchParams('crew=desk&since=7d')) // { crew: 'desk', since: <now - 7 days> }
 */
export function auditQueryFrom(params: URLSearchParams, now: number = Date.now()): AuditQuery {
  const problems: Problem[] = [];
  const q: AuditQuery = {};
  const seen = new Set<string>();
  for (const [key, value] of params) {
    if (!(PARAMS as readonly string[]).includes(key)) {
      problems.push({ path: `/${key}`, message: `unknown query parameter "${key}" (known: ${PARAMS.join(', ')})` });
      continue;
    }
    if (seen.has(key)) {
      problems.push({ path: `/${key}`, message: `${key} is given twice` });
      continue;
    }
    seen.add(key);
    switch (key) {
      case 'since':
      case 'until': {
        const t = parseAuditTime(value, now);
        if (t === undefined) problems.push({ path: `/${key}`, message: `${key} must be epoch milliseconds, an ISO-8601 time or a duration such as 24h or 7d` });
        else q[key] = t;
        break;
      }
      case 'shadow':
        if (value !== 'true' && value !== 'false') problems.push({ path: '/shadow', message: 'shadow must be true or false' });
        else q.shadow = value === 'true';
        break;
      case 'limit':
        q.limit = /^\d{1,7}$/.test(value) ? Number(value) : Number.NaN;
        break;
      case 'type':
        q.type = value.split(',').filter(Boolean) as AuditQuery['type'];
        break;
      default:
        q[key as 'crew' | 'agent' | 'tool' | 'check' | 'code'] = value;
    }
  }
  if (problems.length > 0) throw new PlangateError(ErrorCode.InvalidInput, `invalid query: ${problems.map((p) => p.message).join('; ')}`, problems);
  checkAuditQuery(q);
  return q;
}

export function registerAuditRoutes(router: Router, deps: HttpDeps): void {
  router.add({
    method: 'GET',
    path: '/v1/audit',
    roles: REVIEW_ROLES,
    body: 'none',
    async handle(ctx) {
      const query = auditQueryFrom(ctx.query);
      if (!deps.audit) throw new HttpError(HttpCode.AuditUnreadable, 'the audit sink in use cannot be read back');
      const limit = checkAuditQuery(query).limit;
      if (ctx.principal?.role !== 'reviewer') {
        const events = await deps.audit.query(query);
        return { body: { events, limit, limitReached: events.length === limit } };
      }
      const asked = query.type === undefined ? [...REVIEWER_TYPES] : ([] as AuditEventType[]).concat(query.type).filter((t) => REVIEWER_TYPES.includes(t));
      if (asked.length === 0) return { body: { events: [], limit, limitReached: false } };
      const events = await deps.audit.query({ ...query, type: asked });
      return { body: { events: events.map(withoutHostPaths), limit, limitReached: events.length === limit } };
    },
  });
}
