/**
 * `/health` and `/metrics` of the gateway over HTTP, as `plangate serve`
 * answers them, and the server they share with `/mcp` when the clients
 * connect over Streamable HTTP (see ./http.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TokenSet } from '../http/auth.js';
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../http/limits.js';
import { errorAnswer, HttpCode, HttpError } from '../http/errors.js';
import { isOAuth } from '../http/oauth.js';
import { allowedFor, refusal, type Allowed, type AllowedOptions } from '../http/rebinding.js';
import type { McpGateway } from './gateway.js';

/** A server of the gateway's. */
export interface McpListener {
  /** `http://host:port/mcp` for the clients' endpoint; `http://host:port` for the status alone. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves only `/health` and `/metrics` (for a gateway whose client is on
 * stdio), open as in `plangate serve`: the details of `/health`, and the
 * metrics labelled with tool names, need an operator or policy token from `tokens`.
 *
 * @example
 * const status = await listenStatus(gateway, { port: 9464 }); // status.url: http://127.0.0.1:9464
 */
export async function listenStatus(gateway: McpGateway, options: { host?: string; port?: number; tokens?: TokenSet; log?: (text: string) => void } & AllowedOptions = {}): Promise<McpListener> {
  const log = options.log ?? ((t: string) => void process.stderr.write(`${t}\n`));
  const { server, base } = await serve(handler(gateway, log, options.tokens), options.host, options.port, options);
  return {
    url: base,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Handle = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Whether a request carries an operator or policy token: only those see the details of /health. */
function mayReadDetails(tokens: TokenSet | undefined, authorization: string | undefined): boolean {
  if (!tokens || authorization === undefined) return false;
  try {
    const role = tokens.authenticate(authorization).role;
    return role === 'operator' || role === 'policy';
  } catch {
    return false;
  }
}

/**
 * /health, /metrics and, when given, /mcp; errors as `plangate serve`
 * answers them. Without an operator or policy token /health says only ok or
 * degraded, as `plangate serve` does: the upstreams' commands, URLs and
 * errors are for operators.
 */
export function handler(gateway: McpGateway, log: (text: string) => void, tokens: TokenSet | undefined, mcp?: Handle): Handle {
  return async (req, res) => {
    // The clients' endpoint by its exact path needs no URL parsed (every other path is, as before).
    if (mcp && req.url === '/mcp') return mcpAnswer(mcp, req, res, log);
    const url = new URL(req.url ?? '/', 'http://localhost');
    try {
      if (mcp && url.pathname === '/mcp') return await mcp(req, res);
      const oauth = tokens && isOAuth(tokens) ? tokens : undefined;
      if (oauth && req.method === 'GET' && oauth.metadata.paths.includes(url.pathname)) {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(oauth.metadata.document));
        return;
      }
      if (oauth) await oauth.prepare(req.headers.authorization);
      if (url.pathname === '/health' && req.method === 'GET') {
        const h = gateway.health();
        const status = h.status === 'degraded' && url.searchParams.has('strict') ? 503 : 200;
        const body = mayReadDetails(tokens, req.headers.authorization) ? h : { status: h.status };
        res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
        return;
      }
      if (url.pathname === '/metrics' && req.method === 'GET') {
        const m = await gateway.metrics.render();
        const text = mayReadDetails(tokens, req.headers.authorization) ? m.text : withoutToolNames(m.text);
        res.writeHead(200, { 'content-type': m.contentType }).end(text);
        return;
      }
      throw new HttpError(HttpCode.RouteNotFound, `no route ${req.method} ${url.pathname}`);
    } catch (error) {
      answerError(res, log, error);
    }
  };
}

async function mcpAnswer(mcp: Handle, req: IncomingMessage, res: ServerResponse, log: (text: string) => void): Promise<void> {
  try {
    await mcp(req, res);
  } catch (error) {
    answerError(res, log, error);
  }
}

/** An error as `plangate serve` answers it. */
function answerError(res: ServerResponse, log: (text: string) => void, error: unknown): void {
  const a = errorAnswer(error);
  if (a.unexpected) log(`plangate mcp: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  if (!res.headersSent) res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers }).end(JSON.stringify(a.body));
  else res.end();
}

/** The metric families labelled with the upstreams' tool names: an operator's or a policy token's to read. */
export const TOOL_NAMED_METRICS: readonly string[] = ['plangate_mcp_tool_calls_total'];

/**
 * The exposition without the families labelled with tool names, for an
 * anonymous scrape: which tools sit behind the gateway, and which of them are
 * refused how often, is for operators (a scraper may send an operator or
 * policy token to read them).
 *
 * @example
 * withoutToolNames('plangate_mcp_tool_calls_total{tool="fs__write_file",outcome="refused"} 3\nplangate_mcp_sessions 1\n') // 'plangate_mcp_sessions 1\n'
 */
export function withoutToolNames(text: string): string {
  return text.split('\n').filter((line) => {
    const name = /^(?:# (?:HELP|TYPE) )?([A-Za-z_:][A-Za-z0-9_:]*)/.exec(line)?.[1];
    return name === undefined || !TOOL_NAMED_METRICS.includes(name);
  }).join('\n');
}

/**
 * Listens on `host:port`, refusing a request whose Host or Origin is not
 * allowed (403, before its token or body; see http/rebinding.ts). Throws
 * `invalid_input` for a non-loopback `host` without allowed hosts.
 */
export async function serve(handle: Handle, host = '127.0.0.1', port = 0, allowedOptions: AllowedOptions = {}) {
  let allowed: Allowed = allowedFor(host, port, allowedOptions);
  // A request must arrive in time: a client that starts a body and never ends it is cut off.
  const server = createServer({ requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS }, (req, res) => {
    const refused = refusal(allowed, req.headers);
    if (!refused) return void handle(req, res);
    const a = errorAnswer(refused);
    res.writeHead(a.status, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: a.body.error.message, data: { code: a.body.error.code } }, id: null }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const a = server.address() as AddressInfo;
  allowed = allowedFor(host, a.port, allowedOptions);
  return { server, base: `http://${a.address.includes(':') ? `[${a.address}]` : a.address}:${a.port}`, allowed };
}
