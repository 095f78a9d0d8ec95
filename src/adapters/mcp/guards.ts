/**
 * What stands around every request a session serves: a bound of requests
 * in flight (so one client cannot pile up decisions, audit records and
 * upstream requests), and a shield that tells the client a store error in
 * its code's words (its own message names the database: the operator's log
 * gets it). An error answered goes out as sent (upstream-errors.ts, asSent),
 * so the client reads one "MCP error <code>:" prefix, not one per hop.
 */
import { ErrorCode as RpcCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { storeErrorShown } from '../../core/errors.js';
import type { CallDeps } from './calls.js';
import { MAX_CALLS_IN_FLIGHT } from './limits.js';
import { asSent } from './upstream-errors.js';

/** The JSON-RPC error code of a request over a session's bound of requests in flight (in the range left to servers). */
export const BUSY_RPC_CODE = -32031;

/** The tool label of a call answered busy whose name the session does not route. */
export const UNLISTED_TOOL = '(unlisted)';

/**
 * One session's guards.
 *
 * @example
 * const guards = new RequestGuards('0xWORKER', deps, (name) => routes.has(name));
 * await guards.bounded('tools/call', () => callTool(…), 'write_file');
 */
export class RequestGuards {
  /** Requests being served now (see MAX_CALLS_IN_FLIGHT). */
  private gated = 0;

  constructor(
    private readonly seat: string,
    private readonly deps: Pick<CallDeps, 'maxCallsInFlight' | 'count' | 'log'>,
    /** Whether the session routes a tool name (its own tools included). */
    private readonly routes: (tool: string) => boolean,
  ) {}

  /**
   * Serves one request, unless the session already has as many in flight
   * as it may. A tool call answered busy is counted under its name
   * when the session routes it, else under {@link UNLISTED_TOOL}: a client
   * must not add a label to /metrics per name it makes up.
   */
  async bounded<T>(what: string, serve: () => Promise<T>, tool?: string): Promise<T> {
    const max = this.deps.maxCallsInFlight ?? MAX_CALLS_IN_FLIGHT;
    if (this.gated >= max) {
      if (tool !== undefined) this.deps.count?.(this.routes(tool) ? tool : UNLISTED_TOOL, 'busy');
      throw asSent(new McpError(BUSY_RPC_CODE, `this session already has ${max} calls in flight: wait for one to be answered, then send this one again`));
    }
    this.gated++;
    try {
      return await serve();
    } catch (error) {
      // As shielded() says, in the same turn: every error the session answers with goes out as sent (the client's SDK adds the one prefix).
      const shielded = this.shown(what, error);
      throw shielded instanceof McpError ? asSent(shielded) : shielded;
    } finally {
      this.gated--;
    }
  }

  /**
   * Serves one request; a store error it throws (a seat's lineage that
   * cannot be read, say) reaches the client in its code's words, and its own
   * message goes to the operator's log.
   */
  async shielded<T>(what: string, serve: () => Promise<T>): Promise<T> {
    try {
      return await serve();
    } catch (error) {
      throw this.shown(what, error);
    }
  }

  /** The error as the client is told it: a store error in its code's words (its own message logged), any other as it is. */
  private shown(what: string, error: unknown): unknown {
    const shown = storeErrorShown(error);
    if (shown === undefined) return error;
    this.deps.log?.(`plangate mcp: ${(error as { code: string }).code} in ${what} for ${this.seat}: ${(error as Error).message}`);
    return new McpError(RpcCode.InternalError, shown);
  }
}
