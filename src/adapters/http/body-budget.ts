/**
 * The bytes of request bodies a process holds while it reads them, across
 * every connection. A body is held whole before it is parsed, so without a
 * bound many clients that each start a large body and send it slowly (or
 * never finish it) take the memory every caller shares; the request
 * timeout frees each one only after 30 s. Past the bound a request is
 * answered 503 `busy` (with `Retry-After`) instead, and its body is not read.
 */

/** Most bytes of request bodies being read at once in one process: 64 MiB. */
export const BODY_BYTES_READING = 64 * 1024 * 1024;

/** How long a request may take to arrive, headers and body (Node's default is 5 minutes). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** How long its headers may take. */
export const HEADERS_TIMEOUT_MS = 10_000;

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
