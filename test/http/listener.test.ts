/**
 * The node:http listener's streams against a client that stops reading: the
 * stream learns the client is behind, the unsent bytes stay bounded, and
 * the stream is closed after the send timeout, instead of every event after
 * it piling up in the server's memory.
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

  /**
   * Serves one stream that writes EVENT every few milliseconds (only when its client is ready,
   * with `coalesce`), to a client that sends its request and then reads nothing.
   */
  async function stalledStream(coalesce: boolean) {
    const seen = { written: 0, mostUnsent: 0, serverClosed: false };
    const streams = new Set<AbortController>();
    let closed!: () => void;
    const over = new Promise<void>((r) => (closed = r));
    server = createServer((req, res) => {
      res.on('close', () => {
        seen.serverClosed = true;
        closed();
      });
      void serveNode(async () => ({
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        body: '',
        stream: {
          contentType: 'text/event-stream',
          run: (write, signal) => new Promise<void>((done) => {
            const timer = setInterval(() => {
              seen.mostUnsent = Math.max(seen.mostUnsent, res.writableLength);
              if (coalesce && !write.ready()) return;
              write(EVENT);
              seen.written++;
            }, 5);
            signal.addEventListener('abort', () => {
              clearInterval(timer);
              done();
            }, { once: true });
          }),
        },
      }), req, res, { limit: 1024, streams, onTooLarge: () => {}, sendTimeoutMs: 300 });
    });
    await new Promise<void>((r) => server?.listen(0, '127.0.0.1', () => r()));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.write('GET /events HTTP/1.1\r\nhost: x\r\n\r\n');
    socket.pause();
    return { seen, streams, over, socket };
  }

  it('is closed once its client has read nothing for the send timeout, and writes nothing more', async () => {
    const { seen, streams, over, socket } = await stalledStream(false);
    await over;
    const at = seen.written;
    await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    expect(seen.written).toBe(at);
    expect(streams.size).toBe(0);
    expect(seen.mostUnsent).toBeLessThanOrEqual(STREAM_UNSENT_BYTES + EVENT.length);
  });

  it('tells a stream of whole states that its client is behind, so at most one waits unsent', async () => {
    const { seen, over, socket } = await stalledStream(true);
    await over;
    socket.destroy();
    // What waits in the process is the one state written when the socket filled, not one per tick.
    expect(seen.mostUnsent).toBeLessThanOrEqual(2 * EVENT.length);
    expect(seen.serverClosed).toBe(true);
  });
});
