/**
 * The node:http listener's streams against a client that stops reading: the
 * unsent bytes stay bounded and the stream is closed, instead of every event
 * after it piling up in the server's memory.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { serveNode, STREAM_UNSENT_BYTES } from '../../src/adapters/http/listener.js';

const EVENT = `data: ${'q'.repeat(512 * 1024)}\n\n`;

describe('a streamed answer', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  });

  it('is closed once its client leaves more than STREAM_UNSENT_BYTES unread, and writes nothing more', async () => {
    let written = 0;
    let mostUnsent = 0;
    let ended!: () => void;
    const over = new Promise<void>((r) => (ended = r));
    const streams = new Set<AbortController>();
    server = createServer((req, res) => {
      res.on('close', () => ended());
      void serveNode(async () => ({
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        body: '',
        stream: {
          contentType: 'text/event-stream',
          run: (write, signal) => new Promise<void>((done) => {
            // An event every few milliseconds, as a busy queue would send: far more than the client reads.
            const timer = setInterval(() => {
              mostUnsent = Math.max(mostUnsent, res.writableLength);
              write(EVENT);
              if (!signal.aborted) written++;
            }, 2);
            signal.addEventListener('abort', () => {
              clearInterval(timer);
              done();
            }, { once: true });
          }),
        },
      }), 1024, req, res, streams, () => {});
    });
    await new Promise<void>((r) => server?.listen(0, '127.0.0.1', () => r()));
    // A client that sends its request and then reads nothing.
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.write('GET /events HTTP/1.1\r\nhost: x\r\n\r\n');
    socket.pause();
    await over;
    const at = written;
    await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    expect(written).toBe(at);
    expect(streams.size).toBe(0);
    // Bounded: the last write before the stream was closed took it past the bound by one event at most.
    expect(mostUnsent).toBeLessThanOrEqual(STREAM_UNSENT_BYTES + EVENT.length);
    expect(written).toBeGreaterThan(STREAM_UNSENT_BYTES / EVENT.length);
  });
});
