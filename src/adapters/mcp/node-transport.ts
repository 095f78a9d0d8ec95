/**
 * The SDK's Streamable HTTP server transport for node:http, as the SDK's
 * own `StreamableHTTPServerTransport` is (its web-standard transport behind
 * @hono/node-server's request listener), with three differences: an SSE
 * response is written as it comes, primed only when its first message is
 * slow to come, and each of its messages written with the JSON the event
 * store keeps of it (sse-writer.ts).
 *
 * The listener reads a streamed body ahead before it writes the headers,
 * to give a short body its length, and when a first chunk is there but not
 * a second, waits a timer's turn (at least 1 ms) for it. With resumable
 * streams a POST's SSE stream may start with a priming event (sse-writer.ts),
 * so a call that was not answered at once waited that turn: most of what the
 * gateway added to a call over Streamable HTTP. A response marked
 * `Transfer-Encoding: chunked` (which an SSE stream is on HTTP/1.1 anyway)
 * is streamed without reading ahead. (Holding the priming event on the
 * socket until the first message, to send both in one write, was measured
 * too and saved nothing more.)
 */
import { getRequestListener } from '@hono/node-server';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { WebStandardStreamableHTTPServerTransport, type WebStandardStreamableHTTPServerTransportOptions } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import type { SessionEventStore } from './event-store.js';
import { writeEvents } from './sse-writer.js';

/** An SSE response, marked to be streamed as it comes. */
function streamed(response: Response): Response {
  if (response.body !== null && response.headers.get('content-type') === 'text/event-stream') {
    response.headers.set('transfer-encoding', 'chunked');
  }
  return response;
}

/**
 * One MCP session's transport over node:http.
 *
 * @example
 * const transport = new NodeStreamableTransport({ sessionIdGenerator: () => randomUUID() });
 * await server.connect(transport);
 * await transport.handleRequest(req, res, parsedBody);
 */
export class NodeStreamableTransport implements Transport {
  private readonly web: WebStandardStreamableHTTPServerTransport;

  constructor(options: Omit<WebStandardStreamableHTTPServerTransportOptions, 'eventStore'> & { eventStore?: SessionEventStore }) {
    this.web = new WebStandardStreamableHTTPServerTransport(options);
    // Each message written as stored; a response stream primed once it has gone a while without one (sse-writer.ts).
    if (options.eventStore) writeEvents(this.web, options.eventStore);
  }

  get sessionId(): string | undefined {
    return this.web.sessionId;
  }

  set onclose(handler: (() => void) | undefined) {
    this.web.onclose = handler;
  }

  get onclose(): (() => void) | undefined {
    return this.web.onclose;
  }

  set onerror(handler: ((error: Error) => void) | undefined) {
    this.web.onerror = handler;
  }

  get onerror(): ((error: Error) => void) | undefined {
    return this.web.onerror;
  }

  set onmessage(handler: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined) {
    this.web.onmessage = handler;
  }

  get onmessage(): (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined {
    return this.web.onmessage;
  }

  start(): Promise<void> {
    return this.web.start();
  }

  close(): Promise<void> {
    return this.web.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.web.send(message, options);
  }

  /** Answers one HTTP request of the session (`parsedBody`: a POST's JSON, already read). */
  handleRequest(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    const listener = getRequestListener(
      async (request) => streamed(await this.web.handleRequest(request, { parsedBody })),
      { overrideGlobalObjects: false },
    );
    return listener(req, res) as Promise<void>;
  }
}
