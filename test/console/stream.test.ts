/**
 * The console's event stream reader (web/src/stream.ts), run in Node against
 * a real HTTP server: a stream that goes silent without closing (a proxy or
 * a network that dropped it) is taken for dead and opened again, so the
 * page does not keep showing a queue as live that nobody updates.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';

// The console's sources are type-checked with the DOM's types (web/tsconfig.json), so this test
// loads the module by a path the Node type check does not follow, and states the part it uses.
type StreamState = 'connecting' | 'live' | 'retrying' | 'refused' | 'unavailable';
interface StreamModule {
  SILENCE_MS: number;
  follow(path: string, handlers: { onEvent(name: string, data: string): void; onState(state: StreamState, detail?: string): void }, options?: { silenceMs?: number }): () => void;
}
const STREAM = '../../src/adapters/console/web/src/stream.js';
const { follow, SILENCE_MS } = (await import(STREAM)) as StreamModule;

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function until(what: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A server that answers each stream with one event, then, as `keepAlive` says, comments every 50 ms or nothing at all. */
async function server(keepAlive: boolean): Promise<{ url: string; opened: () => number; live: () => number }> {
  let opened = 0;
  let live = 0;
  const open: ServerResponse[] = [];
  const timers: NodeJS.Timeout[] = [];
  const http = createServer((_req, res) => {
    opened++;
    live++;
    res.once('close', () => void live--);
    open.push(res);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`event: queue\ndata: {"n":${opened}}\n\n`);
    if (keepAlive) timers.push(setInterval(() => res.write(': keep-alive\n\n'), 50));
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
  cleanups.push(async () => {
    for (const t of timers) clearInterval(t);
    for (const res of open) res.destroy();
    http.closeAllConnections();
    await new Promise<void>((r) => http.close(() => r()));
  });
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/v1/review/queue/events`, opened: () => opened, live: () => live };
}

describe('the console stream', () => {
  it('opens a stream again that says nothing for longer than the silence allows, and says why', async () => {
    expect(SILENCE_MS).toBe(45_000); // three of the server's 15 s keep-alives
    const s = await server(false);
    const states: Array<[StreamState, string | undefined]> = [];
    const events: string[] = [];
    const stop = follow(s.url, { onEvent: (_name, data) => void events.push(data), onState: (st, d) => void states.push([st, d]) }, { silenceMs: 300 });
    cleanups.push(stop);
    await until(() => s.opened() >= 2);
    expect(events.slice(0, 2)).toEqual(['{"n":1}', '{"n":2}']);
    expect(states).toContainEqual(['retrying', 'nothing heard for 0 s']);
    expect(states.slice(0, 2)).toEqual([['connecting', undefined], ['live', undefined]]);
  });

  it('keeps a stream whose keep-alives arrive, however long it is quiet otherwise', async () => {
    const s = await server(true);
    const states: StreamState[] = [];
    const stop = follow(s.url, { onEvent: () => {}, onState: (st) => void states.push(st) }, { silenceMs: 300 });
    cleanups.push(stop);
    await new Promise((r) => setTimeout(r, 1_200));
    expect(s.opened()).toBe(1);
    expect(states).toEqual(['connecting', 'live']);
  });

  it('closes its connection when stopped, and when a handler throws, before it opens another', async () => {
    const s = await server(true);
    const stop = follow(s.url, { onEvent: () => { throw new SyntaxError('not JSON'); }, onState: () => {} }, { silenceMs: 10_000 });
    cleanups.push(stop);
    await until(() => s.opened() >= 3);
    expect(s.live()).toBeLessThanOrEqual(1);
    stop();
    await until(() => s.live() === 0);
  });
});
