/**
 * `plangate hook`: the decision for an agent host that asks a command
 * before each tool call (a PreToolUse hook) instead of routing its tools
 * through MCP. The host writes one JSON object on stdin —
 * `{ session_id, transcript_path, cwd, permission_mode, hook_event_name:
 * "PreToolUse", tool_name, tool_input, tool_use_id }` — and reads the answer
 * on stdout: `{ hookSpecificOutput: { hookEventName: "PreToolUse",
 * permissionDecision: "deny", permissionDecisionReason } }` (the reason is
 * shown to the model). Every input gets a well-formed answer and exit 0.
 */
import { isAbsolute } from 'node:path';
import { ErrorCode, PlangateError, storeErrorShown, toError } from '../../core/errors.js';
import { FAILURE_SHOWN_TO_AGENTS } from '../../core/failopen.js';
import type { Call, Decision } from '../../core/types.js';
import type { Gate } from '../../gate/gate.js';
import { argsForPolicy } from '../../gate/args.js';

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

/** The fields of a PreToolUse payload plangate reads. */
export interface PreToolUse {
  tool: string;
  input: Record<string, unknown>;
  sessionId?: string;
  /** The host's working directory, where its tools resolve a relative path. */
  cwd?: string;
}

export interface HookOptions {
  /** The seat every call acts as (the hook's configuration, never the payload). */
  agent: string;
  /** The run of the calls, if the host started one. */
  runId?: string;
  /** Use the host's `session_id` as the run (the host, not the model, writes it). */
  sessionRun?: boolean;
  /**
   * Answer `allow` for an allowed call. Off by default: an allow would skip
   * the host's own permission prompt, and a plan approves nothing, so an
   * allowed call gets no decision and the host asks as it always does.
   */
  grant?: boolean;
}

/**
 * Reads a PreToolUse payload; a malformed one is a `PlangateError` naming the problem.
 *
 * @example
 * parsePreToolUse('{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"a"}}').tool // 'Write'
 */
export function parsePreToolUse(text: string): PreToolUse {
  if (Buffer.byteLength(text, 'utf8') > MAX_PAYLOAD_BYTES) throw bad(`the payload is larger than ${MAX_PAYLOAD_BYTES} bytes`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw bad('the payload is not JSON');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw bad('the payload is not a JSON object');
  const p = doc as Record<string, unknown>;
  if (p['hook_event_name'] !== undefined && p['hook_event_name'] !== 'PreToolUse') {
    throw bad(`hook_event_name is ${JSON.stringify(p['hook_event_name'])}; plangate hook answers PreToolUse`);
  }
  if (typeof p['tool_name'] !== 'string' || p['tool_name'] === '') throw bad('tool_name is missing');
  const input = p['tool_input'] ?? {};
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw bad('tool_input is not an object');
  const cwd = p['cwd'] ?? undefined;
  // A relative path would be measured somewhere other than where the host's tool reads it.
  if (cwd !== undefined && (typeof cwd !== 'string' || !isAbsolute(cwd) || cwd.includes('\0'))) throw bad('cwd is not an absolute path');
  return {
    tool: p['tool_name'],
    input: input as Record<string, unknown>,
    ...(typeof p['session_id'] === 'string' && p['session_id'] !== '' ? { sessionId: p['session_id'] } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
  };
}

function bad(message: string): PlangateError {
  return new PlangateError(ErrorCode.InvalidInput, `plangate hook: ${message}`);
}

function deny(reason: string): Record<string, unknown> {
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
}

/**
 * The answer for a decision.
 *
 * @example
 * answerFor(decision, { agent: '0xWORKER' }) // { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', … } }
 */
export function answerFor(decision: Decision, options: Pick<HookOptions, 'grant'>): Record<string, unknown> {
  if (!decision.allowed) return deny(decision.message ?? decision.code ?? 'refused by plangate');
  const note = decision.failOpen ? `plangate failed open: ${FAILURE_SHOWN_TO_AGENTS[decision.failOpen.cause]}` : 'plangate: no check refuses this call';
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      ...(options.grant ? { permissionDecision: 'allow', permissionDecisionReason: note } : {}),
    },
    suppressOutput: true,
  };
}

/**
 * Decides one payload and returns the text for stdout. Never throws.
 *
 * @example
 * process.stdout.write(await runHook(pg.gate, await readStdin(), { agent: '0xWORKER' }));
 */
export async function runHook(gate: Pick<Gate, 'decide'>, text: string, options: HookOptions): Promise<string> {
  let answer: Record<string, unknown>;
  try {
    const payload = parsePreToolUse(text);
    const runId = options.runId ?? (options.sessionRun ? payload.sessionId : undefined);
    const shown = argsForPolicy(payload.input);
    const call: Call = {
      agent: options.agent,
      tool: payload.tool,
      ...(runId !== undefined ? { runId } : {}),
      args: shown.args,
      ...(shown.omitted.length ? { omittedArgs: shown.omitted } : {}),
    };
    // The host's own tools resolve a relative path in its working directory; an MCP server
    // (`mcp__<server>__<tool>`) in its own directories, which the read roots name.
    const relativeTo = payload.tool.startsWith('mcp__') ? undefined : payload.cwd;
    answer = answerFor(await gate.decide(call, relativeTo !== undefined ? { relativeTo } : {}), options);
  } catch (error) {
    return undecidable(error);
  }
  return `${JSON.stringify(answer)}\n`;
}

/**
 * The text for stdout when a call cannot be decided (see
 * {@link HOOK_ON_UNDECIDABLE}): for a malformed payload, and for a
 * plangate that cannot be opened (its store, its audit), since a host
 * lets the call through a hook that exits with an error.
 *
 * @example
 * process.stdout.write(undecidable(new Error('the store cannot be opened')));
 */
export function undecidable(error: unknown): string {
  const e = toError(error);
  // A store error is told in its code's words: its own message (a database's address, a file's path) is the operator's.
  const shown = storeErrorShown(e);
  const answer = HOOK_ON_UNDECIDABLE === 'deny'
    ? deny(`plangate could not decide this call, so it is refused: ${e instanceof PlangateError ? shown ?? e.message : 'internal error'}`)
    : {};
  if (!(e instanceof PlangateError)) process.stderr.write(`plangate hook: ${e.stack ?? e.message}\n`);
  else if (shown !== undefined) process.stderr.write(`plangate hook: ${e.code}: ${e.message}\n`);
  return `${JSON.stringify(answer)}\n`;
}
