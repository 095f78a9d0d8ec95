/**
 * The event store of one Streamable HTTP session, so that a client whose
 * event stream dropped resumes it with `Last-Event-ID` and is sent what it
 * missed (MCP 2025-11-25, Transports, "Resumability and Redelivery"). It
 * implements the SDK's `EventStore` interface and is bounded: it keeps the
 * latest MAX_SESSION_EVENTS messages and MAX_SESSION_EVENT_BYTES of them,
 * the oldest dropped first. An id it no longer holds (or never issued) is
 * answered 400 by the SDK's transport: the client starts a new stream.
 *
 * Every message of a session is stored on its way out, so storing is kept
 * cheap: the events sit in one array in the order of their sequence numbers
 * (an id names its place, no index to keep), and each as its JSON text, which
 * its size needs anyway and which the writer sends as it is (sse-writer.ts);
 * only a replay parses it again. Keeping text, not the message, also leaves
 * the message's objects to be collected young.
 */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Most events one session keeps for a resume. */
export const MAX_SESSION_EVENTS = 1000;
/** Most bytes (of JSON) of the events one session keeps: a 1 MiB tool result is kept, a few of them at most. */
export const MAX_SESSION_EVENT_BYTES = 8 * 1024 * 1024;

interface Stored {
  stream: string;
  /** The message as JSON. */
  text: string;
}

/**
 * A bounded, in-memory event store for one session. Event ids are
 * `<stream>#<sequence>`: the sequence orders the replay and finds the event.
 *
 * @example
 * new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, eventStore: new SessionEventStore() });
 */
export class SessionEventStore implements EventStore {
  /** The events kept are `events[head…]`, oldest first; their sequence numbers are consecutive, the newest `next - 1`. */
  private events: (Stored | undefined)[] = [];
  private head = 0;
  private next = 0;
  private bytes = 0;
  /** The message stored last and its text, for the writer (sse-writer.ts). */
  private last: { message: JSONRPCMessage; text: string } | undefined;

  constructor(private readonly most = MAX_SESSION_EVENTS, private readonly mostBytes = MAX_SESSION_EVENT_BYTES) {}

  async storeEvent(stream: string, message: JSONRPCMessage): Promise<string> {
    const seq = this.next++;
    const text = JSON.stringify(message);
    this.events.push({ stream, text });
    this.bytes += text.length;
    this.last = { message, text };
    // The oldest are dropped first; the newest event is kept even when it alone is over the bytes.
    while ((this.events.length - this.head > this.most || this.bytes > this.mostBytes) && this.events.length - this.head > 1) {
      this.bytes -= (this.events[this.head] as Stored).text.length;
      this.events[this.head++] = undefined;
    }
    if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
    return `${stream}#${seq}`;
  }

  /** The JSON of `message` when it is the one stored last (the writer sends it without serializing it again). */
  textOf(message: unknown): string | undefined {
    const last = this.last;
    return last !== undefined && last.message === message ? last.text : undefined;
  }

  async getStreamIdForEventId(id: string): Promise<string | undefined> {
    return this.find(id)?.stream;
  }

  async replayEventsAfter(lastId: string, { send }: { send: (id: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const last = this.find(lastId);
    if (!last) throw new Error(`event ${lastId} is not kept`);
    let sent = this.seqAt(last.at);
    /** Sends what the stream stored after `sent`; says whether there was any. */
    const pass = async (): Promise<boolean> => {
      let more = false;
      // Looked up again at each event: a send may wait, and events are stored and dropped meanwhile.
      for (let at = this.indexOf(sent + 1); at !== undefined; at = this.indexOf(sent + 1)) {
        const e = this.events[at] as Stored;
        sent++;
        if (e.stream !== last.stream) continue;
        await send(`${e.stream}#${sent}`, JSON.parse(e.text) as JSONRPCMessage);
        more = true;
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

  /** The sequence number of the event at index `at`. */
  private seqAt(at: number): number {
    return this.next - (this.events.length - at);
  }

  /** The index of the event with sequence number `seq`, when it is kept. */
  private indexOf(seq: number): number | undefined {
    const at = this.events.length - (this.next - seq);
    return at >= this.head && at < this.events.length ? at : undefined;
  }

  /** The event an id names and its index, when it is kept and the id is one this store issued. */
  private find(id: string): { stream: string; at: number } | undefined {
    const hash = id.lastIndexOf('#');
    const digits = id.slice(hash + 1);
    if (hash < 0 || !/^(0|[1-9]\d{0,14})$/.test(digits)) return undefined;
    const at = this.indexOf(Number(digits));
    const e = at === undefined ? undefined : this.events[at];
    return e !== undefined && e.stream === id.slice(0, hash) ? { stream: e.stream, at: at as number } : undefined;
  }
}
