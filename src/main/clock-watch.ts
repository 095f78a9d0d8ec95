/**
 * With replicas on PostgreSQL: this process's clock against the
 * database's, measured at start and every minute. A replica whose clock is
 * off by more than {@link MAX_CLOCK_SKEW_MS} says so loudly and is
 * `degraded` in /health (`clock`) until it is back within it: plans are
 * stamped and judged fresh by each replica's own clock.
 */
import type { ClockReading } from '../facts/postgres/clock.js';

/** The most a replica's clock may be off the database's before it is degraded (beyond the measure's own uncertainty). */
export const MAX_CLOCK_SKEW_MS = 1_000;

/** How often the clock is measured again. */
export const CLOCK_CHECK_MS = 60_000;

/** The last measure, as /health reports it. */
export interface ClockState {
  /** How far the database's clock is ahead of this process's (negative: behind). */
  skewMs: number;
  rttMs: number;
  checkedAt: string;
  /** False when the clocks are surely more than MAX_CLOCK_SKEW_MS apart. */
  ok: boolean;
}

export interface ClockWatch {
  state(): ClockState | undefined;
  stop(): void;
}

/**
 * @example
 * const clock = await watchClock(() => clockSkew(store.pool), console.error);
 * clock.state()?.ok // false when this replica's clock is off
 */
export async function watchClock(measure: () => Promise<ClockReading>, log: (line: string) => void, every = CLOCK_CHECK_MS): Promise<ClockWatch> {
  let last: ClockState | undefined;
  const check = async (): Promise<void> => {
    let r: ClockReading;
    try {
      r = await measure();
    } catch {
      return; // the store's own failures are reported where it is used
    }
    // Only what the round trip cannot explain counts as skew.
    const ok = Math.abs(r.skewMs) - r.rttMs / 2 <= MAX_CLOCK_SKEW_MS;
    if (!ok && last?.ok !== false) {
      log(`plangate: this process's clock is ${Math.abs(r.skewMs)} ms ${r.skewMs > 0 ? 'behind' : 'ahead of'} the database's: plans are stamped and judged fresh by each replica's own clock, so keep the replicas' clocks in sync (NTP)`);
    } else if (ok && last?.ok === false) {
      log(`plangate: this process's clock is within ${MAX_CLOCK_SKEW_MS} ms of the database's again`);
    }
    last = { skewMs: r.skewMs, rttMs: r.rttMs, checkedAt: new Date().toISOString(), ok };
  };
  await check();
  const timer = setInterval(() => void check(), every);
  timer.unref();
  return {
    state: () => last,
    stop: () => clearInterval(timer),
  };
}
