/**
 * The decision counters the status reports, and the log line every
 * fail-open decision gets.
 */
import type { Decision } from '../core/types.js';
import type { RuntimeStatus } from './status.js';

type Counts = NonNullable<RuntimeStatus['decisions']>;

/**
 * Counts decisions and logs each one that failed open.
 *
 * @example
 * const counters = new DecisionCounters(console.error);
 * counters.record(decision);
 * counters.snapshot().total // 1
 */
export class DecisionCounters {
  private readonly counts: Counts = { total: 0, refused: 0, shadowRefused: 0, failOpen: 0, failClosed: 0 };

  constructor(private readonly log: (text: string) => void) {}

  /** Counts one decision; logs it when it failed open or closed (every such decision is logged). */
  record(decision: Decision): void {
    this.counts.total += 1;
    if (!decision.allowed) this.counts.refused += 1;
    if (decision.allowed && decision.shadow === true) this.counts.shadowRefused += 1;
    if (decision.failOpen) {
      this.counts.failOpen += 1;
      this.log(`plangate: FAIL-OPEN ${decision.agent} → ${decision.tool} allowed without plan-required: ${decision.failOpen.reason}`);
    }
    if (decision.failClosed) {
      this.counts.failClosed = (this.counts.failClosed ?? 0) + 1;
      const what = decision.allowed ? 'allowed (the reviewer channel)' : 'refused';
      this.log(`plangate: FAIL-CLOSED ${decision.agent} is held, ${decision.tool} ${what}: ${decision.failClosed.reason}`);
    }
  }

  /** A copy of the counts so far. */
  snapshot(): Counts {
    return { ...this.counts };
  }
}
