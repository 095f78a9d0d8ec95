/**
 * An agent host's pre-tool hook, whatever brings the payload (`plangate
 * hook` on stdin, `POST /v1/hooks/:host`): the host's contract
 * (hosts/<host>.ts) reads the payload and writes the reply; the tool-call
 * pipeline (gate/tool-call.ts) decides. A payload that cannot be read, or
 * whose host cannot be told, is refused in a blocking shape, never allowed.
 */
import { ErrorCode, PlangateError, storeErrorShown, toError } from '../../core/errors.js';
import { FAILURE_SHOWN_TO_AGENTS } from '../../core/failopen.js';
import { checkJson } from '../../core/json.js';
import type { Decision } from '../../core/types.js';
import { refusalOf, runToolCall, type ToolCallDeps } from '../../gate/tool-call.js';
import { HOST_NAMES, type HookCall, type HookReply, type HostContract } from './contract.js';
import { claudeCode, claudeDeny } from './hosts/claude-code.js';
import { mcpHookConfigured } from './hosts/cursor-hooks-file.js';
import { hostNamed, recognise } from './hosts/index.js';

/** Largest payload read, in bytes. */
export const MAX_PAYLOAD_BYTES = 1024 * 1024;

/**
 * What the hook answers when it cannot decide — a payload it cannot read,
 * or an internal failure: deny, with the reason. A payload it cannot read
 * may be any tool, a side effect or a call by a held seat; a planning hold
 * must not open because a request was garbled. (Plan-required's own
 * fail-open — rules or policy unreadable, a failing store — is decided by
 * the gate and answered as an allowed call.)
 */
export const HOOK_ON_UNDECIDABLE = 'deny' as const;

/**
 * The exit code of a refusal when the host is not known (no `--format`, a
 * payload of no one host's shape): 2, which every host that runs a command
 * hook treats as a block, with the reason on stderr; stdout carries Claude
 * Code's deny as well.
 */
export const UNKNOWN_HOST_EXIT = 2;

/** The MCP server name plangate's own tools are served under, unless the operator names another (`--plangate-server`). */
export const DEFAULT_PLANGATE_SERVER = 'plangate';

/** An MCP server name as hosts write them in their settings. */
const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface HookOptions {
  /** The seat every call acts as (the hook's configuration or the caller's token, never the payload). */
  agent: string;
  /** The host's contract name (`--format`); without it the payload's shape says, where it can. */
  format?: string;
  /** The run of the calls, if the host started one. */
  runId?: string;
  /** Use the host's session id as the run (the host, not the model, writes it). */
  sessionRun?: boolean;
  /**
   * Answer `allow` for an allowed call. Off by default: an allow would skip
   * the host's own permission prompt, and a plan approves nothing, so an
   * allowed call gets no decision and the host asks as it always does.
   */
  grant?: boolean;
  /** The MCP server name under which the host reaches plangate's own tools (default {@link DEFAULT_PLANGATE_SERVER}). */
  plangateServer?: string;
  /**
   * For a host that names an MCP server by how it reaches it (Cursor): the
   * URL, or the launch command, of plangate's server exactly as the host
   * reports it. Unset, no such call is taken for plangate's own tool.
   */
  plangateServerUrl?: string;
  plangateServerCommand?: string;
  /**
   * The host event plangate's hook also answers for MCP calls (Cursor:
   * {@link MCP_VIA_EVENT}). A call whose payload names no MCP server is then
   * left to that hook, where it is configured; see {@link MCP_VIA_UNCONFIGURED}.
   */
  mcpVia?: typeof MCP_VIA_EVENT;
}

/** The one `--mcp-via` value: Cursor's `beforeMCPExecution`, which says how it reaches the server. */
export const MCP_VIA_EVENT = 'beforeMCPExecution' as const;

/**
 * What `--mcp-via` does when plangate's hook for that event is not in the
 * host's hooks files (for this seat, failing closed, for every MCP tool):
 * the MCP call is decided here, as without `--mcp-via` — never let through
 * on the word of a flag, since then no hook would decide it at all.
 */
export const MCP_VIA_UNCONFIGURED = 'decide_here' as const;

/** Why a call left to the host's MCP event was let through here. */
export const MCP_VIA_NOTE = `plangate: an MCP call, decided by plangate's ${MCP_VIA_EVENT} hook`;

/** Checks `--mcp-via`: only {@link MCP_VIA_EVENT}, and only for Cursor's contract. */
export function checkMcpVia(value: string, format: string | undefined): typeof MCP_VIA_EVENT {
  if (value !== MCP_VIA_EVENT) throw bad(`--mcp-via: "${value}" is not an event plangate answers for MCP calls (${MCP_VIA_EVENT})`);
  if (format !== 'cursor') throw bad('--mcp-via is for Cursor\'s preToolUse hook: give --format cursor');
  return value;
}

/**
 * The name on plangate's server of a call of plangate's own tools, or
 * undefined: only on the server the operator configured as plangate's, by
 * name, or (for a host that reports no name) by its exact URL or command.
 *
 * @example
 * ownToolOf({ tool: 'MCP:plangate_say', input: {}, mcpEndpoint: { command: 'plangate mcp', tool: 'plangate_say' } }, { agent: '0xW', plangateServerCommand: 'plangate mcp' }) // 'plangate_say'
 */
export function ownToolOf(call: HookCall, options: HookOptions): string | undefined {
  if (call.mcp) return call.mcp.server === (options.plangateServer ?? DEFAULT_PLANGATE_SERVER) ? call.mcp.tool : undefined;
  const at = call.mcpEndpoint;
  if (!at) return undefined;
  const byUrl = options.plangateServerUrl !== undefined && at.url !== undefined && at.url === options.plangateServerUrl;
  const byCommand = options.plangateServerCommand !== undefined && at.command !== undefined && at.command === options.plangateServerCommand;
  return byUrl || byCommand ? at.tool : undefined;
}

/** A payload read, with the contract that answers it. */
export interface HookPayload {
  contract: HostContract;
  doc: Record<string, unknown>;
}

function bad(message: string): PlangateError {
  return new PlangateError(ErrorCode.InvalidInput, `plangate hook: ${message}`);
}

function refusedText(message: string): string {
  return `plangate could not decide this call, so it is refused: ${message}`;
}

/**
 * The refusal when the host is not known: exit 2 with the reason on stderr,
 * and Claude Code's deny on stdout.
 *
 * @example
 * unknownHostRefusal('the payload is not JSON').exitCode // 2
 */
export function unknownHostRefusal(message: string): HookReply {
  const reason = refusedText(message);
  return { stdout: `${JSON.stringify(claudeDeny(reason))}\n`, stderr: `${reason}\n`, exitCode: UNKNOWN_HOST_EXIT };
}

/** Checks `--plangate-server-url` / `--plangate-server-command`: a value to match exactly, never empty. */
export function checkServerEndpoint(flag: string, value: string): string {
  if (value.trim() === '' || value.length > 4096) throw bad(`${flag}: give the URL or command of plangate's MCP server exactly as the host reports it`);
  return value;
}

/** Checks the `--plangate-server` name; throws `invalid_input` for one no host would write. */
export function checkServerName(name: string): string {
  if (!SERVER_NAME.test(name)) throw bad(`--plangate-server: "${name}" is not an MCP server name`);
  return name;
}

/**
 * The contract named by `format`, or an error naming the hosts there are.
 *
 * @example
 * contractNamed('claude-code').name // 'claude-code'
 */
export function contractNamed(format: string): HostContract {
  const contract = hostNamed(format);
  if (!contract) throw bad(`--format: "${format}" is not a host plangate answers (${HOST_NAMES.join(', ')})`);
  return contract;
}

/**
 * Reads a payload and picks its contract (`format`, else the payload's
 * shape). Never throws: what cannot be read is the reply that refuses it.
 *
 * @example
 * const p = readHookPayload(stdin, 'claude-code'); if ('exitCode' in p) write(p); else decide(p);
 */
export function readHookPayload(text: string, format?: string): HookPayload | HookReply {
  let contract: HostContract | undefined;
  try {
    if (format !== undefined) contract = contractNamed(format);
  } catch (error) {
    return unknownHostRefusal(toError(error).message);
  }
  let doc: unknown;
  try {
    if (Buffer.byteLength(text, 'utf8') > MAX_PAYLOAD_BYTES) throw bad(`the payload is larger than ${MAX_PAYLOAD_BYTES} bytes`);
    try {
      doc = JSON.parse(text);
    } catch {
      throw bad('the payload is not JSON');
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw bad('the payload is not a JSON object');
    // Bounded nesting and well-formed Unicode, as every JSON body plangate reads.
    checkJson(doc, 'plangate hook: the payload');
  } catch (error) {
    const message = toError(error).message;
    return contract ? contract.refuse(refusedText(message)) : unknownHostRefusal(message);
  }
  const payload = doc as Record<string, unknown>;
  contract ??= recognise(payload);
  if (!contract) return unknownHostRefusal(`plangate hook: the payload is not recognisably one host's; name the host with --format (${HOST_NAMES.join(', ')})`);
  return { contract, doc: payload };
}

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
