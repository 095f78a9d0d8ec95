/**
 * Cursor's agent hooks: the general `preToolUse` event (every tool) and the
 * per-kind `beforeShellExecution`, `beforeMCPExecution` and `beforeReadFile`.
 *
 * Contract (Cursor's hooks reference, https://cursor.com/docs/agent/hooks
 * and https://cursor.com/docs/reference/hooks. Its text was not reachable
 * from here: the fields below come from a published field-by-field record
 * of that reference checked against observed runs of Cursor 3.9.16
 * (2026-06-30), from a copy of the reference's earlier text (github
 * pcomans/caruso, reference/cursor_hooks.md), and the hooks.json format
 * also from the README of the cursor-hooks type package, npm cursor-hooks
 * 1.1.6):
 * - stdin, every event: `{ conversation_id, generation_id, model,
 *   hook_event_name, cursor_version, workspace_roots, user_email,
 *   transcript_path }`, and per event:
 *   `preToolUse { tool_name, tool_input, tool_use_id, cwd }` with tool names
 *   `Shell`, `Read`, `Write`, `Grep`, `Task`, `MCP:<tool>`…;
 *   `beforeShellExecution { command, cwd, sandbox }`;
 *   `beforeMCPExecution { tool_name (bare), tool_input (a JSON string), url |
 *   command }` — the reference: "plus either url or command";
 *   `beforeReadFile { file_path, content, attachments }`.
 * - Block: a flat `permission: "deny"` with `user_message` (shown; the runs
 *   recorded it as the text the model receives) and `agent_message` (meant
 *   for the model), or exit 2, which blocks too (with a JSON body the body
 *   is shown as text). plangate's refusal carries the JSON, stderr and
 *   exit 2.
 * - A hook that crashes, times out or answers invalid JSON lets the call
 *   through unless its entry sets `failClosed: true` (an option of every
 *   hook entry; the reference recommends it for `beforeMCPExecution`, and
 *   integrations set it on `preToolUse`, `beforeShellExecution`,
 *   `beforeMCPExecution` and `beforeReadFile` alike: Doberman-Core's Cursor
 *   memo, hol-guard PR 581). So an allowed call is answered
 *   `permission: "allow"` (Cursor still asks the user where its own
 *   approvals say so: a hook's allow does not lift them), and `plangate
 *   init --hook cursor` writes `failClosed: true` on every entry.
 * - MCP calls and the server. `preToolUse` names an MCP tool `MCP:<tool>`
 *   and carries no server field (recorded runs: context-mode's
 *   tests/fixtures/cursor/pretooluse-mcp.json, `MCP:ctx_execute`; the live
 *   runs of cursor-agent 2026.10.01 recorded in ai-whiteboard's Cursor
 *   tests, `MCP:get_run`, `MCP:user_ping`. One integration's notes say
 *   `MCP:<server>:<tool>`; no run recorded it). So there plangate never
 *   takes a call for its own tool. `beforeMCPExecution` identifies the
 *   server by how Cursor reaches it: `url` for a remote server, `command`
 *   for one it launches — the entry's command and arguments joined by
 *   spaces (`npx -y mcp-remote@latest https://…` in a recorded payload; the
 *   payload examples of Cupcake's Cursor reference,
 *   https://cupcake.eqtylab.io/reference/harnesses/cursor). Newer builds
 *   also send `mcp_server_name` (read in cursor-agent 2026.07.23 and
 *   2026.10.01, cursor/cookbook issue 50); the reference does not list it,
 *   so plangate does not rely on it. A call of `beforeMCPExecution`
 *   carries `mcpEndpoint`, which the hook matches against the URL or
 *   command the operator gave as plangate's (`--plangate-server-url`,
 *   `--plangate-server-command`), exactly, and nothing else.
 * - Both events fire for one MCP call (preloop PR 415: "preToolUse fired
 *   for Shell and MCP tool calls that beforeShellExecution /
 *   beforeMCPExecution already cover"; openagentlock dedupes the pair).
 *   Their order is not documented (for a shell call the general event was
 *   observed first); each event's answer stands on its own, and a deny in
 *   either blocks. `plangate hook --mcp-via beforeMCPExecution` leaves the
 *   MCP calls of `preToolUse` to plangate's `beforeMCPExecution` hook
 *   (pretooluse.ts), only where that hook is configured (cursor-hooks-file.ts).
 */
import type { HookCall, HookReply, HostContract } from '../contract.js';
import { bad, blockReply, call, cwdField, idField, inputFromJsonText, jsonReply, nameField, oneReason, pathField, rootsField, soleRoot } from './shared.js';

const HOST = 'cursor' as const;
/** How `preToolUse` names an MCP server's tool (`MCP:<tool>`), and how plangate names one of `beforeMCPExecution`, so that one rule classifies both. */
const MCP_PREFIX = 'MCP:';
const EVENTS = ['preToolUse', 'beforeShellExecution', 'beforeMCPExecution', 'beforeReadFile'] as const;

function isEvent(value: unknown): value is (typeof EVENTS)[number] {
  return typeof value === 'string' && (EVENTS as readonly string[]).includes(value);
}

/** An optional string field: absent or a string, anything else is malformed. */
function optionalText(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw bad(HOST, `${field} is not a string`);
  return value;
}

export const cursor: HostContract = {
  name: HOST,
  source: 'https://cursor.com/docs/reference/hooks, as recorded field by field against observed runs of Cursor 3.9.16 (2026-06-30); hooks.json format also in npm cursor-hooks 1.1.6',

  recognises(doc: Record<string, unknown>): boolean {
    return isEvent(doc['hook_event_name']) && (typeof doc['cursor_version'] === 'string' || typeof doc['conversation_id'] === 'string');
  },

  read(doc: Record<string, unknown>): HookCall {
    const event = doc['hook_event_name'];
    if (!isEvent(event)) throw bad(HOST, `hook_event_name is ${JSON.stringify(event)}; plangate answers ${EVENTS.join(', ')}`);
    const sessionId = idField(doc['conversation_id']) ?? idField(doc['session_id']);
    const root = soleRoot(HOST, doc['workspace_roots'], 'workspace_roots');
    const cwd = cwdField(HOST, doc['cwd'], 'cwd') ?? root;
    switch (event) {
      case 'preToolUse': {
        const tool = nameField(HOST, doc['tool_name'], 'tool_name');
        const input = inputFromJsonText(HOST, doc['tool_input'], 'tool_input');
        // An MCP server resolves a relative path in its own directories, not in Cursor's; and this event never names the server.
        if (tool.startsWith(MCP_PREFIX)) return call(tool, input, { sessionId, mcpUnnamed: true, roots: rootsField(HOST, doc['workspace_roots'], 'workspace_roots') });
        return call(tool, input, { sessionId, cwd });
      }
      case 'beforeShellExecution': {
        const command = doc['command'];
        if (typeof command !== 'string') throw bad(HOST, 'command is missing');
        return call('Shell', { command }, { sessionId, cwd });
      }
      case 'beforeMCPExecution': {
        const tool = nameField(HOST, doc['tool_name'], 'tool_name');
        const url = optionalText(doc['url'], 'url');
        const command = optionalText(doc['command'], 'command');
        const mcpEndpoint = url !== undefined || command !== undefined
          ? { tool, ...(url !== undefined ? { url } : {}), ...(command !== undefined ? { command } : {}) }
          : undefined;
        return call(`${MCP_PREFIX}${tool}`, inputFromJsonText(HOST, doc['tool_input'], 'tool_input'), { sessionId, mcpEndpoint });
      }
      case 'beforeReadFile':
        return call('Read', { file_path: pathField(HOST, doc['file_path'], 'file_path') }, { sessionId, cwd });
    }
  },

  refuse(reason: string): HookReply {
    const text = oneReason(reason);
    return blockReply({ permission: 'deny', user_message: text, agent_message: text }, text);
  },

  allow(): HookReply {
    // With failClosed, an answer without a decision blocks: an allowed call says so.
    return jsonReply({ permission: 'allow' });
  },
};
