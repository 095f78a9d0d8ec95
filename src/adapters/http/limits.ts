/**
 * Requests and answers within bounds, for `plangate serve` and the MCP
 * gateway alike. The bytes of request bodies a process holds while it
 * reads them are counted across every connection: a body is held whole
 * before it is parsed, so without a bound many clients that each start a
 * large body and send it slowly (or never finish it) take the memory every
 * caller shares; the request timeout frees each one only after 30 s. Past
 * the bound a request is answered 503 `busy` (with `Retry-After`) instead,
 * and its body is not read. An answer whose client reads nothing is
 * dropped after the send timeout.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpCode, HttpError } from './errors.js';

/** Most bytes of request bodies being read at once in one process: 64 MiB. */
export const BODY_BYTES_READING = 64 * 1024 * 1024;

/** How long a request may take to arrive, headers and body (Node's default is 5 minutes). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** How long its headers may take. */
export const HEADERS_TIMEOUT_MS = 10_000;
/**
 * How long an answer may wait for its client to read anything, once the
 * socket is full, before it is dropped (a send timeout): a stream held
 * open by a client that reads nothing would otherwise grow in memory.
 */
export const SEND_TIMEOUT_MS = 30_000;

/**
 * A count of bytes held against a bound.
 *
 * @example
 * const budget = new ByteBudget(1024);
 * budget.take(1000); // true
 * budget.take(100);  // false: nothing taken
 * budget.give(1000);
 */
export class ByteBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  /** Takes `n` bytes, or nothing and false when they would pass the bound. */
  take(n: number): boolean {
    if (this.used + n > this.limit) return false;
    this.used += n;
    return true;
  }

  /** Gives back `n` bytes taken before. */
  give(n: number): void {
    this.used = Math.max(0, this.used - n);
  }

  /** Bytes held now. */
  get held(): number {
    return this.used;
  }
}

/** The bound every listener of this process shares, unless it is given its own. */
export const PROCESS_BODY_BUDGET = new ByteBudget(BODY_BYTES_READING);

/** The answer to a request whose body the budget has no room for. */
export function busyError(budget: ByteBudget): HttpError {
  return new HttpError(HttpCode.Busy, `too many request bodies are being read at once (${budget.limit} bytes); retry in a moment`, [], { 'Retry-After': '1', connection: 'close' });
}

/** A body read whole, or why not: past `limit`, no room in the budget, or the client went away first. */
export type BodyRead = Buffer | 'too_large' | 'busy' | 'aborted';

/**
 * Reads a request body, holding its bytes against `budget` while it
 * arrives (they are given back once it is read, or given up); stops at
 * the first byte past `limit` or past the budget, and the rest of the body
 * is not kept.
 *
 * @example
 * const read = await readBody(req, 128 * 1024, PROCESS_BODY_BUDGET);
 * if (read === 'busy') throw busyError(PROCESS_BODY_BUDGET);
 */
export function readBody(req: IncomingMessage, limit: number, budget: ByteBudget): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (value: BodyRead): void => {
      if (done) return;
      done = true;
      budget.give(size);
      chunks.length = 0;
      resolve(value);
    };
    req.on('data', (chunk: Buffer) => {
      if (done) return; // past a bound: the rest is discarded
      if (size + chunk.length > limit) return finish('too_large');
      if (!budget.take(chunk.length)) return finish('busy');
      size += chunk.length;
      chunks.push(chunk);
    });
    req.on('end', () => finish(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.on('error', () => finish('aborted'));
    // Closed before its end (the client went away, the request timed out).
    req.on('close', () => finish('aborted'));
  });
}

/**
 * Drops `res` when a write has waited `ms` for its socket to drain (see
 * {@link SEND_TIMEOUT_MS}). Returns what to tell of each write: whether the
 * socket took it (`res.write`'s answer).
 *
 * @example
 * const wrote = sendTimeout(res, SEND_TIMEOUT_MS);
 * wrote(res.write(chunk));
 */
export function sendTimeout(res: ServerResponse, ms: number, drop: () => void = () => res.destroy()): (taken: boolean) => void {
  let timer: NodeJS.Timeout | undefined;
  const drained = (): void => {
    clearTimeout(timer);
    timer = undefined;
  };
  res.on('drain', drained);
  res.once('close', drained);
  return (taken) => {
    if (taken || timer !== undefined) return;
    timer = setTimeout(drop, ms);
    timer.unref();
  };
}
