/**
 * The gateway for clients over Streamable HTTP: `POST/GET/DELETE /mcp`
 * through the SDK's `StreamableHTTPServerTransport` (stateful: one MCP
 * session per client, the session id issued at initialize), plus `/health`
 * and `/metrics`. The seat comes from the bearer token, as in
 * `plangate serve`; a session belongs to the seat that opened it, and
 * another token cannot use it.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { TokenSet } from '../http/auth.js';
import { errorAnswer, HttpCode, HttpError } from '../http/errors.js';
import type { McpGateway } from './gateway.js';
import type { GatewaySession } from './session.js';

export interface McpListenOptions {
  host?: string;
  /** 0 for any free port. */
  port?: number;
  tokens: TokenSet;
  /** Largest request body in bytes (default 4 MiB). */
  bodyLimit?: number;
  /** Where unexpected errors are logged. */
  log?: (text: string) => void;
  /**
   * A session with no request or stream open for this long is closed, and
   * its upstream connections with it (default 1 hour); the client gets 404
   * and initializes again, as the protocol says.
   */
  sessionIdleMs?: number;
}

export interface McpListener {
  /** `http://host:port/mcp` */
  url: string;
  close(): Promise<void>;
}

/** Default largest request body. */
export const MCP_BODY_LIMIT = 4 * 1024 * 1024;

/** Default time a session may go without a request before it is closed. */
export const MCP_SESSION_IDLE_MS = 60 * 60 * 1000;

interface Open {
  transport: StreamableHTTPServerTransport;
  session: GatewaySession;
  seat: string;
  lastSeen: number;
  /** Requests and streams of the session still open. */
  active: number;
}

function rpcError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

function readBody(req: IncomingMessage, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new HttpError(HttpCode.BodyTooLarge, `the body is larger than ${limit} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text === '' ? undefined : JSON.parse(text));
      } catch {
        reject(new HttpError(HttpCode.MalformedJson, 'the body is not JSON'));
      }
    });
    req.on('error', reject);
  });
}

/**
 * Serves the gateway over Streamable HTTP.
 *
 * @example
 * const l = await listenMcp(gateway, { port: 0, tokens });
 * const client = new Client({ name: 'host', version: '1' });
 * await client.connect(new StreamableHTTPClientTransport(new URL(l.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
 */
export async function listenMcp(gateway: McpGateway, options: McpListenOptions): Promise<McpListener> {
  const open = new Map<string, Open>();
  const limit = options.bodyLimit ?? MCP_BODY_LIMIT;
  const log = options.log ?? ((t: string) => void process.stderr.write(`${t}\n`));

  async function handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const principal = options.tokens.authenticate(req.headers.authorization);
    if (principal.role !== 'agent') throw new HttpError(HttpCode.Forbidden, 'the MCP gateway takes agent tokens: the seat of every call comes from the token');
    const body = req.method === 'POST' ? await readBody(req, limit) : undefined;
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const entry = open.get(sid);
      // Another seat's session is answered as if it did not exist.
      if (!entry || entry.seat !== principal.seat) return rpcError(res, 404, 'Session not found');
      entry.active++;
      res.once('close', () => {
        entry.active--;
        entry.lastSeen = Date.now();
      });
      return entry.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !(isInitializeRequest(body) || (Array.isArray(body) && body.some(isInitializeRequest)))) {
      return rpcError(res, 400, 'Bad Request: send initialize first, then the mcp-session-id it returns');
    }
    const session = gateway.open({ seat: principal.seat });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void open.set(id, { transport, session, seat: principal.seat, lastSeen: Date.now(), active: 0 }),
    });
    transport.onclose = () => {
      if (transport.sessionId) open.delete(transport.sessionId);
    };
    await session.connect(transport);
    await transport.handleRequest(req, res, body);
    // An initialize the transport refused (a wrong Accept header, a batch) issued no session id:
    // nobody can use, end or sweep this session, so it is closed now.
    if (transport.sessionId === undefined) await transport.close();
  }

  const handle = handler(gateway, log, options.tokens, handleMcp);

  const idleMs = options.sessionIdleMs ?? MCP_SESSION_IDLE_MS;
  // A client that went away without ending its session does not keep its upstream processes alive.
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [id, o] of open) {
      if (o.active > 0 || now - o.lastSeen < idleMs) continue;
      open.delete(id);
      void o.transport.close().catch(() => {});
    }
  }, Math.max(50, Math.min(idleMs / 4, 60_000)));
  sweep.unref();

  const { server, base } = await serve(handle, options.host, options.port);
  return {
    url: `${base}/mcp`,
    async close() {
      clearInterval(sweep);
      await Promise.all([...open.values()].map((o) => o.transport.close().catch(() => {})));
      open.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Serves only `/health` and `/metrics` (for a gateway whose client is on
 * stdio), open as in `plangate serve`: the details of `/health` need an
 * operator or policy token from `tokens`.
 *
 * @example
 * const status = await listenStatus(gateway, { port: 9464 }); // status.url: http://127.0.0.1:9464
 */
export async function listenStatus(gateway: McpGateway, options: { host?: string; port?: number; tokens?: TokenSet; log?: (text: string) => void } = {}): Promise<McpListener> {
  const log = options.log ?? ((t: string) => void process.stderr.write(`${t}\n`));
  const { server, base } = await serve(handler(gateway, log, options.tokens), options.host, options.port);
  return {
    url: base,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type Handle = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

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
function handler(gateway: McpGateway, log: (text: string) => void, tokens: TokenSet | undefined, mcp?: Handle): Handle {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    try {
      if (mcp && url.pathname === '/mcp') return await mcp(req, res);
      if (url.pathname === '/health' && req.method === 'GET') {
        const h = gateway.health();
        const status = h.status === 'degraded' && url.searchParams.has('strict') ? 503 : 200;
        const body = mayReadDetails(tokens, req.headers.authorization) ? h : { status: h.status };
        res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
        return;
      }
      if (url.pathname === '/metrics' && req.method === 'GET') {
        const m = await gateway.metrics.render();
        res.writeHead(200, { 'content-type': m.contentType }).end(m.text);
        return;
      }
      throw new HttpError(HttpCode.RouteNotFound, `no route ${req.method} ${url.pathname}`);
    } catch (error) {
      const a = errorAnswer(error);
      if (a.unexpected) log(`plangate mcp: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
      if (!res.headersSent) res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers }).end(JSON.stringify(a.body));
      else res.end();
    }
  };
}

async function serve(handle: Handle, host = '127.0.0.1', port = 0) {
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const a = server.address() as AddressInfo;
  return { server, base: `http://${a.address.includes(':') ? `[${a.address}]` : a.address}:${a.port}` };
}
