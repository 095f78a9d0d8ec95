/**
 * Cline's `PreToolUse` hook: an executable file named `PreToolUse` in
 * `.clinerules/hooks/` (or the global hooks directory).
 *
 * Contract (Cline's hook reference, docs/features/hooks/hook-reference.mdx
 * in cline/cline, and its source at commit 21cb8d25, 2026-08-22:
 * apps/vscode/src/sdk/hooks-adapter.ts, core/hooks/hook-factory.ts,
 * sdk/packages/core/src/extensions/mcp/name-transform.ts):
 * - stdin: `{ clineVersion, hookName: "PreToolUse", timestamp, taskId,
 *   workspaceRoots, userId, model, preToolUse: { toolName, parameters } }`.
 *   Each parameter arrives as a string (a non-string value is JSON-encoded).
 *   An MCP tool is named `<server>__<tool>` (names over 64 characters are
 *   shortened with a hash and cannot be split); the older tool set calls
 *   MCP tools through `use_mcp_tool { server_name, tool_name, arguments }`,
 *   read here as `<server>__<tool>` with the decoded arguments.
 * - Block: stdout `{ cancel: true, errorMessage }`. Cline honours a valid
 *   JSON answer whatever the exit code; its reference also says a non-zero
 *   exit blocks, so the refusal exits 2 with the reason on stderr too.
 * - A cancel stops the whole task, not one call: the reason is shown, and
 *   the model reads it when the user resumes the task.
 *   (`contextModification` of a cancelling answer is not passed on.)
 * - The reference says a non-zero exit, invalid JSON or a timeout (30 s)
 *   blocks; the source lets the tool run when the hook fails or times out
 *   (it logs the failure). Cline has no setting for this.
 */
import type { HookCall, HookReply, HostContract } from '../contract.js';
import { bad, blockReply, call, idField, inputFromJsonText, inputObject, isObject, jsonReply, nameField, oneReason, soleRoot, splitMcpName } from './shared.js';

const HOST = 'cline' as const;

export const cline: HostContract = {
  name: HOST,
  source: 'cline/cline docs/features/hooks/hook-reference.mdx and apps/vscode/src/sdk/hooks-adapter.ts, core/hooks/hook-factory.ts (commit 21cb8d25, 2026-08-22); https://docs.cline.bot/features/hooks/hook-reference',

  recognises(doc: Record<string, unknown>): boolean {
    return doc['hookName'] === 'PreToolUse' && isObject(doc['preToolUse']);
  },

  read(doc: Record<string, unknown>): HookCall {
    if (doc['hookName'] !== 'PreToolUse') throw bad(HOST, `hookName is ${JSON.stringify(doc['hookName'])}; plangate answers PreToolUse`);
    const pre = doc['preToolUse'];
    if (!isObject(pre)) throw bad(HOST, 'preToolUse is not an object');
    const name = nameField(HOST, pre['toolName'], 'preToolUse.toolName');
    const parameters = inputObject(HOST, pre['parameters'], 'preToolUse.parameters');
    const sessionId = idField(doc['taskId']);
    if (name === 'use_mcp_tool') {
      const server = nameField(HOST, parameters['server_name'], 'preToolUse.parameters.server_name');
      const tool = nameField(HOST, parameters['tool_name'], 'preToolUse.parameters.tool_name');
      return call(`${server}__${tool}`, inputFromJsonText(HOST, parameters['arguments'], 'preToolUse.parameters.arguments'), { sessionId, mcp: { server, tool } });
    }
    const mcp = splitMcpName(name, '', '__');
    return call(name, parameters, {
      mcp,
      sessionId,
      // Cline's own tools resolve a relative path in the workspace root; an MCP server in its own directories.
      cwd: mcp === undefined ? soleRoot(HOST, doc['workspaceRoots'], 'workspaceRoots') : undefined,
    });
  },

  refuse(reason: string): HookReply {
    const text = oneReason(reason);
    return blockReply({ cancel: true, errorMessage: text }, text);
  },

  allow(): HookReply {
    return jsonReply({ cancel: false });
  },
};
