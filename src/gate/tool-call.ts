/**
 * One tool call, whatever brings it — the MCP gateway, `POST /mcp/call`, an
 * agent host's pre-tool hook (over stdin or HTTP): plangate's own tool is
 * answered by plangate; any other is decided, then refused (the instruction
 * and its structured fields), answered as the seat's reviewer channel, or
 * forwarded through the adapter's executor. Every call is counted here, once,
 * by how it ended. The adapter only translates: it says how its protocol
 * names plangate's own tools, where the tool goes, and how each outcome is
 * written (the ports).
 *
 * @example
 * const result = await runToolCall(deps, { seat: '0xWORKER', tool: 'write_file', args }, {
 *   refuse: (r) => ({ isError: true, text: r.text }),
 *   own: (tool) => answerOwn(tool),
 *   forward: () => upstream.call('write_file', args),
 * });
 */
import { DEFAULT_REVIEWER_CHANNEL, SAY_TOOL, type Call, type ToolHints } from '../core/call.js';
import { QuotaExceededError, refusalCode } from '../core/errors.js';
import { withoutPolicy } from '../core/failopen.js';
import type { CountedQuotaKind, Decision, McpToolFact } from '../core/types.js';
import { argsForPolicy } from './args.js';
import { answeredAtClient, type AskClient, type ClientDesk } from './client-approval.js';
import type { DecideOptions, Gate } from './gate.js';
import type { QuotaCheck } from './quotas.js';

/** How a tool call ended, for the per-tool counters. `busy` is counted by an adapter that turns a call away before it reaches the pipeline. */
export type CallOutcome = 'allowed' | 'refused' | 'fail_open' | 'upstream_down' | 'own' | 'busy';

/** plangate's own tools: the plan tool (`plangate_say`) and the seat's reviewer channel. */
export type OwnTool = 'say' | 'channel';

/** A refused call as every adapter tells it: the instruction for the model and the fields for machines. */
export interface Refusal {
  /** The instruction: what is gated and why, and what to do. */
  text: string;
  /** `tool_pin`, `plan_required`, `planning_hold`, `read_guard` or `quota`. */
  check: string;
  /** `plan_required:<tool>:<none|stale>`, `planning_hold:<tool>`, `read_guard:<tool>`. */
  code: string;
  /** `none`, `stale`, `held`, `whole_file_too_large`, … */
  reason: string;
  decision: Decision;
}

/** What the pipeline needs. */
export interface ToolCallDeps {
  gate: Pick<Gate, 'decide'>;
  /**
   * The seat's reviewer channel as the rules in force name it. Without it,
   * no call is taken for the channel by its name alone (only when the policy
   * says so, `decision.channelCall`).
   */
  channelFor?(seat: string): Promise<string>;
  /** Counts each call by its tool name and how it ended. */
  count?(tool: string, outcome: CallOutcome): void;
  /**
   * Where plangate's own tool is answered elsewhere (a hook lets the host
   * call plangate's server): the seat's quota of what the tool writes,
   * asked first, so that a seat over it is refused here, naming the quota.
   */
  quota?: QuotaCheck;
  /** The approvals desk, where the adapter can ask the person at the agent's client (ports.askClient). */
  approvals?: ClientDesk;
}

/** Where a tool that is not plangate's own goes, as the adapter knows it. */
export interface ToolTarget {
  /** The tool's hints, from the server that offers it (never from the agent). */
  annotations?: ToolHints;
  /** The directories that tool reads in, where they are not the gate's. */
  readRoots?: readonly string[];
  /** The upstream MCP tool, as the gateway knows it (see DecideOptions.mcpTool). */
  mcpTool?: McpToolFact;
  /** Told the decision, before any port runs (the gateway notes a tool refused for its pin). */
  decided?(decision: Decision): void;
}

/** A tool call as an adapter hands it over. */
export interface ToolCall {
  /** The acting seat: from the caller's credential or the hook's configuration, never a payload. */
  seat: string;
  /** The tool's name as the caller names it (what the policy classifies). */
  tool: string;
  /** The arguments, whole; the policy is shown them as gate/args.ts says. */
  args?: Record<string, unknown>;
  runId?: string;
  /** A claimed delegation chain, nearest manager first. */
  delegatedBy?: string[];
  /**
   * The tool's name on plangate's own server, when the call goes there: the
   * MCP gateway's name when no upstream offers it; a hook's `mcp.tool` when
   * the host names the server the operator configured as plangate's.
   * Undefined for every other call.
   */
  ownName?: string;
  /**
   * Looks up where the tool goes (called only for a call that is not plangate's own); throws for a tool nobody offers.
   * Answers at once where it knows (no promise to wait for on the common path).
   */
  target?(): ToolTarget | Promise<ToolTarget>;
  /** Where the tool resolves a relative path, when not in the first read root (an agent host's working directory). */
  relativeTo?: string;
  /** `refuse` where the caller's credential vouches for its seat only (an agent token): an unrecorded delegation is refused. */
  unrecordedClaims?: DecideOptions['unrecordedClaims'];
}

/** How an adapter writes each outcome in its protocol. */
export interface ToolCallPorts<R> {
  refuse(refusal: Refusal): R | Promise<R>;
  /** Answers plangate's own tool (the decision, when one was made: the channel found by the policy). */
  own(tool: OwnTool, decision?: Decision): R | Promise<R>;
  /** Runs the allowed call (the executor port: an upstream, an HTTP executor, or the host itself). */
  forward(decision: Decision): R | Promise<R>;
  /** The answer when `forward` failed because what runs the tool is down; undefined lets the error through. */
  down?(error: unknown): R | undefined;
  /**
   * Asks the person at the agent's own client to answer the request a
   * refusal names, where the policy says they may (gate/client-approval.ts);
   * absent where the client cannot be asked.
   */
  askClient?: AskClient;
}

/** Why each check refuses, where the policy gives no finer reason. */
const REASONS: Record<string, string> = { tool_pin: 'tool_changed', planning_hold: 'held', read_guard: 'whole_file_too_large' };

/** The read guard's reasons by its status; another status is its own reason (`outside_roots`, `unsized`, …). */
const READ_GUARD_REASONS: Record<string, string> = { over: 'whole_file_too_large', lines_over: 'lines_too_large' };

/**
 * The refusal of a refused decision.
 *
 * @example
 * refusalOf(decision).code // 'plan_required:write_file:none'
 */
export function refusalOf(decision: Decision): Refusal {
  const check = decision.check ?? 'plan_required';
  const code = refusalCode({ ...decision, check });
  const status = decision.readGuard?.status;
  const guard = status === undefined ? undefined : READ_GUARD_REASONS[status] ?? status;
  return { text: decision.message ?? code, check, code, reason: decision.reason ?? guard ?? REASONS[check] ?? 'refused', decision };
}

/**
 * The call as the gate decides it: the arguments as the policy is shown
 * them (those left out for their size named). Throws `invalid_input` for
 * arguments the policy cannot be given.
 *
 * @example
 * callFor({ seat: '0xW', tool: 'Write', args: { file_path: 'a' } }).args // { file_path: 'a' }
 */
export function callFor(call: Pick<ToolCall, 'seat' | 'tool' | 'args' | 'runId' | 'delegatedBy'>, annotations?: ToolHints): Call {
  // Fields set one by one (no object spread per field: this runs on every call).
  const out: Call = { agent: call.seat, tool: call.tool };
  if (call.runId !== undefined) out.runId = call.runId;
  if (call.delegatedBy !== undefined) out.delegatedBy = call.delegatedBy;
  if (call.args !== undefined) {
    const shown = argsForPolicy(call.args);
    out.args = shown.args;
    if (shown.omitted.length > 0) out.omittedArgs = shown.omitted;
    // An approval is bound to the whole arguments, not the policy's view of them (the same when nothing is left out).
    if (!shown.whole) out.callArgs = call.args;
  }
  if (annotations !== undefined) out.annotations = annotations;
  return out;
}

/** The seat's reviewer channel, or the built-in one when the rules or the store cannot say. */
async function channelOrDefault(deps: ToolCallDeps, seat: string): Promise<string | undefined> {
  if (!deps.channelFor) return undefined;
  try {
    return await deps.channelFor(seat);
  } catch {
    return DEFAULT_REVIEWER_CHANNEL;
  }
}

/**
 * Runs one tool call through plangate and returns what the adapter's port
 * wrote. A refusal is a result; a malformed call throws `invalid_input`, a
 * refused claim `claim_refused`, and an adapter's own errors (an unknown
 * tool, a failing executor) pass through, uncounted.
 */
export async function runToolCall<R>(deps: ToolCallDeps, call: ToolCall, ports: ToolCallPorts<R>): Promise<R> {
  // plangate's own tools are never gated: the plan tool, and the reviewer channel where no one else offers that name.
  if (call.ownName === SAY_TOOL) return runOwn(deps, call, ports, 'say', 'messages');
  if (call.ownName !== undefined && deps.channelFor && call.ownName === await deps.channelFor(call.seat)) return runOwn(deps, call, ports, 'channel', 'holdPlans');
  const found = call.target ? call.target() : {};
  const target = found instanceof Promise ? await found : found;
  const options: DecideOptions = {};
  if (target.readRoots) options.readRoots = target.readRoots;
  if (target.mcpTool) options.mcpTool = target.mcpTool;
  if (call.relativeTo !== undefined) options.relativeTo = call.relativeTo;
  if (call.unrecordedClaims !== undefined) options.unrecordedClaims = call.unrecordedClaims;
  let decision = await deps.gate.decide(callFor(call, target.annotations), options);
  target.decided?.(decision);
  // Answered by the person at the client: the same call is decided once more (a grant is used by it).
  if (!decision.allowed && deps.approvals && ports.askClient && await answeredAtClient(deps.approvals, call, decision, ports.askClient)) {
    decision = await deps.gate.decide(callFor(call, target.annotations), options);
    target.decided?.(decision);
  }
  if (!decision.allowed) {
    countCall(deps, call, 'refused');
    return ports.refuse(refusalOf(decision));
  }
  // The seat's reviewer channel is plangate's, never forwarded. A decision made without the
  // policy (failing open) does not say so: then the channel is looked up by name.
  if (decision.channelCall === true || (decision.failOpen !== undefined && call.tool === await channelOrDefault(deps, call.seat))) {
    countCall(deps, call, 'own');
    return ports.own('channel', decision);
  }
  let result: R;
  try {
    result = await ports.forward(decision);
  } catch (error) {
    const answer = ports.down?.(error);
    if (answer === undefined) throw error;
    countCall(deps, call, 'upstream_down');
    return answer;
  }
  countCall(deps, call, decision.failOpen ? 'fail_open' : 'allowed');
  return result;
}

/** Counts the call by its tool name and how it ended (module-level, so that a call makes no closure for it). */
function countCall(deps: ToolCallDeps, call: ToolCall, outcome: CallOutcome): void {
  deps.count?.(call.tool, outcome);
}

/** plangate's own tool: what it writes is bounded by the seat's quotas, where the door asks here. */
async function runOwn<R>(deps: ToolCallDeps, call: ToolCall, ports: ToolCallPorts<R>, tool: OwnTool, kind: CountedQuotaKind): Promise<R> {
  const over = await overQuota(deps, call, kind);
  countCall(deps, call, over ? 'refused' : 'own');
  return over ? ports.refuse(over) : ports.own(tool);
}

/** The refusal of an own tool's call whose write is over the seat's quota, or undefined; a failed count throws (fail closed). */
async function overQuota(deps: ToolCallDeps, call: ToolCall, kind: CountedQuotaKind): Promise<Refusal | undefined> {
  if (!deps.quota) return undefined;
  try {
    await deps.quota(call.seat, kind);
    return undefined;
  } catch (error) {
    if (!(error instanceof QuotaExceededError)) throw error;
    const decision: Decision = {
      ...withoutPolicy({ agent: call.seat, tool: call.tool }), class: 'say', allowed: false, code: error.quota, message: error.message,
    };
    return { text: error.message, check: 'quota', code: error.quota, reason: error.quota.split(':')[2] ?? 'quota', decision };
  }
}
