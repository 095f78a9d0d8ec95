/**
 * The body of a refused call, the same from `POST /mcp/call` and from the
 * embedding middleware: 409, the refusal code and the instruction. Every
 * refusal kind (plan-required, planning hold, read guard) is a 409: the
 * caller may act, it is missing a step.
 */
import type { Check, Decision, Failure, Mode, RunStatus, ScopeKind, ToolClass } from '../../core/types.js';
import { refusalCode } from '../../core/errors.js';
import { failureForAgents } from '../../core/failopen.js';
import { runForAgents } from './disclosure.js';

/** HTTP status of a refused call: the caller may act, it is missing a step. */
export const REFUSED_STATUS = 409;

export interface RefusalBody {
  allowed: false;
  /** The check that refused: `plan_required`, `planning_hold` or `read_guard`. */
  check: Check;
  /** `plan_required:<tool>:<none|stale>`, `planning_hold:<tool>`, `read_guard:<tool>`. */
  code: string;
  /** plan-required only: `none` or `stale`. */
  reason?: string;
  /** What is gated and why, who has not planned, what to do. */
  message: string;
  tool: string;
  agent: string;
  class: ToolClass;
  mode: Mode;
  /** The plan-required rule the mode comes from. */
  rule: { scope: ScopeKind | 'default'; id?: string; source?: string };
  /** When the call names a run: what the record says of it (only an `open` run lets an old tagged plan count). */
  run?: { id: string; status: RunStatus };
  /** A held agent refused while the policy or the store failed: what failed, told by its cause only (see core/failopen.ts). */
  failClosed?: Failure;
  /** The human gate: the request a person must approve, and why none counts yet. */
  approval?: { request: string; status: string };
}

/**
 * The 409 body of a refused decision.
 *
 * @example
 * if (!decision.allowed) res.writeHead(REFUSED_STATUS, json).end(JSON.stringify(refusalBody(decision)));
 */
export function refusalBody(decision: Decision): RefusalBody {
  const mode = decision.settings.mode;
  const check = decision.check ?? 'plan_required';
  return {
    allowed: false,
    check,
    code: refusalCode({ ...decision, check }),
    ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
    message: decision.message ?? 'plan required',
    tool: decision.tool,
    agent: decision.agent,
    class: decision.class,
    mode: mode.value,
    rule: {
      scope: mode.scope,
      ...(mode.id !== undefined ? { id: mode.id } : {}),
      ...(mode.source !== undefined ? { source: mode.source } : {}),
    },
    ...(decision.run ? { run: runForAgents(decision.run) } : {}),
    ...(decision.failClosed ? { failClosed: failureForAgents(decision.failClosed) } : {}),
    ...(check === 'approval' && decision.approval ? { approval: { request: decision.approval.request, status: decision.approval.status } } : {}),
  };
}
