/**
 * How often a seat may open a session of the gateway: a token bucket per
 * seat. Each session starts upstream connections of its own (a process per
 * stdio upstream), so a loop of `initialize` must not become a loop of
 * process starts: past the bucket an `initialize` is answered 429 with
 * `Retry-After` (RFC 9110 §10.2.3, in whole seconds), and nothing is
 * started or closed for it.
 */

/** Sessions a seat may open in a burst (a host starting its subagents at once). */
export const INITIALIZE_BURST = 16;
/** After a burst, one more session every this many milliseconds. */
export const INITIALIZE_REFILL_MS = 10_000;

export interface SessionRateOptions {
  burst?: number;
  refillMs?: number;
  clock?: () => number;
}

/**
 * @example
 * const rate = new SessionRate();
 * const wait = rate.take('0xWORKER'); // 0: go ahead; else milliseconds until the next one
 */
export class SessionRate {
  readonly burst: number;
  readonly refillMs: number;
  private readonly clock: () => number;
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(o: SessionRateOptions = {}) {
    this.burst = o.burst ?? INITIALIZE_BURST;
    this.refillMs = o.refillMs ?? INITIALIZE_REFILL_MS;
    this.clock = o.clock ?? Date.now;
    if (!Number.isSafeInteger(this.burst) || this.burst < 1) throw new TypeError('SessionRate: burst must be a whole number of at least 1');
    if (!Number.isSafeInteger(this.refillMs) || this.refillMs < 1) throw new TypeError('SessionRate: refillMs must be a whole number of at least 1');
  }

  /** Takes one session for `seat`: 0 when it may open one now, else how many milliseconds until it may. */
  take(seat: string): number {
    const now = this.clock();
    const b = this.buckets.get(seat) ?? { tokens: this.burst, at: now };
    b.tokens = Math.min(this.burst, b.tokens + (now - b.at) / this.refillMs);
    b.at = now;
    this.buckets.set(seat, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - b.tokens) * this.refillMs);
  }

  /** Forgets seats whose buckets are full again. */
  sweep(): void {
    const now = this.clock();
    for (const [seat, b] of this.buckets) if (b.tokens + (now - b.at) / this.refillMs >= this.burst) this.buckets.delete(seat);
  }
}
