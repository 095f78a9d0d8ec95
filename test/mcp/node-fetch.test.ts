/**
 * The gateway's fetch for Streamable HTTP upstreams (node:http on a
 * keep-alive agent): what the SDK's client transport relies on — the body
 * and headers both ways, streamed answers, a refused connection, aborts —
 * one connection reused, no listener left on the caller's signal, and an
 * HTTP upstream that goes away seen as down.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getEventListeners, getMaxListeners, setMaxListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeFetch } from '../../src/adapters/mcp/node-fetch.js';
import { recorderHttp } from './recorder.js';
import { call, httpHarness, makeWorld, textOf } from './support.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

async function serve(handler: (body: string, headers: Record<string, unknown>, res: ServerResponse) => void): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const s = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    handler(Buffer.concat(chunks).toString('utf8'), { ...req.headers, method: req.method }, res);
  });
  s.on('connection', () => void connections++);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/mcp`, connections: () => connections };
}

describe('nodeFetch', () => {
  it('sends the method, headers and body, and answers status, headers and body as a Response', async () => {
    const seen: Array<{ body: string; headers: Record<string, unknown> }> = [];
    const { url } = await serve((body, headers, res) => {
      seen.push({ body, headers });
      if (headers['method'] === 'DELETE') return void res.writeHead(204).end();
      res.writeHead(201, { 'content-type': 'application/json', 'mcp-session-id': 'abc' }).end('{"ok":true}');
    });
    const headers = new Headers({ accept: 'application/json, text/event-stream', 'content-type': 'application/json' });
    const r = await nodeFetch(url, { method: 'POST', headers, body: '{"jsonrpc":"2.0"}' });
    expect(r.status).toBe(201);
    expect(r.ok).toBe(true);
    expect(r.headers.get('mcp-session-id')).toBe('abc');
    expect(await r.json()).toEqual({ ok: true });
    expect(seen[0]?.body).toBe('{"jsonrpc":"2.0"}');
    expect(seen[0]?.headers).toMatchObject({ method: 'POST', accept: 'application/json, text/event-stream', 'content-type': 'application/json' });

    const empty = await nodeFetch(new URL(url), { method: 'DELETE' });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it('keeps one connection for sequential requests and leaves no listener on the caller\'s signal', async () => {
    const { url, connections } = await serve((_b, _h, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('x'));
    const signal = new AbortController().signal;
    for (let i = 0; i < 50; i++) expect(await (await nodeFetch(url, { method: 'POST', body: String(i), signal })).text()).toBe('x');
    await new Promise((r) => setImmediate(r));
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    expect(connections()).toBe(1);
  });

  it('takes many concurrent requests on one signal without a leak warning, and leaves no listener after them', async () => {
    const { url } = await serve((body, _h, res) => void setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end(body), 20));
    const warnings: Error[] = [];
    const onWarning = (w: Error) => void warnings.push(w);
    process.on('warning', onWarning);
    try {
      const signal = new AbortController().signal;
      const answers = await Promise.all(Array.from({ length: 40 }, async (_, i) => (await nodeFetch(url, { method: 'POST', body: String(i), signal })).text()));
      expect(answers).toEqual(Array.from({ length: 40 }, (_, i) => String(i)));
      await new Promise((r) => setTimeout(r, 10));
      expect(getEventListeners(signal, 'abort')).toHaveLength(0);
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('only ever raises a listener limit set on the signal elsewhere', async () => {
    const { url } = await serve((body, _h, res) => void setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end(body), 20));
    const raised = new AbortController().signal;
    setMaxListeners(500, raised);
    await Promise.all(Array.from({ length: 30 }, async (_, i) => (await nodeFetch(url, { method: 'POST', body: String(i), signal: raised })).text()));
    expect(getMaxListeners(raised)).toBe(500);
    // No limit at all (0) stays so: afterwards, many listeners on the signal still draw no warning.
    const unlimited = new AbortController().signal;
    setMaxListeners(0, unlimited);
    const answers = await Promise.all(Array.from({ length: 30 }, async (_, i) => (await nodeFetch(url, { method: 'POST', body: String(i), signal: unlimited })).text()));
    expect(answers).toHaveLength(30);
    const warnings: Error[] = [];
    const onWarning = (w: Error) => void warnings.push(w);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 100; i++) unlimited.addEventListener('abort', () => {});
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('streams an answer as it comes, and an abort ends the stream and the request', async () => {
    let open: ServerResponse | undefined;
    const { url } = await serve((_b, _h, res) => {
      open = res;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message\ndata: 1\n\n');
    });
    const abort = new AbortController();
    const r = await nodeFetch(url, { method: 'POST', body: '{}', signal: abort.signal });
    const reader = (r.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('event: message\ndata: 1\n\n');
    const next = reader.read();
    abort.abort();
    await expect(next).rejects.toThrow();
    await new Promise<void>((resolve) => (open as ServerResponse).once('close', () => resolve()));
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(0);
  });

  it('rejects a refused connection as fetch does, and an aborted signal at once', async () => {
    const { url } = await serve(() => {});
    const port = new URL(url).port;
    servers[0]?.close();
    await new Promise((r) => setTimeout(r, 20));
    const error = await nodeFetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('fetch failed');
    expect(((error as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    const abort = new AbortController();
    abort.abort(new Error('stop'));
    await expect(nodeFetch(url, { signal: abort.signal })).rejects.toThrow('stop');
    await expect(nodeFetch('ftp://127.0.0.1/x')).rejects.toThrow(/not http/);
  });

  it('follows a 307 or 308 within the same origin with the same method and body, and no other', async () => {
    const other = await serve((_b, _h, res) => void res.writeHead(200).end('elsewhere'));
    const seen: string[] = [];
    const { url } = await serve((body, headers, res) => {
      seen.push(`${String(headers['method'])} ${body} ${String(headers['authorization'])}`);
      if (seen.length === 1) return void res.writeHead(307, { location: '/mcp2' }).end();
      if (seen.length === 2) return void res.writeHead(308, { location: other.url }).end();
      res.writeHead(200).end('here');
    });
    const init = { method: 'POST', body: '{"id":1}', headers: { authorization: 'Bearer t' } };
    const moved = await nodeFetch(url, init);
    expect(moved.status).toBe(308);
    expect(moved.headers.get('location')).toBe(other.url);
    expect(seen).toEqual(['POST {"id":1} Bearer t', 'POST {"id":1} Bearer t']);
    expect(await (await nodeFetch(url, init)).text()).toBe('here');
  });
});

describe('a Streamable HTTP upstream through nodeFetch', () => {
  it('serves calls, and when the upstream goes away its tools say so and the link is down', async () => {
    const w = makeWorld(`
planRequired:
  workspace: { mode: side_effects, windowMin: 10 }
`);
    const up = await recorderHttp(w.record);
    const h = await httpHarness(w, [{ name: 'rec', kind: 'http', url: up.url }], 60_000);
    try {
      const c = await h.client('0xWORKER');
      expect(textOf(await call(c, 'peek', { what: 'the sky' }))).toBe('saw the sky');
      await up.close();
      const down = await call(c, 'peek', { what: 'anything' });
      expect(down.structuredContent).toMatchObject({ check: 'upstream', code: 'upstream_down:rec', reason: 'upstream_down' });
      expect(h.gateway.health().upstreams[0]?.state).toBe('down');
    } finally {
      await h.close();
    }
  }, 30_000);
});
