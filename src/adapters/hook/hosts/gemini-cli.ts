/**
 * Gemini CLI's `BeforeTool` hook.
 *
 * Contract (read in google-gemini/gemini-cli, commit 5411f113, 2026-08-21:
 * packages/core/src/hooks/{types,hookRunner,hookAggregator}.ts,
 * scheduler/hook-utils.ts, tools/mcp-tool.ts; docs/hooks/reference.md):
 * - stdin: `{ session_id, transcript_path, cwd, hook_event_name:
 *   "BeforeTool", timestamp, tool_name, tool_input, mcp_context?,
 *   original_request_name? }`. An MCP tool is named `mcp_<server>_<tool>`
 *   (the reference page's `mcp__server__tool` is out of date), and
 *   `mcp_context: { server_name, tool_name, … }` names its server and its
 *   own name, so the split never has to be guessed from the name.
 * - Block: a top-level `decision: "deny"` (or `"block"`) with `reason`; the
 *   model gets `Tool execution blocked: <reason>` as the tool's error.
 *   Gemini reads stdout first whatever the exit code: exit 2 with a JSON
 *   body is decided by that JSON (a Claude-shaped body with no top-level
 *   `decision` does not block), and exit 2 with an empty stdout takes stderr
 *   as the reason. plangate's refusal carries both and exits 2.
 * - `decision: "allow"` does not skip Gemini's own confirmation (its policy
 *   decides that), so `grant` changes nothing and an allowed call gets no
 *   answer.
 * - A hook that times out (60 s unless `timeout` says otherwise) or cannot
 *   start is reported as failed and the call goes on; exit 1 is a warning.
 *   Gemini has no setting that fails closed.
 */
import type { HookCall, HookReply, HostContract } from '../contract.js';
import { bad, blockReply, call, cwdField, idField, inputObject, isObject, jsonReply, nameField, oneReason } from './shared.js';

const HOST = 'gemini-cli' as const;

export const geminiCli: HostContract = {
  name: HOST,
  source: 'google-gemini/gemini-cli packages/core/src/hooks (types.ts, hookRunner.ts, hookAggregator.ts), scheduler/hook-utils.ts, commit 5411f113, 2026-08-21; https://geminicli.com/docs/hooks/reference',

  recognises(doc: Record<string, unknown>): boolean {
    return doc['hook_event_name'] === 'BeforeTool';
  },

  read(doc: Record<string, unknown>): HookCall {
    if (doc['hook_event_name'] !== 'BeforeTool') throw bad(HOST, `hook_event_name is ${JSON.stringify(doc['hook_event_name'])}; plangate answers BeforeTool`);
    const tool = nameField(HOST, doc['tool_name'], 'tool_name');
    const context = doc['mcp_context'];
    let mcp: HookCall['mcp'];
    if (context !== undefined && context !== null) {
      if (!isObject(context)) throw bad(HOST, 'mcp_context is not an object');
      mcp = { server: nameField(HOST, context['server_name'], 'mcp_context.server_name'), tool: nameField(HOST, context['tool_name'], 'mcp_context.tool_name') };
    }
    return call(tool, inputObject(HOST, doc['tool_input'], 'tool_input'), {
      mcp,
      sessionId: idField(doc['session_id']),
      cwd: cwdField(HOST, doc['cwd'], 'cwd'),
    });
  },

  refuse(reason: string): HookReply {
    const text = oneReason(reason);
    return blockReply({ decision: 'deny', reason: text }, text);
  },

  allow(): HookReply {
    return jsonReply(undefined);
  },
};
