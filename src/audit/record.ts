/**
 * The one place that decides which fields of an event are written. Sinks
 * store this projection, never the object they were handed, so a stray
 * property (a message body spread in by mistake) cannot reach the log.
 */
import { ErrorCode, PlangateError } from '../core/errors.js';
import { toPlanningRecord, traceOf } from './planning.js';
import { toTrustRecord } from './trust.js';
import { toApprovalRecord } from './approvals.js';
import { toStoreRecord } from './store.js';
import type { AuditEvent } from './port.js';

/**
 * A fresh copy of `event` holding only the fields its type declares.
 *
 * @example
 * toAuditRecord({ ...event, body: 'secret' } as AuditEvent) // no `body` key
 */
export function toAuditRecord(event: AuditEvent): AuditEvent {
  if (typeof event !== 'object' || event === null) {
    throw new PlangateError(ErrorCode.InvalidInput, 'audit event must be an object');
  }
  switch (event.type) {
    case 'PlanRequiredBlocked': {
      const { scope, id, source } = event.rule;
      return {
        type: event.type,
        time: event.time,
        agent: event.agent,
        crew: event.crew,
        tool: event.tool,
        toolClass: event.toolClass,
        mode: event.mode,
        code: event.code,
        runId: event.runId,
        rule: { scope, ...(id !== undefined ? { id } : {}), ...(source !== undefined ? { source } : {}) },
        ...(event.shadow === true ? { shadow: true as const } : {}),
        ...traceOf(event),
      };
    }
    case 'ClaimRefused':
      return toTrustRecord(event);
    case 'ApprovalRequested':
    case 'ApprovalGranted':
    case 'ApprovalDenied':
    case 'ApprovalUsed':
    case 'ApprovalExpired':
      return toApprovalRecord(event);
    case 'StoreFailureRefused':
      return toStoreRecord(event);
    default:
      // The planning gate's and the read guard's events; it throws on an unknown type.
      return toPlanningRecord(event);
  }
}
