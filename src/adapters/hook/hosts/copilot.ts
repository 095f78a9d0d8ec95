/**
 * GitHub Copilot CLI's (and Copilot cloud agent's) `preToolUse` hook, in its
 * camelCase form (the event configured as `preToolUse`).
 *
 * Contract (GitHub Copilot hooks reference, docs.github.com
 * /en/copilot/reference/hooks-reference, github/docs commit 2199f62d, and
 * its earlier hooks-configuration page, commit 1912b4fc; read 2026-12-04):
 * - stdin: `{ sessionId, timestamp (ms), cwd, toolName, toolArgs }`;
 *   `toolArgs` is the tool's arguments as a JSON string (the earlier page)
 *   or a value (the current one): both are read. Built-in tools: `bash`,
 *   `powershell`, `view`, `create`, `edit`, `glob`, `grep`, `web_fetch`,
 *   `task`, `ask_user`. An event configured in PascalCase (`PreToolUse`)
 *   gets snake_case fields instead; plangate's configuration uses camelCase.
 * - Block: stdout `{ permissionDecision: "deny", permissionDecisionReason }`
 *   with exit 0; the reason is shown to the agent. Exit 2 is only a warning
 *   for this event (the run goes on), so a refusal never relies on it.
 * - Empty output leaves the call to Copilot's own permission flow.
 * - A hook that exits with another code or times out (30 s unless
 *   `timeoutSec` says otherwise) is logged and skipped: the call goes on.
 *   There is no setting that fails closed.
 * - MCP tools are named `<server>-<tool>` (not in the reference; recorded in
 *   github/copilot-sdk issues #861 and #869). A server's name may itself
 *   contain `-`, so only a name with exactly one `-` is read as an MCP
 *   server's tool; any other name carries no `mcp`.
 */
import type { HookCall, HookReply, HostContract } from '../contract.js';
import { bad, call, cwdField, idField, inputFromJsonText, jsonReply, nameField, oneReason } from './shared.js';

const HOST = 'copilot' as const;

/** `<server>-<tool>` when the name has exactly one `-` (Copilot's built-in tools have none). */
function mcpOf(tool: string): HookCall['mcp'] {
  const at = tool.indexOf('-');
  if (at <= 0 || at === tool.length - 1 || tool.indexOf('-', at + 1) !== -1) return undefined;
  return { server: tool.slice(0, at), tool: tool.slice(at + 1) };
}

export const copilot: HostContract = {
  name: HOST,
  source: 'https://docs.github.com/en/copilot/reference/hooks-reference (github/docs commit 2199f62d, read 2026-12-04) and hooks-configuration (commit 1912b4fc); MCP naming: github/copilot-sdk issues 861, 869',

  recognises(doc: Record<string, unknown>): boolean {
    return typeof doc['toolName'] === 'string' && Object.hasOwn(doc, 'toolArgs') && doc['hook_event_name'] === undefined && doc['preToolUse'] === undefined;
  },

  read(doc: Record<string, unknown>): HookCall {
    if (doc['hook_event_name'] !== undefined) throw bad(HOST, 'the payload has hook_event_name: configure the event as preToolUse (camelCase), whose payload plangate reads');
    const tool = nameField(HOST, doc['toolName'], 'toolName');
    const cwd = cwdField(HOST, doc['cwd'], 'cwd');
    return call(tool, inputFromJsonText(HOST, doc['toolArgs'], 'toolArgs'), {
      mcp: mcpOf(tool),
      sessionId: idField(doc['sessionId']),
      // A name with `-` is an MCP server's tool even when its server cannot be told: it resolves paths in its own directories.
      cwd: tool.includes('-') ? undefined : cwd,
    });
  },

  refuse(reason: string): HookReply {
    return jsonReply({ permissionDecision: 'deny', permissionDecisionReason: oneReason(reason) });
  },

  allow(note: string, grant: boolean): HookReply {
    return jsonReply(grant ? { permissionDecision: 'allow', permissionDecisionReason: note } : undefined);
  },
};
