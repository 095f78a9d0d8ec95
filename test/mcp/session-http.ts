/**
 * An HTTP server that gives every MCP session over Streamable HTTP a
 * transport of its own, as the SDK's stateful mode expects: a request
 * without an `mcp-session-id` starts a session, which `connect` joins to a
 * server of its own; one with an id the server does not know is a 404. Used by the test recorder and the bench's
 * upstream and floor.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface SessionHttp {
  http: Server;
  /** The transports of the sessions started so far, by session id. */
  transports: Map<string, StreamableHTTPServerTransport>;
}

/**
 * @example
 * const { http } = sessionHttp((t) => server().connect(t));
 * http.listen(0, '127.0.0.1');
 */
export function sessionHttp(
  connect: (transport: StreamableHTTPServerTransport) => Promise<void>,
  /** Sees each request (its parsed body) first, and answers it instead when it returns true. */
  answer?: (body: unknown, res: ServerResponse, req: IncomingMessage) => boolean,
): SessionHttp {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    if (answer?.(body, res, req)) return;
    const sid = req.headers['mcp-session-id'];
    let t = typeof sid === 'string' ? transports.get(sid) : undefined;
    // A session this server does not have (it ended, or the server restarted) is a 404, as the protocol says.
    if (!t && typeof sid === 'string') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
      return;
    }
    if (!t) {
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, created),
      });
      await connect(created);
      t = created;
    }
    await t.handleRequest(req, res, body);
  });
  return { http, transports };
}

/** Listens on a free loopback port; resolves with the MCP endpoint's URL. */
export async function listenLoopback(http: Server): Promise<string> {
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}
