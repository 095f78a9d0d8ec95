/**
 * Windsurf's Cascade hooks: `pre_run_command`, `pre_write_code`,
 * `pre_read_code` and `pre_mcp_tool_use`.
 *
 * Contract (Cascade Hooks, https://docs.windsurf.com/windsurf/cascade/hooks,
 * beta; read 2026-12-04):
 * - stdin: `{ agent_action_name, trajectory_id, execution_id, timestamp,
 *   tool_info }` with `tool_info` per event:
 *   `pre_run_command { command_line, cwd }`,
 *   `pre_write_code { file_path, edits: [{ old_string, new_string }] }`,
 *   `pre_read_code { file_path }` (may be a directory read recursively),
 *   `pre_mcp_tool_use { mcp_server_name, mcp_tool_name, mcp_tool_arguments }`.
 * - Block: exit 2 only; the agent sees stderr. No JSON answer is read.
 *   Any other exit code lets the action go on, and so does a hook that
 *   cannot run: there is no setting that fails closed.
 * - stdout and stderr are shown to the user only with `show_output: true`.
 * - Windsurf names no tools: plangate calls them `run_command`,
 *   `write_code`, `read_code`, and an MCP server's tool
 *   `mcp__<server>__<tool>` (as Claude Code names it).
 */
import type { HookCall, HookReply, HostContract } from '../contract.js';
import { bad, blockReply, call, cwdField, idField, inputObject, isObject, jsonReply, nameField, pathField } from './shared.js';

const HOST = 'windsurf' as const;
const EVENTS = ['pre_run_command', 'pre_write_code', 'pre_read_code', 'pre_mcp_tool_use'] as const;

export const windsurf: HostContract = {
  name: HOST,
  source: 'https://docs.windsurf.com/windsurf/cascade/hooks (Cascade Hooks, beta; read 2026-12-04)',

  recognises(doc: Record<string, unknown>): boolean {
    return typeof doc['agent_action_name'] === 'string' && isObject(doc['tool_info']);
  },

  read(doc: Record<string, unknown>): HookCall {
    const event = doc['agent_action_name'];
    if (typeof event !== 'string' || !(EVENTS as readonly string[]).includes(event)) {
      throw bad(HOST, `agent_action_name is ${JSON.stringify(event)}; plangate answers ${EVENTS.join(', ')}`);
    }
    const info = doc['tool_info'];
    if (!isObject(info)) throw bad(HOST, 'tool_info is not an object');
    const sessionId = idField(doc['trajectory_id']);
    switch (event as (typeof EVENTS)[number]) {
      case 'pre_run_command': {
        const command = info['command_line'];
        if (typeof command !== 'string') throw bad(HOST, 'tool_info.command_line is missing');
        return call('run_command', { command_line: command }, { sessionId, cwd: cwdField(HOST, info['cwd'], 'tool_info.cwd') });
      }
      case 'pre_write_code': {
        const edits = info['edits'] ?? [];
        if (!Array.isArray(edits)) throw bad(HOST, 'tool_info.edits is not an array');
        return call('write_code', { file_path: pathField(HOST, info['file_path'], 'tool_info.file_path'), edits }, { sessionId });
      }
      case 'pre_read_code':
        return call('read_code', { file_path: pathField(HOST, info['file_path'], 'tool_info.file_path') }, { sessionId });
      case 'pre_mcp_tool_use': {
        const server = nameField(HOST, info['mcp_server_name'], 'tool_info.mcp_server_name');
        const tool = nameField(HOST, info['mcp_tool_name'], 'tool_info.mcp_tool_name');
        return call(`mcp__${server}__${tool}`, inputObject(HOST, info['mcp_tool_arguments'], 'tool_info.mcp_tool_arguments'), { sessionId, mcp: { server, tool } });
      }
    }
    throw bad(HOST, `agent_action_name ${JSON.stringify(event)} is not answered`);
  },

  refuse(reason: string): HookReply {
    // Windsurf reads no JSON: exit 2 blocks, and the agent reads stderr.
    return blockReply(undefined, reason);
  },

  allow(): HookReply {
    return jsonReply(undefined);
  },
};
