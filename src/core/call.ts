/**
 * A call to be decided, as a host or an adapter hands it to the gate.
 */

/**
 * The `_meta` key of an MCP `tools/call` that names the run the call belongs
 * to: read by the MCP gateway, and never passed on unchecked (by the gateway
 * upstream, or by `POST /mcp/call` to an executor).
 */
export const RUN_META_KEY = 'plangate/runId';

/**
 * A tool call to be decided.
 *
 * @example
 * const call: Call = { agent: '0xWORKER', tool: 'github.merge_pull_request', runId: 'run-7' };
 */
export interface Call {
  /** The acting agent (seat) id. */
  agent: string;
  /** The tool name, e.g. `github.merge_pull_request`. */
  tool: string;
  /** The run this call belongs to; a plan tagged with the same run counts however old. */
  runId?: string;
  /** The delegation chain, nearest manager first. */
  delegatedBy?: string[];
  /** When the call happens; defaults to now. A Date, epoch milliseconds or an ISO-8601 string. */
  at?: Date | number | string;
  /**
   * The call's arguments as the policy should see them (at most 64 keys and
   * 64 KiB as JSON). The read guard reads the path and range arguments the
   * rules name; a host may leave out large values such as file contents, and
   * names them in `omittedArgs` (gate/args.ts does both).
   */
  args?: Record<string, unknown>;
  /**
   * Arguments the host left out of `args` for their size (see gate/args.ts).
   * The read guard refuses a call whose path or range is among them.
   */
  omittedArgs?: string[];
  /**
   * The call's arguments exactly as the tool receives them, when `args` is
   * a view with large values left out: what an approval is bound to (the
   * SHA-256 of their canonical form). Defaults to `args`. Never given to the policy.
   */
  callArgs?: Record<string, unknown>;
  /**
   * The tool's hints from the MCP server that offers it (`readOnlyHint`,
   * `destructiveHint`, …), given by the host or gateway, never by the agent.
   * Advisory: they classify the tool only where the rules do not.
   */
  annotations?: ToolHints;
}

/** MCP tool annotations the policy reads (all optional, all advisory). */
export interface ToolHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** plangate's own tool that posts a message (a plan unless `kind` says otherwise). Never gated. */
export const SAY_TOOL = 'plangate_say';

/** The reviewer channel's name when the rules name none (the policy's built-in value). */
export const DEFAULT_REVIEWER_CHANNEL = 'plangate_submit_plan';

/**
 * A request's `_meta` as it is passed on to whatever runs the tool (an MCP
 * upstream, an HTTP executor): without plangate's run key, which is the
 * agent's word only, and without the other keys named in `drop` (the MCP
 * gateway drops the client's progress token; the SDK sets its own).
 * Undefined when nothing is left.
 *
 * @example
 * forwardedMeta({ 'plangate/runId': 'run-7', trace: 'a' }) // { trace: 'a' }
 */
export function forwardedMeta(meta: Record<string, unknown> | undefined, drop: readonly string[] = []): Record<string, unknown> | undefined {
  if (meta === undefined) return undefined;
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(meta)) {
    if (key !== RUN_META_KEY && !drop.includes(key)) Object.defineProperty(rest, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return Object.keys(rest).length > 0 ? rest : undefined;
}
