/**
 * How a failed upstream request is told apart: the connection failed (the
 * link goes down and reconnects), or the upstream answered something that
 * is not an MCP answer (a failed HTTP status, a proxy's page, a body that is
 * not JSON), which fails that request alone. The text of such an answer is
 * a web server's or a proxy's, not the tool's: the client is told what
 * happened in plangate's words, and the text is the operator's.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode as RpcCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** A tool call or any request the upstream does not answer because it is down. */
export class UpstreamDownError extends Error {
  constructor(readonly upstream: string, reason: string) {
    super(`upstream ${upstream} is down: ${reason}`);
  }
}

/** How the SDK's `McpError` prefixes the message it was given (and the client's SDK prefixes again). */
const MCP_ERROR_PREFIX = /^MCP error -?\d+: /;

/** The errors whose message is already what goes on the wire. */
const SENT = new WeakSet<McpError>();

/**
 * An error as it goes on the wire: its message without the "MCP error
 * <code>: " that the SDK's `McpError` put in front (a server sends `message`
 * as it is, and the client's SDK adds the prefix again). Applied once to an
 * upstream's answer (it stays as the upstream sent it) and once to each
 * error the gateway answers with, so no hop adds a prefix; an error already
 * as sent is returned unchanged.
 *
 * @example
 * asSent(new McpError(-32602, 'Tool x not found')).message // 'Tool x not found'
 */
export function asSent(error: McpError): McpError {
  if (SENT.has(error)) return error;
  const sent = new McpError(error.code, '', error.data);
  sent.message = error.message.replace(MCP_ERROR_PREFIX, '');
  SENT.add(sent);
  return sent;
}

/** Most characters of an upstream's own text kept for the operator. */
export const DETAIL_CHARS = 2000;

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Errors that mean the connection, not the upstream's answer, failed. A 404
 * over Streamable HTTP means the upstream no longer knows the session (it
 * restarted, or ended it): the protocol says to start a new one. Any other
 * status is an answer to that one request (a 502 or a 504 may come after the
 * call ran), and is judged by its number alone: its text holds the page the
 * upstream answered with, whose words prove nothing. So does a body that is
 * not JSON (its parse error quotes it).
 */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof StreamableHTTPError) return error.code === 404;
  if (error instanceof SyntaxError) return false;
  return /Connection closed|fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|Not connected/i.test(message(error));
}

/**
 * What the client is told of an answer that is not MCP (`error`), and what
 * the operator is (`detail`).
 *
 * @example
 * notAnMcpAnswer('web', 'tools/call', new StreamableHTTPError(502, 'Bad Gateway …')).error.message // 'upstream web answered tools/call with HTTP 502'
 */
export function notAnMcpAnswer(upstream: string, method: string, error: unknown): { error: McpError; detail: string } {
  const status = error instanceof StreamableHTTPError && typeof error.code === 'number' && error.code >= 100 ? error.code : undefined;
  const what = status !== undefined ? `HTTP ${status}` : 'a reply that is not MCP';
  return {
    error: new McpError(RpcCode.InternalError, `upstream ${upstream} answered ${method} with ${what}`, { upstream, ...(status !== undefined ? { status } : {}) }),
    detail: `${method} answered ${what}: ${message(error)}`,
  };
}
