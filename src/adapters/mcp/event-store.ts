/**
 * The event store of one Streamable HTTP session, so that a client whose
 * event stream dropped resumes it with `Last-Event-ID` and is sent what it
 * missed (MCP 2025-11-25, Transports, "Resumability and Redelivery"). It
 * implements the SDK's `EventStore` interface and is bounded: it keeps the
 * latest MAX_SESSION_EVENTS messages and MAX_SESSION_EVENT_BYTES of them,
 * the oldest dropped first. An id it no longer holds (or never issued) is
 * answered 400 by the SDK's transport: the client starts a new stream.
 */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Most events one session keeps for a resume. */
export const MAX_SESSION_EVENTS = 1000;
/** Most bytes (of JSON) of the events one session keeps: a 1 MiB tool result is kept, a few of them at most. */
export const MAX_SESSION_EVENT_BYTES = 8 * 1024 * 1024;

interface Stored {
  stream: string;
  message: JSONRPCMessage;
  bytes: number;
}

/**
 * A bounded, in-memory event store for one session. Event ids are
 * `<stream>#<sequence>`: the sequence orders the replay.
 *
 * @example
 * new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, eventStore: new SessionEventStore() });
 */
export class SessionEventStore implements EventStore {
  private readonly events = new Map<string, Stored>();
  /**
   * The ids kept, oldest first, from `head` on: the oldest is found without
   * iterating the Map (whose iteration walks past every entry deleted since
   * its last rehash, a cost that grows with the events dropped).
   */
  private order: string[] = [];
  private head = 0;
  private next = 0;
  private bytes = 0;

  constructor(private readonly most = MAX_SESSION_EVENTS, private readonly mostBytes = MAX_SESSION_EVENT_BYTES) {}

  async storeEvent(stream: string, message: JSONRPCMessage): Promise<string> {
    const id = `${stream}#${this.next++}`;
    const bytes = JSON.stringify(message).length;
    this.events.set(id, { stream, message, bytes });
    this.order.push(id);
    this.bytes += bytes;
    // The oldest are dropped first; the newest event is kept even when it alone is over the bytes.
    while ((this.events.size > this.most || this.bytes > this.mostBytes) && this.order.length - this.head > 1) {
      const old = this.order[this.head++] as string;
      this.bytes -= (this.events.get(old) as Stored).bytes;
      this.events.delete(old);
    }
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
    return id;
  }

  async getStreamIdForEventId(id: string): Promise<string | undefined> {
    return this.events.get(id)?.stream;
  }

  async replayEventsAfter(lastId: string, { send }: { send: (id: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const last = this.events.get(lastId);
    if (!last) throw new Error(`event ${lastId} is not kept`);
    let sent = lastId;
    /** Sends what the stream stored after `sent`; says whether there was any. */
    const pass = async (): Promise<boolean> => {
      let after = false;
      let more = false;
      for (const [id, e] of this.events) {
        if (id === sent) after = true;
        else if (after && e.stream === last.stream) {
          await send(id, e.message);
          sent = id;
          more = true;
        }
      }
      return more;
    };
    // Then again after a turn of the event loop, until a pass finds nothing new: an event stored
    // just after a pass (the stream is not the transport's again until this returns) is sent too.
    await pass();
    do await new Promise((resolve) => setImmediate(resolve));
    while (await pass());
    return last.stream;
  }
}
