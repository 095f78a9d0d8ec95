/**
 * An agent host's pre-tool hook, whatever brings the payload (`plangate
 * hook` on stdin, `POST /v1/hooks/:host`): the host's contract
 * (hosts/<host>.ts) reads the payload and writes the reply; the tool-call
 * pipeline (gate/tool-call.ts) decides. A payload that cannot be read, or
 * whose host cannot be told, is refused in a blocking shape, never allowed
 * (payload.ts reads it; options.ts has what the hook is told besides).
 */
import { PlangateError, storeErrorShown, toError } from '../../core/errors.js';
import { FAILURE_SHOWN_TO_AGENTS } from '../../core/failopen.js';
import type { Decision } from '../../core/types.js';
import { refusalOf, runToolCall, type ToolCallDeps } from '../../gate/tool-call.js';
import type { HookReply, HostContract } from './contract.js';
import { claudeCode } from './hosts/claude-code.js';
import { mcpHookConfigured } from './hosts/cursor-hooks-file.js';
import { MCP_VIA_NOTE, MCP_VIA_UNCONFIGURED, ownToolOf, type HookOptions } from './options.js';
import { readHookPayload, refusedText, unknownHostRefusal, type HookPayload } from './payload.js';

/**
 * What the hook answers when it cannot decide — a payload it cannot read,
 * or an internal failure: deny, with the reason. A payload it cannot read
 * may be any tool, a side effect or a call by a held seat; a planning hold
 * must not open because a request was garbled. (Plan-required's own
 * fail-open — rules or policy unreadable, a failing store — is decided by
 * the gate and answered as an allowed call.)
 */
export const HOOK_ON_UNDECIDABLE = 'deny' as const;

/** Why an allowed call was let through, where a granting reply says it. */
export const ALLOWED_NOTE = 'plangate: no check refuses this call';
/** Why a call of plangate's own tool was let through. */
export const OWN_TOOL_NOTE = 'plangate: its own tool, never gated';

function allowedNote(decision: Decision): string {
  return decision.failOpen ? `plangate failed open: ${FAILURE_SHOWN_TO_AGENTS[decision.failOpen.cause]}` : ALLOWED_NOTE;
}

/**
 * A contract's reply to a decision: its refusal with the instruction, or its
 * allow (with the reason it was let through where `grant`).
 *
 * @example
 * replyFor(claudeCode, decision, false).exitCode // 0
 */
export function replyFor(contract: HostContract, decision: Decision, grant: boolean, doc?: Record<string, unknown>): HookReply {
  return decision.allowed ? contract.allow(allowedNote(decision), grant, doc) : contract.refuse(refusalOf(decision).text, doc);
}

/**
 * The answer in Claude Code's shape (its stdout, as JSON) for a decision.
 *
 * @example
 * answerFor(decision, {}) // { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', … } }
 */
export function answerFor(decision: Decision, options: Pick<HookOptions, 'grant'>): Record<string, unknown> {
  return JSON.parse(replyFor(claudeCode, decision, options.grant === true).stdout) as Record<string, unknown>;
}

/**
 * Decides a payload read by {@link readHookPayload}. Never throws: a failure
 * is the contract's refusal (see {@link undecidable}), with a line for the
 * operator's log.
 *
 * @example
 * const { reply } = await decideHook({ gate: pg.gate }, payload, { agent: '0xWORKER' });
 */
export async function decideHook(deps: ToolCallDeps, payload: HookPayload, options: HookOptions): Promise<{ reply: HookReply; log?: string }> {
  const { contract, doc } = payload;
  try {
    const call = contract.read(doc);
    let log: string | undefined;
    if (call.mcpUnnamed === true && options.mcpVia !== undefined) {
      const partner = mcpHookConfigured(call.roots ?? [], options.agent);
      if (partner.found) return { reply: contract.allow(MCP_VIA_NOTE, false, doc) };
      log = `plangate hook: --mcp-via ${options.mcpVia}, but no plangate ${options.mcpVia} hook for ${options.agent} with failClosed in ${partner.looked.join(', ')}; ${call.tool} is decided here (${MCP_VIA_UNCONFIGURED})`;
    }
    const runId = options.runId ?? (options.sessionRun ? call.sessionId : undefined);
    const own = ownToolOf(call, options);
    const grant = options.grant === true;
    const reply = await runToolCall<HookReply>(deps, {
      seat: options.agent,
      tool: call.tool,
      args: call.input,
      ...(runId !== undefined ? { runId } : {}),
      // plangate's own tools, only on the server the operator named as plangate's: a plangate_say elsewhere is any tool.
      ...(own !== undefined ? { ownName: own } : {}),
      // The host's own tools resolve a relative path in its working directory; an MCP server in its own (the read roots).
      ...(call.mcp === undefined && call.mcpEndpoint === undefined && call.cwd !== undefined ? { relativeTo: call.cwd } : {}),
    }, {
      refuse: (r) => replyFor(contract, r.decision, grant, doc),
      // The host calls plangate's server, which answers the tool: the hook only lets it through.
      own: () => contract.allow(OWN_TOOL_NOTE, grant, doc),
      // The host runs the tool itself.
      forward: (decision) => replyFor(contract, decision, grant, doc),
    });
    return { reply, ...(log !== undefined ? { log } : {}) };
  } catch (error) {
    return undecidable(error, contract, doc);
  }
}

/**
 * The reply when a call cannot be decided (see {@link HOOK_ON_UNDECIDABLE}):
 * a malformed payload, a plangate that cannot be opened (its store, its
 * audit), an internal failure. The agent is told a store error in its
 * code's words; the error's own message goes in `log`, for the operator.
 *
 * @example
 * const { reply, log } = undecidable(new Error('the store cannot be opened'), claudeCode);
 */
export function undecidable(error: unknown, contract?: HostContract, doc?: Record<string, unknown>): { reply: HookReply; log?: string } {
  const e = toError(error);
  const shown = storeErrorShown(e);
  const message = e instanceof PlangateError ? shown ?? e.message : 'internal error';
  const reply = HOOK_ON_UNDECIDABLE !== 'deny' && contract
    ? contract.allow(`plangate could not decide this call: ${message}`, false, doc)
    : contract ? contract.refuse(refusedText(message), doc) : unknownHostRefusal(message);
  const log = !(e instanceof PlangateError) ? `plangate hook: ${e.stack ?? e.message}` : shown !== undefined ? `plangate hook: ${e.code}: ${e.message}` : undefined;
  return { reply, ...(log !== undefined ? { log } : {}) };
}

/**
 * Reads and decides one payload: the whole reply. Never throws.
 *
 * @example
 * const reply = await hookReply({ gate: pg.gate }, stdin, { agent: '0xWORKER', format: 'claude-code' });
 */
export async function hookReply(deps: ToolCallDeps, text: string, options: HookOptions): Promise<{ reply: HookReply; log?: string }> {
  const payload = readHookPayload(text, options.format);
  return 'exitCode' in payload ? { reply: payload } : decideHook(deps, payload, options);
}

/**
 * Decides one payload and returns the text for stdout (the reply's exit
 * code and stderr are left out: for a caller that embeds the hook in a host
 * answering in Claude Code's shape). Never throws.
 *
 * @example
 * process.stdout.write(await runHook(pg.gate, await readStdin(), { agent: '0xWORKER' }));
 */
export async function runHook(gate: ToolCallDeps['gate'], text: string, options: HookOptions): Promise<string> {
  return (await hookReply({ gate }, text, options)).reply.stdout;
}
