/**
 * How the events of a session's SSE streams are written: each message as
 * the event store keeps it, and a response stream primed only when its
 * first message is slow to come.
 *
 * **The stored text.** With an event store, every message the transport
 * sends is stored first, and the store (event-store.ts) serializes it to
 * know its size. The event that carries it is written with that text, in
 * the SDK's format (`event: message`, the id, `data:` and the JSON), so a
 * message is serialized once on its way out, not twice.
 *
 * **Priming late.** With an event store, the SDK's web-standard transport
 * starts every POST's SSE stream with a priming event (an event id and
 * empty data), so that a client whose stream drops before the first
 * message can still resume it (MCP 2025-11-25, Transports, "Resumability
 * and Redelivery": the server SHOULD send one). Every message the stream
 * carries has an event id of its own, so a stream whose first message comes
 * at once is resumable without it; the priming event only costs such a call
 * an extra event to store, send and parse. Here a stream is primed
 * PRIME_AFTER_MS after it opens, when it is still open and has carried
 * nothing: a long call is resumable from then on, a quick one is answered
 * without the extra event.
 *
 * This hooks two methods of the SDK's transport instance (its
 * `writePrimingEvent` and `writeSSEEvent`, @modelcontextprotocol/sdk
 * 1.32.2, src/server/webStandardStreamableHttp.ts): a transport without
 * them is refused when made, and test/mcp/priming.test.ts fails if either
 * stops being called as it is today.
 */
import type { TextEncoder } from 'node:util';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { SessionEventStore } from './event-store.js';

/**
 * How long a response stream may go without an event before it is primed.
 * A stream that drops sooner, before its first message, cannot be resumed
 * (the client sends the request again after its timeout); past it, any
 * drop can be.
 */
export const PRIME_AFTER_MS = 25;

type Controller = ReadableStreamDefaultController<Uint8Array>;

/** The transport's members this module hooks (private in its typings). */
interface TransportInside {
  writePrimingEvent(controller: Controller, encoder: TextEncoder, streamId: string, protocolVersion: string): Promise<void>;
  writeSSEEvent(controller: Controller, encoder: TextEncoder, message: unknown, eventId?: string): boolean;
  _streamMapping: Map<string, { controller?: Controller }>;
}

/**
 * Writes the events of `transport` with the text `store` keeps of each
 * message, and primes its response streams only once they have gone
 * `afterMs` without an event.
 *
 * @example
 * const eventStore = new SessionEventStore();
 * const web = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator, eventStore });
 * writeEvents(web, eventStore);
 */
export function writeEvents(transport: WebStandardStreamableHTTPServerTransport, store: Pick<SessionEventStore, 'textOf'>, afterMs = PRIME_AFTER_MS): void {
  const inside = transport as unknown as TransportInside;
  // An SDK that no longer has these would leave every stream unprimed without a word: refuse it here.
  if (typeof inside.writePrimingEvent !== 'function' || typeof inside.writeSSEEvent !== 'function' || !(inside._streamMapping instanceof Map)) {
    throw new Error("the MCP SDK's Streamable HTTP transport no longer has writePrimingEvent, writeSSEEvent or _streamMapping: see src/adapters/mcp/sse-writer.ts");
  }
  const prime = inside.writePrimingEvent.bind(transport);
  const write = inside.writeSSEEvent.bind(transport);
  /** Streams waiting to be primed, by their controller. */
  const waiting = new Map<Controller, NodeJS.Timeout>();
  inside.writePrimingEvent = (controller, encoder, streamId, protocolVersion) => {
    const timer = setTimeout(() => {
      waiting.delete(controller);
      // Still this stream's, and nothing sent on it yet: primed now.
      if (inside._streamMapping.get(streamId)?.controller === controller) void prime(controller, encoder, streamId, protocolVersion).catch(() => {});
    }, afterMs);
    timer.unref();
    waiting.set(controller, timer);
    return Promise.resolve();
  };
  inside.writeSSEEvent = (controller, encoder, message, eventId) => {
    const timer = waiting.get(controller);
    if (timer !== undefined) {
      clearTimeout(timer);
      waiting.delete(controller);
    }
    const text = eventId === undefined ? undefined : store.textOf(message);
    if (text === undefined) return write(controller, encoder, message, eventId);
    // The SDK's event, as its writeSSEEvent makes it, with the message's JSON as stored.
    try {
      controller.enqueue(encoder.encode(`event: message\nid: ${eventId}\ndata: ${text}\n\n`));
      return true;
    } catch (error) {
      transport.onerror?.(error as Error);
      return false;
    }
  };
}
