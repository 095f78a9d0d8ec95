/**
 * OpenAI Codex CLI's `PreToolUse` hook.
 *
 * Contract (read in openai/codex, codex-rs/hooks, commit 0082977c, and the
 * generated schema pre-tool-use.command.input.schema.json, commit 3be4afd3;
 * read 2026-12-04; https://developers.openai.com/codex/hooks):
 * - stdin: `{ session_id, turn_id, transcript_path, cwd, hook_event_name:
 *   "PreToolUse", model, permission_mode, tool_name, tool_input, tool_use_id }`
 *   (`agent_id`/`agent_type` for a subagent). The hook sees shell calls
 *   (`tool_name: "Bash"`, `tool_input: { command }`), `apply_patch`
 *   (`tool_input: { command: <the patch> }`) and MCP tools
 *   (`mcp__<server>__<tool>`, the resolved arguments) only.
 * - Block: exit 0 with `hookSpecificOutput.permissionDecision: "deny"` and a
 *   non-empty `permissionDecisionReason`, or exit 2 with the reason on
 *   stderr (stdout is then not read). The reason is what the model is told.
 * - `permissionDecision: "allow"` without `updatedInput`, `"ask"`, and
 *   `suppressOutput` are rejected as invalid output (the hook is marked
 *   failed and the call goes on): an allowed call is answered with nothing,
 *   so `grant` cannot skip Codex's own approval.
 * - A hook that exits with another code, times out or cannot start is
 *   marked failed and the call goes on (fail-open; Codex has no setting to
 *   change that).
 */
import type { HookCall, HookReply, HostContract } from '../contract.js';
import { bad, blockReply, call, cwdField, idField, inputObject, jsonReply, nameField, oneReason, splitMcpName } from './shared.js';

const HOST = 'codex' as const;

export const codex: HostContract = {
  name: HOST,
  source: 'openai/codex codex-rs/hooks (events/pre_tool_use.rs, engine/output_parser.rs, commit 0082977c, read 2026-12-04); https://developers.openai.com/codex/hooks',

  recognises(doc: Record<string, unknown>): boolean {
    // Claude Code's PreToolUse payload has neither turn_id nor model.
    return doc['hook_event_name'] === 'PreToolUse' && typeof doc['turn_id'] === 'string' && typeof doc['model'] === 'string';
  },

  read(doc: Record<string, unknown>): HookCall {
    if (doc['hook_event_name'] !== 'PreToolUse') throw bad(HOST, `hook_event_name is ${JSON.stringify(doc['hook_event_name'])}; plangate answers PreToolUse`);
    const tool = nameField(HOST, doc['tool_name'], 'tool_name');
    return call(tool, inputObject(HOST, doc['tool_input'], 'tool_input'), {
      mcp: splitMcpName(tool, 'mcp__', '__'),
      sessionId: idField(doc['session_id']),
      cwd: cwdField(HOST, doc['cwd'], 'cwd'),
    });
  },

  refuse(reason: string): HookReply {
    const text = oneReason(reason);
    return blockReply({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: text } }, text);
  },

  allow(): HookReply {
    // Codex rejects an allow without updatedInput and any suppressOutput: no answer leaves the call to Codex.
    return jsonReply(undefined);
  },
};
