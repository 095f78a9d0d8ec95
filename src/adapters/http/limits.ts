/**
 * Requests and answers within bounds, for `plangate serve` and the MCP
 * gateway alike. The bytes of request bodies a process holds while it
 * reads them are counted across every connection: a body is held whole
 * before it is parsed, so without a bound many clients that each start a
 * large body and send it slowly (or never finish it) take the memory every
 * caller shares; the request timeout frees each one only after 30 s. The
 * bound is shared fairly between the callers (shares.ts): past its own
 * share a token is answered 429, past the pool 503 `busy` (both with
 * `Retry-After`), and that body is not read. A body that arrives slower
 * than {@link MIN_UPLOAD_BYTES_PER_S} (after a grace) is cut, so holding a
 * share costs a steady upload. An answer whose client reads nothing is
 * dropped after the send timeout.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpCode, HttpError } from './errors.js';
import type { Budget } from './shares.js';

/** Most bytes of request bodies being read at once in one process: 64 MiB. */
export const BODY_BYTES_READING = 64 * 1024 * 1024;

/** How long a request may take to arrive, headers and body (Node's default is 5 minutes). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** Slowest a request body may arrive, on average since its first byte was awaited: 8 KiB/s. */
export const MIN_UPLOAD_BYTES_PER_S = 8 * 1024;
/** How long a body may take before the minimum rate applies (a client's first round trips). */
export const MIN_UPLOAD_GRACE_MS = 2_000;

/** The minimum upload rate a body read holds its client to. */
export interface UploadRate {
  bytesPerSecond: number;
  graceMs: number;
}
export const MIN_UPLOAD_RATE: UploadRate = { bytesPerSecond: MIN_UPLOAD_BYTES_PER_S, graceMs: MIN_UPLOAD_GRACE_MS };

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
export function busyError(budget: Budget): HttpError {
  return new HttpError(HttpCode.Busy, `too many request bodies are being read at once (${budget.limit} bytes); retry in a moment`, [], { 'Retry-After': '1', connection: 'close' });
}

/** The answer to a request whose caller's own share is spent (bytes being read, or requests in flight). */
export function ownShareError(what: string): HttpError {
  return new HttpError(HttpCode.TooManyRequests, `this token has ${what}; retry when one of its requests is answered`, [], { 'Retry-After': '1', connection: 'close' });
}

/** The answer to a body that arrived slower than the minimum rate. */
export function tooSlowError(rate: UploadRate): HttpError {
  return new HttpError(HttpCode.UploadTooSlow, `the body arrived slower than ${rate.bytesPerSecond} bytes a second; send it at once`, [], { connection: 'close' });
}

/** A body read whole, or why not: past `limit`, no room in the budget, slower than the minimum rate, or the client went away first. */
export type BodyRead = Buffer | 'too_large' | 'busy' | 'too_slow' | 'aborted';

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
export function readBody(req: IncomingMessage, limit: number, budget: Budget, rate: UploadRate = MIN_UPLOAD_RATE): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const started = Date.now();
    // Checked every quarter of the grace: the body so far against the rate since the start.
    const pace = setInterval(() => {
      const elapsed = Date.now() - started;
      if (elapsed >= rate.graceMs && size < (rate.bytesPerSecond * elapsed) / 1000) finish('too_slow');
    }, Math.max(25, Math.min(rate.graceMs / 4, 1_000)));
    pace.unref();
    const finish = (value: BodyRead): void => {
      if (done) return;
      done = true;
      clearInterval(pace);
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
