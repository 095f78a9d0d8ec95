/**
 * The bound on one upstream message over Streamable HTTP: an event stream is
 * measured event by event (however its lines end, however its bytes are
 * split into chunks), any other body whole; the reader of an answer over
 * the bound gets an error, and the link is told before it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';

const BOUND = 4096;
import { EventMeter, MessageTooLargeError } from '../../src/adapters/mcp/message-bound.js';
import { createNodeFetch } from '../../src/adapters/mcp/node-fetch.js';

/** The gateway's fetch with the bound, telling `onExceeded`. */
const bounded = (onExceeded: (e: MessageTooLargeError) => void) => createNodeFetch({ limit: BOUND, onExceeded });


/** The most bytes any event reached, the chunks taken one after another. */
function most(chunks: string[]): number {
  const meter = new EventMeter();
  return Math.max(0, ...chunks.map((c) => meter.take(Buffer.from(c, 'latin1'))));
}

describe('EventMeter', () => {
  it('measures each event, ending at an empty line whatever ends the lines', () => {
    const event = (eol: string, n: number) => `event: message${eol}data: ${'x'.repeat(n)}${eol}${eol}`;
    for (const eol of ['\n', '\r\n', '\r']) {
      const size = event(eol, 1000).length;
      expect(most([event(eol, 1000).repeat(20)]), JSON.stringify(eol)).toBeLessThanOrEqual(size + 1);
      expect(most([event(eol, 1000), event(eol, 3000), event(eol, 10)])).toBeGreaterThanOrEqual(3000);
      expect(most([event(eol, 1000), event(eol, 3000), event(eol, 10)])).toBeLessThan(3100);
    }
  });

  it('counts an event of many short lines as one, and a line end split across chunks once', () => {
    // An event is counted up to the first byte of the empty line that ends it.
    const lines = Array.from({ length: 100 }, () => 'data: 0123456789\r\n').join('');
    expect(most([lines, '\r\n'])).toBe(lines.length + 1);
    // A CRLF cut between its CR and its LF is one line end, not an empty line that ends the event.
    expect(most(['data: a\r', '\ndata: b\r', '\n', 'data: c\r\n\r\n'])).toBe('data: a\r\ndata: b\r\ndata: c\r\n\r'.length);
    // An empty line cut the same way still ends the event.
    const meter = new EventMeter();
    meter.take(Buffer.from('data: a\r\n\r'));
    expect(meter.take(Buffer.from('\ndata: b'))).toBe(8);
  });
});

describe('the gateway\'s fetch with a bound, over a real HTTP server', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = undefined;
  });

  /** A server answering every request with these chunks, written one by one. */
  async function serve(type: string, chunks: string[]): Promise<string> {
    server = createServer(async (_, res) => {
      res.writeHead(200, { 'content-type': type });
      for (const c of chunks) {
        res.write(c);
        await new Promise((r) => setTimeout(r, 2));
      }
      res.end();
    });
    await new Promise<void>((r) => server?.listen(0, '127.0.0.1', () => r()));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  }

  it('lets through an event stream of many events each below the bound, however large in all', async () => {
    const events = Array.from({ length: 50 }, (_, i) => `id: ${i}\ndata: ${'x'.repeat(1000)}\n\n`);
    const url = await serve('text/event-stream', events);
    const told: Error[] = [];
    const res = await bounded((e) => void told.push(e))(url);
    expect(await res.text()).toBe(events.join(''));
    expect(told).toEqual([]);
  });

  it('ends an event stream at an event over the bound, telling the link before the reader', async () => {
    const url = await serve('text/event-stream; charset=utf-8', ['data: small\n\n', ...Array.from({ length: 10 }, () => `data: ${'y'.repeat(600)}\r\n`), '\r\n']);
    const order: string[] = [];
    const res = await bounded((e) => void order.push(`told: ${e.message}`))(url);
    await expect(res.text().finally(() => order.push('reader failed'))).rejects.toBeInstanceOf(MessageTooLargeError);
    expect(order).toEqual([`told: an upstream message is larger than ${BOUND} bytes`, 'reader failed']);
  });

  it('bounds any other body whole', async () => {
    const below = await serve('application/json', [JSON.stringify({ pad: 'z'.repeat(BOUND - 100) })]);
    expect((await (await bounded(() => {})(below)).json()) as object).toHaveProperty('pad');
    server?.close();
    const told: Error[] = [];
    const over = await serve('application/json', ['{"pad": "', 'z'.repeat(BOUND), '"}']);
    await expect((await bounded((e) => void told.push(e))(over)).json()).rejects.toBeInstanceOf(MessageTooLargeError);
    expect(told).toHaveLength(1);
    // A page without a content type is bounded the same way, not read as events.
    const page = await serve('', ['\n\n'.repeat(BOUND)]);
    await expect((await bounded(() => {})(page)).text()).rejects.toBeInstanceOf(MessageTooLargeError);
  });
});
