/**
 * Claude Code's `PreToolUse` hook, as its hooks reference publishes it
 * (https://code.claude.com/docs/en/hooks, read 2026-12-04): the payload —
 * `{ session_id, transcript_path, cwd, permission_mode, hook_event_name:
 * "PreToolUse", tool_name, tool_input, tool_use_id }` — comes on a command
 * hook's stdin, or as the body of the POST a `type: "http"` hook sends. MCP
 * tools are named `mcp__<server>__<tool>`. The answer is a JSON object on
 * stdout with exit 0 (an http hook: the 2xx response's JSON body):
 * `hookSpecificOutput.permissionDecision: "deny"` blocks the call and shows
 * `permissionDecisionReason` to the model; no decision leaves the call to
 * Claude Code's own permission prompts. (Exit 2 with the reason on stderr
 * blocks too; plangate answers in JSON, which a command and an http hook
 * read alike.)
 */
import { isAbsolute } from 'node:path';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import type { HookCall, HookReply, HostContract } from '../contract.js';

const EVENT = 'PreToolUse';

/** Where an MCP tool's name starts, in Claude Code's naming: `mcp__<server>__<tool>`. */
const MCP_PREFIX = 'mcp__';
const MCP_SEPARATOR = '__';

function bad(message: string): PlangateError {
  return new PlangateError(ErrorCode.InvalidInput, `plangate hook: ${message}`);
}

/**
 * The server and tool of an MCP tool's name as Claude Code writes it.
 *
 * @example
 * mcpName('mcp__plangate__plangate_say') // { server: 'plangate', tool: 'plangate_say' }
 */
export function mcpName(name: string): { server: string; tool: string } | undefined {
  if (!name.startsWith(MCP_PREFIX)) return undefined;
  const rest = name.slice(MCP_PREFIX.length);
  const at = rest.indexOf(MCP_SEPARATOR);
  if (at <= 0 || at + MCP_SEPARATOR.length >= rest.length) return undefined;
  return { server: rest.slice(0, at), tool: rest.slice(at + MCP_SEPARATOR.length) };
}

function reply(answer: Record<string, unknown>): HookReply {
  return { stdout: `${JSON.stringify(answer)}\n`, stderr: '', exitCode: 0 };
}

/**
 * The deny answer, in Claude Code's shape.
 *
 * @example
 * claudeDeny('plan_required:Write:none - …') // { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', … } }
 */
export function claudeDeny(reason: string): Record<string, unknown> {
  return { hookSpecificOutput: { hookEventName: EVENT, permissionDecision: 'deny', permissionDecisionReason: reason } };
}

export const claudeCode: HostContract = {
  name: 'claude-code',
  source: 'https://code.claude.com/docs/en/hooks (PreToolUse input, decision control, HTTP hooks), read 2026-12-04',
  recognises(doc) {
    // Claude Code's own fields together; Codex's payload also carries a turn_id.
    return doc['hook_event_name'] === EVENT && typeof doc['tool_name'] === 'string' && typeof doc['tool_use_id'] === 'string'
      && typeof doc['transcript_path'] === 'string' && !('turn_id' in doc);
  },
  read(doc): HookCall {
    if (doc['hook_event_name'] !== undefined && doc['hook_event_name'] !== EVENT) {
      throw bad(`hook_event_name is ${JSON.stringify(doc['hook_event_name'])}; plangate hook answers PreToolUse`);
    }
    const tool = doc['tool_name'];
    if (typeof tool !== 'string' || tool === '') throw bad('tool_name is missing');
    const input = doc['tool_input'] ?? {};
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw bad('tool_input is not an object');
    const cwd = doc['cwd'] ?? undefined;
    // A relative path would be measured somewhere other than where the host's tool reads it.
    if (cwd !== undefined && (typeof cwd !== 'string' || !isAbsolute(cwd) || cwd.includes('\0'))) throw bad('cwd is not an absolute path');
    const mcp = mcpName(tool);
    const session = doc['session_id'];
    return {
      tool,
      input: input as Record<string, unknown>,
      ...(mcp ? { mcp } : {}),
      ...(typeof session === 'string' && session !== '' ? { sessionId: session } : {}),
      ...(cwd !== undefined ? { cwd } : {}),
    };
  },
  refuse(reason) {
    return reply(claudeDeny(reason));
  },
  allow(note, grant) {
    return reply({
      hookSpecificOutput: { hookEventName: EVENT, ...(grant ? { permissionDecision: 'allow', permissionDecisionReason: note } : {}) },
      suppressOutput: true,
    });
  },
};
