/**
 * `tools/call`, decided by the gate before anything goes upstream: a refused
 * call is a tool result (`isError`, the instruction as text), and the
 * upstream never sees it. What a decision through the gateway takes (the
 * call's run, its arguments as the policy is shown them, the upstream's
 * read roots) and how a request is forwarded, for the other entry points
 * too (reads.ts).
 */
import {
  ErrorCode as RpcCode,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { forwardedMeta } from '../../core/call.js';
import { ErrorCode, PlangateError } from '../../core/errors.js';
import type { Call, Decision, McpToolFact, ToolHints } from '../../core/types.js';
import type { Gate } from '../../gate/gate.js';
import { argsForPolicy } from '../../gate/args.js';
import type { ClientDesk } from '../../gate/client-approval.js';
import { runToolCall, type CallOutcome, type ToolCall, type ToolTarget } from '../../gate/tool-call.js';
import { clientAsker } from './elicit.js';
import { RUN_META_KEY, SAY_TOOL } from './names.js';
import { say, submitPlan, type OwnToolDeps } from './own-tools.js';
import { toolDigest } from './pins.js';
import { errorResult } from './results.js';
import type { Extra, GatewaySession, Route } from './session.js';
import { UpstreamDownError, type UpstreamLink } from './upstream.js';

export type { CallOutcome } from '../../gate/tool-call.js';

/** What the gated entry points need. */
export interface CallDeps extends OwnToolDeps {
  gate: Pick<Gate, 'decide' | 'sayAsAgent' | 'holds'>;
  /** The seat's reviewer channel, as the rules in force name it. */
  channelFor(agent: string): Promise<string>;
  /** Counts each call by the tool's exposed name. */
  count?(tool: string, outcome: CallOutcome): void;
  /** How long a forwarded request may go without an answer or progress (ms). */
  timeoutMs?: number;
  /** The read roots of an upstream's tools, by upstream name, where it has its own (see GatewayOptions.readRoots). */
  rootsOf?(upstream: string): readonly string[] | undefined;
  /** Told, after each decision of an upstream tool, whether its pin refused it (for /health). */
  pinState?(tool: string, upstream: string, upstreamTool: string, changed: boolean): void;
  /** The most requests one session may have in flight at once (default MAX_CALLS_IN_FLIGHT, in guards.ts). */
  maxCallsInFlight?: number;
  /** The approvals desk: where a rule allows it, the person at the client answers a refused call's request (elicit.ts). */
  approvals?: ClientDesk;
  /** How long the person at the client has to answer the form (default CLIENT_APPROVAL_TIMEOUT_MS, in elicit.ts). */
  clientApprovalTimeoutMs?: number;
}

/** Default time a forwarded request may go without an answer or progress. */
export const DEFAULT_TIMEOUT_MS = 300_000;

/** A request's `_meta`, as a client sent it. */
export type Meta = Record<string, unknown> | undefined;

/**
 * The run a call belongs to: the one bound to the session, else the one the
 * client names in `_meta["plangate/runId"]`. Naming another run than the
 * bound one is refused.
 */
export function runOf(session: GatewaySession, meta: Meta): { runId?: string } | { mismatch: string } {
  const claimed = meta?.[RUN_META_KEY];
  if (claimed !== undefined && (typeof claimed !== 'string' || claimed === '' || claimed.length > 128)) {
    throw new McpError(RpcCode.InvalidParams, `_meta["${RUN_META_KEY}"] must be a run id: a string of 1 to 128 characters`);
  }
  const bound = session.options.runId;
  if (bound !== undefined && claimed !== undefined && claimed !== bound) {
    return { mismatch: `this session belongs to run ${bound}; a call cannot name run ${claimed}. Leave _meta["${RUN_META_KEY}"] out or name ${bound}.` };
  }
  const runId = bound ?? claimed;
  return runId !== undefined ? { runId } : {};
}

/** `_meta` as it goes upstream: without plangate's key or the client's progress token (the SDK sets its own). */
export function upstreamMeta(meta: Meta): Meta {
  return forwardedMeta(meta, ['progressToken']);
}

/** The hints of an upstream tool, as the policy reads them. */
function hintsOf(tool: Tool): ToolHints {
  const a = tool.annotations ?? {};
  const out: ToolHints = {};
  for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
    if (typeof a[key] === 'boolean') out[key] = a[key];
  }
  return out;
}

/** The arguments as the policy is shown them, naming those left out for their size. */
export function shown(args: Record<string, unknown>): Pick<Call, 'args' | 'omittedArgs'> {
  let policy;
  try {
    policy = argsForPolicy(args);
  } catch (error) {
    if (error instanceof PlangateError) throw new McpError(RpcCode.InvalidParams, error.message);
    throw error;
  }
  return { args: policy.args, ...(policy.omitted.length ? { omittedArgs: policy.omitted } : {}) };
}

/** Decides a call going to `link` (none for plangate's own tools), in that upstream's read roots when it has its own. */
export async function decide(deps: CallDeps, call: Call, link: UpstreamLink | undefined, mcpTool?: McpToolFact): Promise<Decision> {
  const readRoots = link ? deps.rootsOf?.(link.spec.name) : undefined;
  try {
    return await deps.gate.decide(call, { ...(readRoots ? { readRoots } : {}), ...(mcpTool ? { mcpTool } : {}) });
  } catch (error) {
    if (error instanceof PlangateError && error.code === ErrorCode.InvalidInput) throw new McpError(RpcCode.InvalidParams, error.message);
    throw error;
  }
}

function downResult(name: string, error: UpstreamDownError): CallToolResult {
  return errorResult(`${name} is not available: ${error.message}. plangate keeps serving the other tools and reconnects by itself; retry in a moment.`, {
    check: 'upstream', code: `upstream_down:${error.upstream}`, reason: 'upstream_down',
  });
}

/**
 * `tools/call`, through the tool-call pipeline (gate/tool-call.ts): plangate's
 * own tools are answered here; an upstream tool is decided (with its
 * annotations, its upstream and definition digest for the pin and the
 * annotations' trust, and the policy's view of its arguments) and forwarded only
 * when allowed, with progress and cancellation relayed.
 */
export async function callTool(session: GatewaySession, deps: CallDeps, params: CallToolRequest['params'], extra: Extra): Promise<CallToolResult> {
  const args = (params.arguments ?? {}) as Record<string, unknown>;
  const run = runOf(session, params._meta as Meta);
  if ('mismatch' in run) return errorResult(run.mismatch, { check: 'run', code: 'run_mismatch', reason: 'run_mismatch' });
  const { runId } = run;
  let route: Route | undefined;
  // Methods, not arrow functions in properties: a call makes no named closures (cheap under a loader that keeps names).
  const call: ToolCall = {
    seat: session.seat,
    tool: params.name,
    args,
    ...(runId !== undefined ? { runId } : {}),
    // plangate's own server answers the plan tool always, the reviewer channel where no upstream offers that name.
    ...(params.name === SAY_TOOL || !session.routes.get(params.name) ? { ownName: params.name } : {}),
    target() {
      route = session.routes.get(params.name);
      // Known, and its upstream not announcing a change of its tools: answered at once.
      if (route && !route.link.toolsChanging) return targetOf(deps, params.name, route);
      return (async () => {
        route ??= await session.route(params.name);
        if (route?.link.toolsChanging) {
          // The upstream announced a change of its tools: the call is decided on the new list.
          await route.link.toolsSettled();
          route = session.routes.get(params.name);
        }
        if (!route) throw new McpError(RpcCode.InvalidParams, `Tool ${params.name} not found`);
        return targetOf(deps, params.name, route);
      })();
    },
  };
  // Where the client declared form-mode elicitation, the person at it may be asked to approve a refused call.
  const ask = clientAsker(session, extra, params.task, deps.clientApprovalTimeoutMs);
  try {
    return await runToolCall<CallToolResult>(deps, call, {
      refuse(r) {
        return errorResult(r.text, { check: r.check, code: r.code, reason: r.reason });
      },
      own(tool) {
        return tool === 'say' ? say(deps, session.seat, args, runId) : submitPlan(deps, session.seat, args, runId);
      },
      async forward() {
        const meta = upstreamMeta(params._meta as Meta);
        // A task-augmented call asks the upstream for a task (tasks.ts makes it the session's).
        const request = { method: 'tools/call', params: { name: route!.tool.name, arguments: args, ...(meta ? { _meta: meta } : {}), ...(params.task ? { task: params.task } : {}) } };
        return await forward(session, route!.link, request, extra, deps) as CallToolResult;
      },
      down(error) {
        return error instanceof UpstreamDownError ? downResult(params.name, error) : undefined;
      },
      ...(ask ? { askClient: ask } : {}),
    });
  } catch (error) {
    throw invalidParams(error);
  }
}

/** Where an upstream tool goes, for the pipeline: its hints, read roots and the gateway's fact of it (its upstream, its definition now). */
function targetOf(deps: CallDeps, name: string, route: Route): ToolTarget {
  const readRoots = deps.rootsOf?.(route.link.spec.name);
  const { link, tool } = route;
  return {
    annotations: hintsOf(tool),
    ...(readRoots ? { readRoots } : {}),
    // The gateway's own fact: which upstream offers the tool, and its definition now (its pin, and the annotations' trust).
    mcpTool: { upstream: link.spec.name, tool: tool.name, digest: toolDigest(tool) },
    ...(deps.pinState ? {
      decided(decision: Decision) {
        deps.pinState?.(name, link.spec.name, tool.name, decision.check === 'tool_pin');
      },
    } : {}),
  };
}

/** A malformed call (plangate's `invalid_input`) as the JSON-RPC error for bad params; any other error as it is. */
function invalidParams(error: unknown): unknown {
  return error instanceof PlangateError && error.code === ErrorCode.InvalidInput ? new McpError(RpcCode.InvalidParams, error.message) : error;
}

/**
 * Sends a request upstream as part of the client's request: progress comes
 * back, a cancellation goes on. Each progress notification is relayed in
 * turn, and the answer waits until those received before it are sent: a
 * client is told a request's progress before its result (after the result
 * the client no longer knows the token, and a resumed stream ends at it).
 */
export async function forward(session: GatewaySession, link: UpstreamLink, request: { method: string; params: Record<string, unknown> }, extra: Extra, deps: CallDeps) {
  const token = extra._meta?.progressToken;
  const options = { signal: extra.signal, timeout: deps.timeoutMs ?? DEFAULT_TIMEOUT_MS, resetTimeoutOnProgress: true };
  // Without a progress token there is nothing to relay (and no closures to make for it).
  if (token === undefined) return await session.within(link, extra, link.request.bind(link, request, options));
  let relayed: Promise<void> = Promise.resolve();
  function relay(p: Record<string, unknown>): void {
    relayed = relayed.then(() => extra.sendNotification({ method: 'notifications/progress', params: { ...p, progressToken: token } as never })).catch(() => {});
  }
  try {
    return await session.within(link, extra, () => link.request(request, { ...options, onprogress: relay }));
  } finally {
    await relayed;
  }
}
