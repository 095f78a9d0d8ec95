/**
 * The gateway for clients over Streamable HTTP: `POST/GET/DELETE /mcp`
 * through the SDK's Streamable HTTP transport (node-transport.ts; stateful: one MCP
 * session per client, the session id issued at initialize), plus `/health`
 * and `/metrics`. The seat comes from the bearer token, as in
 * `plangate serve`; a session belongs to the seat that opened it, and
 * another token cannot use it.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { TokenSet } from '../http/auth.js';
import { busyError, MIN_UPLOAD_RATE, ownShareError, readBody as readBodyBytes, SEND_TIMEOUT_MS, sendTimeout, tooSlowError, type UploadRate } from '../http/limits.js';
import { sdkHosts, type Allowed, type AllowedOptions } from '../http/rebinding.js';
import { isOAuth } from '../http/oauth.js';
import { HttpCode, HttpError } from '../http/errors.js';
import { FairShares, shareOf, type Ticket } from '../http/shares.js';
import { SessionRate } from './session-rate.js';
import { wholeNumber, type McpGateway } from './gateway.js';
import type { GatewaySession } from './session.js';
import { handler, serve, type McpListener } from './status.js';
import { MCP_SESSIONS_PER_SEAT } from './limits.js';
import { SessionEventStore } from './event-store.js';
import { NodeStreamableTransport } from './node-transport.js';

export interface McpListenOptions extends AllowedOptions {
  host?: string;
  /** 0 for any free port. */
  port?: number;
  tokens: TokenSet;
  /** Largest request body in bytes (default 4 MiB). */
  bodyLimit?: number;
  /**
   * Each seat's share of the bodies being read and the requests in flight
   * (see http/shares.ts); by default one per listener, each seat at most
   * two bodies' worth of the process's pool.
   */
  shares?: FairShares;
  /** The slowest a request body may arrive (default MIN_UPLOAD_RATE). */
  uploadRate?: UploadRate;
  /** How often a seat may open a session (default: 16 at once, then one every 10 s). */
  sessionRate?: SessionRate;
  /** How long a response may wait for its client to read before it is dropped (default SEND_TIMEOUT_MS, 30 s). */
  sendTimeoutMs?: number;
  /** Where unexpected errors are logged. */
  log?: (text: string) => void;
  /**
   * A session with no request or stream open for this long is closed, and
   * its upstream connections with it (default 1 hour); the client gets 404
   * and initializes again, as the protocol says.
   */
  sessionIdleMs?: number;
  /**
   * Most sessions one seat may hold open (default 16): each has upstream
   * connections of its own (a process per stdio upstream). At the bound, a
   * new initialize closes the seat's least recently used session that has
   * had nothing in flight for `evictIdleMs` (its client gets 404 and
   * initializes again, as the protocol says), or is answered 429 when there
   * is none: sessions are never closed faster than they go idle, so a loop
   * of initialize cannot turn into a loop of process starts.
   */
  maxSessionsPerSeat?: number;
  /** How long a session must have had nothing in flight before a new one of its seat may close it (default 60 s). */
  evictIdleMs?: number;
}

/** Default largest request body. */
export const MCP_BODY_LIMIT = 4 * 1024 * 1024;

/** Default time a session must go unused before a new session of its seat may take its place. */
export const MCP_EVICT_IDLE_MS = 60_000;

/** Default time a session may go without a request before it is closed. */
export const MCP_SESSION_IDLE_MS = 60 * 60 * 1000;

interface Open {
  transport: NodeStreamableTransport;
  session: GatewaySession;
  seat: string;
  lastSeen: number;
  /** Requests and streams of the session still open. */
  active: number;
  /** Of those, the POSTs (calls and other messages) not yet answered. */
  posts: number;
}

function rpcError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/**
 * Makes room for one more session of `seat` under `most`: closes its least
 * recently used session with nothing in flight for `idleMs`. False when
 * there is none.
 */
function makeRoom(open: Map<string, Open>, seat: string, most: number, idleMs: number): boolean {
  const mine = [...open].filter(([, o]) => o.seat === seat);
  if (mine.length < most) return true;
  const now = Date.now();
  const idle = mine.filter(([, o]) => o.posts === 0 && now - o.lastSeen >= idleMs).sort(([, a], [, b]) => a.lastSeen - b.lastSeen);
  for (const [id, o] of idle.slice(0, mine.length - most + 1)) {
    open.delete(id);
    void o.transport.close().catch(() => {});
  }
  return idle.length >= mine.length - most + 1;
}

/** Reads a JSON body, holding its bytes against the seat's share while it arrives (see http/limits.ts, http/shares.ts). */
async function readBody(req: IncomingMessage, limit: number, ticket: Ticket, rate: UploadRate): Promise<unknown> {
  const read = await readBodyBytes(req, limit, ticket.budget, rate);
  if (read === 'aborted') return CLIENT_GONE;
  // The answer says why and closes the connection; the rest of the body is not read.
  if (read === 'too_large') throw new HttpError(HttpCode.BodyTooLarge, `the body is larger than ${limit} bytes`, [], { connection: 'close' });
  if (read === 'too_slow') throw tooSlowError(rate);
  if (read === 'busy') throw ticket.refusal() === 'own_share' ? ownShareError('its share of request bodies being read') : busyError(ticket.budget);
  const text = read.toString('utf8');
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    throw new HttpError(HttpCode.MalformedJson, 'the body is not JSON');
  }
}

/**
 * Drops a response whose client has stopped reading (see `sendTimeout`):
 * the SDK's transport queues every message of a stream (the session's
 * notifications, a long call's progress) until it can be written, so a
 * stream held open by a client that reads nothing would otherwise grow in
 * memory for as long as it stays open. The SDK writes through `res.write`.
 */
function dropWhenUnread(res: ServerResponse, ms: number): void {
  const wrote = sendTimeout(res, ms);
  const write = res.write;
  res.write = function (this: ServerResponse, ...args: Parameters<ServerResponse['write']>): boolean {
    const taken = write.apply(this, args);
    wrote(taken);
    return taken;
  } as ServerResponse['write'];
}

/** What a body read resolves to when its client went away before the end. */
const CLIENT_GONE = Symbol('client gone');

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
  const perSeat = options.maxSessionsPerSeat ?? MCP_SESSIONS_PER_SEAT;
  wholeNumber('maxSessionsPerSeat', perSeat, 1);
  const evictIdleMs = options.evictIdleMs ?? MCP_EVICT_IDLE_MS;
  wholeNumber('evictIdleMs', evictIdleMs, 0);
  const shares = options.shares ?? new FairShares({ perCaller: 2 * limit });
  const rate = options.uploadRate ?? MIN_UPLOAD_RATE;
  const sessionRate = options.sessionRate ?? new SessionRate();

  async function handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    dropWhenUnread(res, options.sendTimeoutMs ?? SEND_TIMEOUT_MS);
    if (isOAuth(options.tokens)) await options.tokens.prepare(req.headers.authorization);
    const principal = options.tokens.authenticate(req.headers.authorization);
    if (principal.role !== 'agent') throw new HttpError(HttpCode.Forbidden, 'the MCP gateway takes agent tokens: the seat of every call comes from the token');
    const ticket = shares.enter(shareOf(principal));
    if (ticket === 'too_many') throw ownShareError('its most requests in flight');
    res.once('close', () => ticket.leave());
    const body = req.method === 'POST' ? await readBody(req, limit, ticket, rate) : undefined;
    if (body === CLIENT_GONE) return void res.destroy();
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const entry = open.get(sid);
      // Another seat's session is answered as if it did not exist.
      if (!entry || entry.seat !== principal.seat) return rpcError(res, 404, 'Session not found');
      const post = req.method === 'POST' ? 1 : 0;
      entry.active++;
      entry.posts += post;
      entry.lastSeen = Date.now();
      res.once('close', () => {
        entry.active--;
        entry.posts -= post;
        entry.lastSeen = Date.now();
      });
      return entry.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !(isInitializeRequest(body) || (Array.isArray(body) && body.some(isInitializeRequest)))) {
      return rpcError(res, 400, 'Bad Request: send initialize first, then the mcp-session-id it returns');
    }
    const wait = sessionRate.take(principal.seat);
    if (wait > 0) {
      return rpcError(res, 429, `Too many sessions opened: ${principal.seat} may open ${sessionRate.burst} at once, then one every ${sessionRate.refillMs / 1000} s; reuse a session`, { 'retry-after': String(Math.ceil(wait / 1000)) });
    }
    if (!makeRoom(open, principal.seat, perSeat, evictIdleMs)) {
      return rpcError(res, 429, `Too many sessions: ${principal.seat} has ${perSeat} open, each used within ${evictIdleMs / 1000} s; end one (DELETE /mcp) or retry later`, { 'retry-after': String(Math.max(1, Math.ceil(evictIdleMs / 1000))) });
    }
    const session = gateway.open({ seat: principal.seat });
    const transport = new NodeStreamableTransport({
      sessionIdGenerator: () => randomUUID(),
      // The listener refuses these first (see serve); the SDK's own check stands behind it.
      enableDnsRebindingProtection: true,
      allowedHosts: sdkHosts(allowed, port),
      allowedOrigins: [...allowed.origins],
      eventStore: new SessionEventStore(),
      // The initialize itself is in flight until answered (it waits for the upstreams): not idle meanwhile.
      onsessioninitialized: (id) => {
        const entry: Open = { transport, session, seat: principal.seat, lastSeen: Date.now(), active: 1, posts: 1 };
        open.set(id, entry);
        res.once('close', () => {
          entry.active--;
          entry.posts--;
          entry.lastSeen = Date.now();
        });
      },
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
  let allowed: Allowed = { hosts: [], origins: [] };
  let port = 0;

  const idleMs = options.sessionIdleMs ?? MCP_SESSION_IDLE_MS;
  // A client that went away without ending its session does not keep its upstream processes alive.
  const sweep = setInterval(() => {
    const now = Date.now();
    sessionRate.sweep();
    for (const [id, o] of open) {
      if (o.active > 0 || now - o.lastSeen < idleMs) continue;
      open.delete(id);
      void o.transport.close().catch(() => {});
    }
  }, Math.max(50, Math.min(idleMs / 4, 60_000)));
  sweep.unref();

  const { server, base, allowed: bound } = await serve(handle, options.host, options.port, options);
  allowed = bound;
  port = Number(new URL(base).port);
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
