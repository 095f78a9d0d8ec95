/** The audit layer: the port and its sinks. */
export type {
  AuditEvent,
  AuditEventType,
  AuditSink,
  PlanRequiredBlocked,
  HoldPlaced,
  HoldPlanSubmitted,
  HoldPushedBack,
  HoldReleased,
  HoldUnblocked,
  PlanningAuditEvent,
  PlanningHoldBlocked,
  ReadGuardBlocked,
} from './port.js';
export { toAuditRecord } from './record.js';
export { createMemoryAuditSink, type MemoryAuditSink } from './memory.js';
export { createJsonlAuditSink, type JsonlAuditSink, type JsonlAuditSinkOptions } from './jsonl.js';
