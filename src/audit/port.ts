/**
 * The audit port: what the gate records, and where it goes. Audit events
 * say who tried what under which rule; they never carry a message body.
 */
import type { Mode, ScopeKind, ToolClass } from '../core/types.js';
import type { PlanningAuditEvent } from './planning.js';
import type { ClaimRefused } from './trust.js';
import type { ApprovalAuditEvent } from './approvals.js';

export type { ApprovalAuditEvent, ApprovalRequested, ApprovalGranted, ApprovalDenied, ApprovalUsed, ApprovalExpired } from './approvals.js';
import type { StoreFailureRefused } from './store.js';

export type { ClaimRefused, ClaimKind } from './trust.js';
export type { StoreFailureRefused } from './store.js';

export type {
  HoldPlaced,
  HoldPlanSubmitted,
  HoldPushedBack,
  HoldReleased,
  HoldUnblocked,
  PlanningAuditEvent,
  PlanningHoldBlocked,
  ReadGuardBlocked,
  ToolChangedBlocked,
} from './planning.js';

/**
 * A call refused by plan-required: one event per refused attempt.
 *
 * @example
 * const event: PlanRequiredBlocked = {
 *   type: 'PlanRequiredBlocked', time: '2026-11-29T12:00:00.000Z',
 *   agent: '0xWORKER', crew: 'desk', tool: 'github.merge_pull_request', toolClass: 'effect',
 *   mode: 'side_effects', code: 'plan_required:github.merge_pull_request:none', runId: null,
 *   rule: { scope: 'crew', id: 'desk', source: 'rules/desk.yaml:3:5' },
 * };
 */
export interface PlanRequiredBlocked {
  type: 'PlanRequiredBlocked';
  /** When the call was decided, ISO-8601 (UTC). */
  time: string;
  /** The acting agent. */
  agent: string;
  /** The agent's crew, or null when the org does not know the agent. */
  crew: string | null;
  tool: string;
  toolClass: ToolClass;
  /** The mode in force for the agent. */
  mode: Mode;
  /** `plan_required:<tool>:<none|stale>`. */
  code: string;
  runId: string | null;
  /** The rule the mode came from. */
  rule: { scope: ScopeKind | 'default'; id?: string; source?: string };
  /**
   * Shadow mode: the rule in force does not enforce, so the call went
   * through; this records what would have been refused. Absent for a real refusal.
   */
  shadow?: true;
  /** The OpenTelemetry trace the decision was recorded in, when tracing is on and the call was sampled. */
  traceId?: string;
}

/** Every audit event; discriminated by `type`. More event types join this union later. */
export type AuditEvent = PlanRequiredBlocked | PlanningAuditEvent | ClaimRefused | ApprovalAuditEvent | StoreFailureRefused;

/** The `type` of every audit event. */
export type AuditEventType = AuditEvent['type'];

/**
 * Where audit events go. `record` resolves once the event is stored as
 * durably as the sink promises; a failure rejects (or throws) and the gate
 * logs it without changing the decision.
 */
export interface AuditSink {
  record(event: AuditEvent): Promise<void> | void;
  /** Flushes and releases the sink; records after close fail. */
  close?(): Promise<void>;
  /** Opens the sink's file or connection afresh (log rotation, SIGHUP); optional. */
  reopen?(): Promise<void>;
  /** Whether the sink writes, for the status (`/health`, metrics); optional. */
  state?(): AuditSinkState;
}

/** Whether an audit sink writes, and what went wrong when it did not. */
export interface AuditSinkState {
  ok: boolean;
  /** The failure, while failed. */
  error?: string;
  /** When it failed (ISO-8601), while failed. */
  since?: string;
  /** Failures since start. */
  failures: number;
  /** Times it was opened afresh (after a failure, or on demand). */
  reopens: number;
}

/** Which audit events to read back: every filter is optional; newest first. */
export interface AuditQuery {
  type?: AuditEventType | AuditEventType[];
  agent?: string;
  crew?: string;
  tool?: string;
  /** `read_guard`, `planning_hold` or `plan_required`. */
  check?: string;
  code?: string;
  /** Only shadow-mode would-be refusals (true) or only real ones (false). */
  shadow?: boolean;
  /** ISO-8601 or epoch ms bounds on `time`, inclusive. */
  since?: number;
  until?: number;
  /** At most this many events (default 100, at most 1000). */
  limit?: number;
}

/** A sink whose events can be read back (the JSONL file, memory, a PostgreSQL table). */
export interface AuditReader {
  query(query: AuditQuery): Promise<AuditEvent[]>;
}
