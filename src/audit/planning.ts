/**
 * Audit events of the planning gate and the read guard: each hold's life
 * (placed, plan submitted, pushed back, released, unblocked) and every call
 * refused by a hold or by the read guard. Never a message body: a plan or a
 * push-back is named by its message id.
 */
import { ErrorCode, PlangateError } from '../core/errors.js';
import type { HoldKind, ToolClass } from '../core/types.js';

/** A hold was placed on an agent. */
export interface HoldPlaced {
  type: 'HoldPlaced';
  /** ISO-8601 (UTC). */
  time: string;
  agent: string;
  holdId: string;
  kind: HoldKind;
  /** The task the hold is for, as the operator or reviewer named it. */
  task: string | null;
  by: string;
}

/** The held agent sent a plan through the reviewer channel. */
export interface HoldPlanSubmitted {
  type: 'HoldPlanSubmitted';
  time: string;
  agent: string;
  holdId: string;
  messageId: string;
  /** Plans sent on this hold so far, this one included. */
  plans: number;
}

/** The reviewer pushed back on the plan; the hold stays. */
export interface HoldPushedBack {
  type: 'HoldPushedBack';
  time: string;
  agent: string;
  holdId: string;
  messageId: string;
  by: string;
  pushBacks: number;
}

/** The reviewer released the hold: the direction is approved (not the work). */
export interface HoldReleased {
  type: 'HoldReleased';
  time: string;
  agent: string;
  holdId: string;
  by: string;
  /** The plan the release approved: the newest on the hold when it was released (null: none was sent). */
  planId: string | null;
  plans: number;
  pushBacks: number;
}

/** An operator cleared the hold (unblock). */
export interface HoldUnblocked {
  type: 'HoldUnblocked';
  time: string;
  agent: string;
  holdId: string;
  by: string;
}

/** A call refused because its agent is held: one event per refused attempt. */
export interface PlanningHoldBlocked {
  type: 'PlanningHoldBlocked';
  time: string;
  agent: string;
  crew: string | null;
  tool: string;
  toolClass: ToolClass;
  /** `planning_hold:<tool>`. */
  code: string;
  runId: string | null;
  holdId: string;
  holdKind: HoldKind;
  /** The OpenTelemetry trace the decision was recorded in, when tracing is on and the call was sampled. */
  traceId?: string;
}

/** A read over the ceiling (or one the guard cannot vouch for), refused by the read guard: one event per refused attempt. */
export interface ReadGuardBlocked {
  type: 'ReadGuardBlocked';
  time: string;
  agent: string;
  crew: string | null;
  tool: string;
  /** `read_guard:<tool>`. */
  code: string;
  runId: string | null;
  /**
   * Why: `over` the ceiling, `lines_over` (the lines asked for take more),
   * `lines_unmeasured` (they could not be measured), `outside_roots`,
   * `unsized` (a FIFO, a device, a socket or a file of /proc),
   * `bad_path` (not one plain path) or `withheld` (too large for the policy).
   */
  reason: string;
  /** The path that decided it as the call gave it (null when there is no plain path), and as the host resolved it. */
  path: string | null;
  resolved: string | null;
  /** The file's size, when the host looked (inside the read roots only). */
  sizeBytes: number | null;
  maxBytes: number;
  /** Every path of a tool that reads several files, with what the host found. */
  files?: Array<{ path: string; kind: string; resolved: string | null; sizeBytes: number | null }>;
  /** For `lines_over` and `lines_unmeasured`: the lines asked for, with the bytes measured (null: not measured). */
  lines?: Array<{ path: string; from: 'head' | 'tail'; count: number; skip?: number; bytes: number | null }>;
  /** The OpenTelemetry trace the decision was recorded in, when tracing is on and the call was sampled. */
  traceId?: string;
}

/** A call of a pinned MCP tool whose definition changed, refused until the operator pins it again: one event per refused attempt. */
export interface ToolChangedBlocked {
  type: 'ToolChangedBlocked';
  time: string;
  agent: string;
  crew: string | null;
  /** The tool as the client named it. */
  tool: string;
  /** `tool_changed:<tool>`. */
  code: string;
  runId: string | null;
  /** The upstream that offers it, and the tool's name there. */
  upstream: string;
  upstreamTool: string;
  /**
   * The digests (`sha256:…`, see adapters/mcp/pins.ts) of the definition the
   * operator pinned and of the one the upstream lists now. Digests only: a
   * definition's text is the upstream's and may carry anything.
   */
  pinnedDigest: string | null;
  seenDigest: string | null;
  /** The OpenTelemetry trace the decision was recorded in, when tracing is on and the call was sampled. */
  traceId?: string;
}

export type PlanningAuditEvent =
  | HoldPlaced
  | HoldPlanSubmitted
  | HoldPushedBack
  | HoldReleased
  | HoldUnblocked
  | PlanningHoldBlocked
  | ReadGuardBlocked
  | ToolChangedBlocked;

/**
 * A fresh copy of a planning event holding only the fields its type declares.
 *
 * @example
 * toPlanningRecord({ ...event, body: 'secret' } as PlanningAuditEvent) // no `body` key
 */
export function toPlanningRecord(event: PlanningAuditEvent): PlanningAuditEvent {
  const { time, agent } = event;
  switch (event.type) {
    case 'HoldPlaced':
      return { type: event.type, time, agent, holdId: event.holdId, kind: event.kind, task: event.task, by: event.by };
    case 'HoldPlanSubmitted':
      return { type: event.type, time, agent, holdId: event.holdId, messageId: event.messageId, plans: event.plans };
    case 'HoldPushedBack':
      return { type: event.type, time, agent, holdId: event.holdId, messageId: event.messageId, by: event.by, pushBacks: event.pushBacks };
    case 'HoldReleased':
      return { type: event.type, time, agent, holdId: event.holdId, by: event.by, planId: event.planId ?? null, plans: event.plans, pushBacks: event.pushBacks };
    case 'HoldUnblocked':
      return { type: event.type, time, agent, holdId: event.holdId, by: event.by };
    case 'PlanningHoldBlocked':
      return {
        type: event.type, time, agent, crew: event.crew, tool: event.tool, toolClass: event.toolClass,
        code: event.code, runId: event.runId, holdId: event.holdId, holdKind: event.holdKind, ...traceOf(event),
      };
    case 'ReadGuardBlocked':
      return {
        type: event.type, time, agent, crew: event.crew, tool: event.tool, code: event.code, runId: event.runId,
        reason: event.reason, path: event.path, resolved: event.resolved, sizeBytes: event.sizeBytes, maxBytes: event.maxBytes,
        ...(event.files ? { files: event.files.map((f) => ({ path: f.path, kind: f.kind, resolved: f.resolved, sizeBytes: f.sizeBytes })) } : {}),
        ...(event.lines ? { lines: event.lines.map((l) => ({ path: l.path, from: l.from, count: l.count, ...(l.skip !== undefined ? { skip: l.skip } : {}), bytes: l.bytes })) } : {}),
        ...traceOf(event),
      };
    case 'ToolChangedBlocked':
      return {
        type: event.type, time, agent, crew: event.crew, tool: event.tool, code: event.code, runId: event.runId,
        upstream: event.upstream, upstreamTool: event.upstreamTool,
        pinnedDigest: digestOf(event.pinnedDigest), seenDigest: digestOf(event.seenDigest), ...traceOf(event),
      };
    default: {
      const unknownType: unknown = (event as { type?: unknown }).type;
      throw new PlangateError(ErrorCode.InvalidInput, `unknown audit event type: ${JSON.stringify(unknownType)}`);
    }
  }
}

/** A tool definition's digest, as plangate writes it. */
const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** A digest kept only when it is one (an event written before digests were recorded has none). */
function digestOf(value: unknown): string | null {
  return typeof value === 'string' && DIGEST.test(value) ? value : null;
}

/** A W3C trace id (32 lowercase hex digits, not all zero). */
const TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/;

/** An event's trace id, kept only when it is one: nothing else rides along into the audit. */
export function traceOf(event: { traceId?: string }): { traceId?: string } {
  return typeof event.traceId === 'string' && TRACE_ID.test(event.traceId) ? { traceId: event.traceId } : {};
}
