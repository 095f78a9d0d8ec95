/**
 * The SDK transport to one upstream: a command over stdio (its stderr's
 * tail kept for the operator's messages) or a Streamable HTTP URL, each
 * bounded in the size of a message; and the order in which the SDK's
 * client is handed what arrives on it.
 */
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Readable } from 'node:stream';
import { createNodeFetch } from './node-fetch.js';
import type { UpstreamSpec } from './upstream.js';

/** Bytes of an upstream's stderr kept to explain why it stopped. */
const STDERR_TAIL = 2048;
/** The most a pipe hands over at once, which the SDK's stdio read buffer counts with the message it holds. */
const STDIO_CHUNK_BYTES = 64 * 1024;

/** The last bytes a stdio upstream wrote on stderr. */
export interface StderrTail {
  text: string;
}

/**
 * A transport to `spec`'s upstream. Over HTTP a message larger than
 * `maxMessageBytes` is cut off and `onTooLarge` is told (with the
 * transport, so a link can tell its own from a replaced one); over stdio
 * the SDK's read buffer is bounded and tells the client (its `onerror`).
 *
 * @example
 * const { transport, stderr } = upstreamTransport(spec, 10 * 1024 * 1024, () => link.down());
 */
export function upstreamTransport(spec: UpstreamSpec, maxMessageBytes: number, onTooLarge: (transport: Transport) => void): { transport: Transport; stderr?: StderrTail } {
  if (spec.kind === 'http') {
    const transport: StreamableHTTPClientTransport = new StreamableHTTPClientTransport(new URL(spec.url), {
      fetch: createNodeFetch({ limit: maxMessageBytes, onExceeded: () => onTooLarge(transport) }),
      ...(spec.headers ? { requestInit: { headers: spec.headers } } : {}),
    });
    return { transport };
  }
  const transport = new StdioClientTransport({
    command: spec.command,
    args: spec.args,
    stderr: 'pipe',
    // The SDK measures what it holds of a message plus the pipe's next chunk (up to 64 KiB):
    // so a message of the bound itself, arriving behind the end of another, still fits.
    maxBufferSize: maxMessageBytes + STDIO_CHUNK_BYTES,
    ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
    ...(spec.env !== undefined ? { env: spec.env } : {}),
  });
  const stderr: StderrTail = { text: '' };
  (transport.stderr as Readable | null)?.on('data', (chunk: Buffer) => {
    stderr.text = (stderr.text + chunk.toString('utf8')).slice(-STDERR_TAIL);
  });
  return { transport, stderr };
}

/** The upstream's last line on stderr, as a clause for a message ('' when it wrote none). */
export function stderrHint(stderr: StderrTail | undefined): string {
  const lines = (stderr?.text ?? '').trim().split('\n');
  const last = lines[lines.length - 1]?.trim();
  return last ? ` (its last words on stderr: ${last.slice(0, 200)})` : '';
}

/**
 * Hands an answer to the SDK's client a microtask after it arrives, behind
 * the notifications that came before it. The client runs a notification's
 * handler a microtask late but settles an answer at once, forgetting the
 * request's progress token: a progress notification sent just before the
 * result (read in the same chunk) would otherwise find no token and be lost
 * (MCP TypeScript SDK, `Protocol._onprogress` and `_onresponse`; its issue #2580).
 * Call it after `client.connect(transport)`, which sets `onmessage`.
 */
export function progressBeforeAnswers(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    if ('method' in message) deliver(message, extra);
    else queueMicrotask(() => deliver(message, extra));
  };
}
