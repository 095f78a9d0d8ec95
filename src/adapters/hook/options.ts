/**
 * What a hook is told besides its payload: the seat, the host's contract,
 * the run, whether to grant, and which MCP server is plangate's own (by
 * name, or for Cursor by URL or command) — with the checks of each flag.
 */
import { ErrorCode, PlangateError } from '../../core/errors.js';
import type { HookCall } from './contract.js';

/** A hook's flag or payload that cannot be taken: `invalid_input`, named as the hook's. */
export function badHookInput(message: string): PlangateError {
  return new PlangateError(ErrorCode.InvalidInput, `plangate hook: ${message}`);
}

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
  if (value !== MCP_VIA_EVENT) throw badHookInput(`--mcp-via: "${value}" is not an event plangate answers for MCP calls (${MCP_VIA_EVENT})`);
  if (format !== 'cursor') throw badHookInput('--mcp-via is for Cursor\'s preToolUse hook: give --format cursor');
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

/** Checks `--plangate-server-url` / `--plangate-server-command`: a value to match exactly, never empty. */
export function checkServerEndpoint(flag: string, value: string): string {
  if (value.trim() === '' || value.length > 4096) throw badHookInput(`${flag}: give the URL or command of plangate's MCP server exactly as the host reports it`);
  return value;
}

/** Checks the `--plangate-server` name; throws `invalid_input` for one no host would write. */
export function checkServerName(name: string): string {
  if (!SERVER_NAME.test(name)) throw badHookInput(`--plangate-server: "${name}" is not an MCP server name`);
  return name;
}
