/**
 * Cursor's agent hooks: the general `preToolUse` event (every tool) and the
 * per-kind `beforeShellExecution`, `beforeMCPExecution` and `beforeReadFile`.
 *
 * Contract (Cursor's hooks reference, https://cursor.com/docs/agent/hooks
 * and https://cursor.com/docs/reference/hooks. Its text was not reachable
 * from here: the fields below come from a published field-by-field record
 * of that reference checked against observed runs of Cursor 3.9.16
 * (2026-06-30), and the hooks.json format also from the README of the
 * cursor-hooks type package, npm cursor-hooks 1.1.6):
 * - stdin, every event: `{ conversation_id, generation_id, model,
 *   hook_event_name, cursor_version, workspace_roots, user_email,
 *   transcript_path }`, and per event:
 *   `preToolUse { tool_name, tool_input, tool_use_id, cwd }` with tool names
 *   `Shell`, `Read`, `Write`, `Grep`, `Task`, `MCP:<tool>`…;
 *   `beforeShellExecution { command, cwd, sandbox }`;
 *   `beforeMCPExecution { tool_name (bare), tool_input (a JSON string), url |
 *   command }` — the server's launch command or URL, never its name;
 *   `beforeReadFile { file_path, content, attachments }`.
 * - Block: a flat `permission: "deny"` with `user_message` (shown; the runs
 *   recorded it as the text the model receives) and `agent_message` (meant
 *   for the model), or exit 2, which blocks too (with a JSON body the body
 *   is shown as text). plangate's refusal carries the JSON, stderr and
 *   exit 2.
 * - A hook that crashes, times out or answers nothing lets the call through
 *   unless its entry sets `failClosed: true`; with it, an answer without a
 *   decision also blocks. So an allowed call is answered
 *   `permission: "allow"` (whether Cursor still asks the user then is
 *   Cursor's to decide; it is not documented), and `plangate init --hook
 *   cursor` writes `failClosed: true`.
 * - No documented field names the MCP server. (The records disagree on
 *   `preToolUse`'s name for an MCP tool: `MCP:<tool>` in the field record,
 *   `MCP:<server>:<tool>` in another integration's notes; neither is
 *   Cursor's own text.) plangate does not guess: it cannot tell its own plan
 *   tool from another server's tool of the same name, so a Cursor call never
 *   carries `mcp`, and `beforeMCPExecution`'s tool is named `MCP:<tool>`
 *   like `preToolUse`'s.
 */
import type { HookCall, HookReply, HostContract } from '../contract.js';
import { bad, blockReply, call, cwdField, idField, inputFromJsonText, jsonReply, nameField, oneReason, pathField, soleRoot } from './shared.js';

const HOST = 'cursor' as const;
const EVENTS = ['preToolUse', 'beforeShellExecution', 'beforeMCPExecution', 'beforeReadFile'] as const;

function isEvent(value: unknown): value is (typeof EVENTS)[number] {
  return typeof value === 'string' && (EVENTS as readonly string[]).includes(value);
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
        // An MCP server resolves a relative path in its own directories, not in Cursor's.
        return call(tool, inputFromJsonText(HOST, doc['tool_input'], 'tool_input'), { sessionId, cwd: tool.startsWith('MCP:') ? undefined : cwd });
      }
      case 'beforeShellExecution': {
        const command = doc['command'];
        if (typeof command !== 'string') throw bad(HOST, 'command is missing');
        return call('Shell', { command }, { sessionId, cwd });
      }
      case 'beforeMCPExecution':
        return call(`MCP:${nameField(HOST, doc['tool_name'], 'tool_name')}`, inputFromJsonText(HOST, doc['tool_input'], 'tool_input'), { sessionId });
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
