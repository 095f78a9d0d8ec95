/**
 * The bound on one message from an upstream. The gateway holds an upstream's
 * message whole before it can forward it, so without a bound one answer (a
 * tool that reads a huge file, lists a whole disk, or is broken) takes the
 * memory every session shares. Over stdio the SDK's transport keeps the
 * bound itself (`maxBufferSize`); over Streamable HTTP the answers come
 * through the gateway's own fetch (node-fetch.ts), which measures them as
 * they arrive: an event stream by each of its events, any other body whole.
 */
/**
 * Most bytes of one upstream message, 10 MiB: the SDK's own default for a
 * stdio message, so both transports bound alike.
 */
export const MAX_UPSTREAM_MESSAGE_BYTES = 10 * 1024 * 1024;

/** The least bound that may be set, 64 KiB: below it, ordinary tool lists and answers would not pass. */
export const MIN_UPSTREAM_MESSAGE_BYTES = 64 * 1024;

/** An upstream message over the bound. */
export class MessageTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`an upstream message is larger than ${limit} bytes`);
  }
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Counts the bytes of one server-sent event at a time: an event ends at an
 * empty line, whatever ends its lines (LF, CR or CRLF, as the format allows).
 */
export class EventMeter {
  /** Bytes of the event so far. */
  private bytes = 0;
  /** Nothing but line ends since the last line's end (or the stream's start). */
  private atLineStart = true;
  /** The last byte seen was a CR (a LF right after it ends the same line). */
  private afterCR = false;

  /** Takes one chunk; returns the most bytes any event reached in it. */
  take(chunk: Uint8Array): number {
    let most = this.bytes;
    let from = 0;
    while (from < chunk.length) {
      const end = nextLineEnd(chunk, from);
      if (end < 0) {
        this.bytes += chunk.length - from;
        if (chunk.length > from) {
          this.atLineStart = false;
          this.afterCR = false;
        }
        return Math.max(most, this.bytes);
      }
      this.bytes += end - from + 1;
      most = Math.max(most, this.bytes);
      const byte = chunk[end];
      const text = end > from;
      if (byte === LF && !text && this.afterCR) {
        // The LF of a CRLF: the CR ended the line.
        this.afterCR = false;
      } else {
        if (!text && this.atLineStart) this.bytes = 0;
        this.atLineStart = true;
        this.afterCR = byte === CR;
      }
      from = end + 1;
    }
    return most;
  }
}

function nextLineEnd(chunk: Uint8Array, from: number): number {
  const lf = chunk.indexOf(LF, from);
  const cr = chunk.indexOf(CR, from);
  if (lf < 0) return cr;
  if (cr < 0) return lf;
  return Math.min(lf, cr);
}

/** What a fetch bounds its answers by, and whom it tells of one over the bound. */
export interface MessageBound {
  limit: number;
  /** Told first, before the reader of the body sees the error. */
  onExceeded(error: MessageTooLargeError): void;
}

/**
 * The measure of a body of `contentType`: each chunk taken returns the size
 * the bound is checked against, the largest event of an event stream so
 * far, or any other body's bytes so far.
 *
 * @example
 * const measure = measureFor('text/event-stream');
 * measure(Buffer.from('data: x\n\n')) // 9 (up to the first byte of the empty line)
 */
export function measureFor(contentType: string | null): (chunk: Uint8Array) => number {
  if (/^text\/event-stream\b/i.test(contentType ?? '')) {
    const meter = new EventMeter();
    return (chunk) => meter.take(chunk);
  }
  let total = 0;
  return (chunk) => (total += chunk.length);
}
