/**
 * What an agent host's pre-tool hook contract is to plangate: how to read
 * the host's payload, and how to answer so that the host blocks the call or
 * lets it go. One implementation per host, each following that host's own
 * published contract (cited in its module); the tool-call pipeline decides,
 * the contract only translates.
 */

/** The hosts plangate answers, by their `--format` names. */
export const HOST_NAMES = ['claude-code', 'codex', 'gemini-cli', 'cursor', 'copilot', 'windsurf', 'cline'] as const;
export type HostName = (typeof HOST_NAMES)[number];

/** A tool call as a host's hook payload describes it. */
export interface HookCall {
  /** The tool's name as the host names it (`Write`, `mcp__github__merge_pull_request`, …). */
  tool: string;
  /**
   * For an MCP server's tool: the server's name as the host's configuration
   * calls it, and the tool's name on that server.
   */
  mcp?: { server: string; tool: string };
  /**
   * For an MCP server's tool where the host names the server by how it
   * reaches it, not by a name (Cursor's `beforeMCPExecution`): the server's
   * URL or launch command as the host reports it, and the tool's name.
   */
  mcpEndpoint?: { url?: string; command?: string; tool: string };
  /**
   * An MCP server's tool whose payload names no server at all (Cursor's
   * `preToolUse`, `MCP:<tool>`): never taken for plangate's own, and left
   * to the host's MCP event where the hook is told to (`--mcp-via`).
   */
  mcpUnnamed?: boolean;
  /** The host's workspace roots (absolute), where its project settings are. */
  roots?: string[];
  /** The tool's arguments. */
  input: Record<string, unknown>;
  /** The host's session id, written by the host (never the model). */
  sessionId?: string;
  /** The host's working directory (absolute), where its own tools resolve a relative path. */
  cwd?: string;
}

/** What the hook command writes and how it exits. */
export interface HookReply {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface HostContract {
  readonly name: HostName;
  /** The published contract this module follows: the document's address and the version or date read. */
  readonly source: string;
  /** True when `doc` can only be this host's payload (used when no `--format` is given). */
  recognises(doc: Record<string, unknown>): boolean;
  /** Reads a payload; a malformed one throws `PlangateError(InvalidInput)` naming what is wrong. */
  read(doc: Record<string, unknown>): HookCall;
  /** The reply that blocks the call in this host, `reason` where the model reads it. `doc` is the payload when it was a JSON object. */
  refuse(reason: string, doc?: Record<string, unknown>): HookReply;
  /**
   * The reply for an allowed call. Without `grant` the host's own permission
   * prompts stay in place (a plan approves nothing); `note` says why the call
   * was let through (e.g. plangate failing open) where the host shows it.
   */
  allow(note: string, grant: boolean, doc?: Record<string, unknown>): HookReply;
}
