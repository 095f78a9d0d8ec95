/**
 * Malformed input to the MCP gateway over raw Streamable HTTP — arguments and `_meta` nested 100 000
 * deep, tool names that are Object.prototype keys, 65 arguments — each is a
 * JSON-RPC error, nothing reaches the upstream, and the gateway keeps
 * serving. No other test sends these to the gateway (guards-hostile-input
 * covers `plangate serve`).
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { call, closeAfterEach, httpHarness, makeWorld, RAW_HEADERS, RAW_INIT, recorded, recorderUpstream, textOf, TOKENS } from '../mcp/support.js';


describe('hostile input to the MCP gateway', () => {
  const closers = closeAfterEach();

  it('answers each with a JSON-RPC error, forwards nothing, and keeps serving', async () => {
    const w = makeWorld();
    const h = await httpHarness(w, [recorderUpstream(w)]);
    closers.push(() => h.close());
    const auth = { authorization: `Bearer ${TOKENS['0xWORKER']}` };
    const init = await fetch(h.listener.url, { method: 'POST', headers: { ...RAW_HEADERS, ...auth }, body: JSON.stringify(RAW_INIT) });
    const sid = init.headers.get('mcp-session-id') as string;
    await init.text();
    const send = async (id: number, method: string, params: string): Promise<Record<string, unknown>> => {
      const r = await fetch(h.listener.url, {
        method: 'POST',
        headers: { ...RAW_HEADERS, ...auth, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
        body: `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params}}`,
      });
      const text = await r.text();
      // Skip the event store's priming event (an empty data line): the answer is the first event with data.
      const data = text.split('\n').find((l) => l.startsWith('data: ') && l.length > 6);
      return JSON.parse(data ? data.slice(6) : text);
    };
    const deep = '{"a":['.repeat(50_000) + '1' + ']}'.repeat(50_000);
    // peek is read-only: allowed, so only a failure before forwarding keeps it from the upstream.
    expect(await send(2, 'tools/call', `{"name":"peek","arguments":{"what":${deep}}}`)).toHaveProperty('error');
    expect(await send(3, 'tools/call', `{"name":"peek","arguments":{"what":"x"},"_meta":${deep}}`)).toHaveProperty('error');
    for (const [i, name] of ['__proto__', 'constructor', 'hasOwnProperty'].entries()) {
      expect(await send(10 + i, 'tools/call', `{"name":"${name}","arguments":{}}`)).toMatchObject({ error: { code: -32602 } });
    }
    const many = JSON.stringify(Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 1])));
    expect(await send(20, 'tools/call', `{"name":"peek","arguments":${many}}`)).toMatchObject({ error: { code: -32602 } });
    expect(recorded(w)).toEqual([]);

    const c = await h.client('0xWORKER');
    expect(textOf(await call(c, 'peek', { what: 'sky' }))).toBe('saw sky');
  }, 60_000);

  it('closes the notification stream of a client that stops reading it, and keeps serving', async () => {
    const w = makeWorld();
    // The send timeout shortened from 30 s for the test.
    const h = await httpHarness(w, [recorderUpstream(w)], 100, [], { sendTimeoutMs: 500 });
    closers.push(() => h.close());
    const auth = { authorization: `Bearer ${TOKENS['0xWORKER']}` };
    const init = await fetch(h.listener.url, { method: 'POST', headers: { ...RAW_HEADERS, ...auth }, body: JSON.stringify(RAW_INIT) });
    const sid = init.headers.get('mcp-session-id') as string;
    await init.text();
    // The session's notification stream, on a socket that reads nothing after its request.
    const { hostname, port } = new URL(h.listener.url);
    const socket = connect(Number(port), hostname);
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write(`GET /mcp HTTP/1.1\r\nhost: x\r\naccept: text/event-stream\r\nauthorization: ${auth.authorization}\r\nmcp-session-id: ${sid}\r\nmcp-protocol-version: 2025-11-25\r\n\r\n`);
    socket.pause();
    let got = 0;
    socket.on('data', (c: Buffer) => void (got += c.length));
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    // 30 MB of log messages for the session: far more than a socket's buffers hold.
    const flood = await fetch(h.listener.url, {
      method: 'POST',
      headers: { ...RAW_HEADERS, ...auth, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'flood', arguments: { count: 150, bytes: 200_000 } } }),
    });
    expect(await flood.text()).toContain('sent 150');
    // Past the send timeout the gateway has dropped the stream: reading again, the client gets what
    // the sockets' buffers held, then the end; not the 30 MB, and not a stream left open.
    await new Promise((r) => setTimeout(r, 1500));
    socket.resume();
    await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error('the stream was not closed')), 10_000))]);
    expect(got).toBeGreaterThan(0);
    expect(got).toBeLessThan(20_000_000);
    const c = await h.client('0xWORKER');
    expect(textOf(await call(c, 'peek', { what: 'sky' }))).toBe('saw sky');
  }, 60_000);
});
