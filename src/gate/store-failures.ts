/**
 * Telling an outage from one request's failure (core/store-failures.ts):
 * a time budget for a decision's fact gathering, and a judge that asks the
 * store's health probe, one probe at a time, its answer reused briefly.
 */
import { ErrorCode, PlangateError, toError } from '../core/errors.js';
import { DECISION_FACTS_BUDGET_MS, PROBE_REUSE_MS, PROBE_TIMEOUT_MS, STORE_FAILURE_IS_AN_OUTAGE } from '../core/store-failures.js';

/** A wait under a budget: its deadline, and how it is refused when the deadline passes first. */
interface Pending {
  deadline: number;
  settled: boolean;
  reject(error: unknown): void;
}

/**
 * The waits under budgets of one length, in the order they began (so in
 * the order of their deadlines): one timer for all of them, armed for the
 * oldest unsettled one. A decision arms and clears no timer of its own.
 */
class Budgets {
  private queue: Array<Pending | undefined> = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ms: number) {}

  add(pending: Pending): void {
    this.queue.push(pending);
    if (this.timer === undefined) this.arm(pending.deadline);
  }

  private arm(deadline: number): void {
    this.timer = setTimeout(() => this.expire(), Math.max(1, deadline - Date.now()));
    this.timer.unref?.();
  }

  private expire(): void {
    this.timer = undefined;
    const now = Date.now();
    while (this.head < this.queue.length) {
      const p = this.queue[this.head] as Pending;
      if (!p.settled && p.deadline > now) break;
      this.queue[this.head++] = undefined;
      if (!p.settled) {
        p.settled = true;
        p.reject(new PlangateError(ErrorCode.StoreFailure, `the facts of this call were not read within its ${this.ms} ms budget`));
      }
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
      return;
    }
    if (this.head > 1024) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.arm((this.queue[this.head] as Pending).deadline);
  }
}

const budgets = new Map<number, Budgets>();

/**
 * Resolves as `work` does, or rejects with `store_failure` once `ms` have
 * passed (the work itself is not stopped: each store bounds its own
 * statements, and this bounds the wait).
 *
 * @example
 * const facts = await withinBudget(gatherInput(store, call), DECISION_FACTS_BUDGET_MS);
 */
export function withinBudget<T>(work: Promise<T>, ms: number = DECISION_FACTS_BUDGET_MS): Promise<T> {
  let queue = budgets.get(ms);
  if (queue === undefined) budgets.set(ms, (queue = new Budgets(ms)));
  const waits = queue;
  // One promise settled by whichever comes first: the work, or the budget's shared timer.
  return new Promise<T>((resolve, reject) => {
    const pending: Pending = { deadline: Date.now() + ms, settled: false, reject };
    waits.add(pending);
    work.then((value) => {
      if (pending.settled) return;
      pending.settled = true;
      resolve(value);
    }, (error: unknown) => {
      if (pending.settled) return;
      pending.settled = true;
      reject(error);
    });
  });
}

/** Decides whether a failure while gathering facts is an outage of the store. */
export interface OutageJudge {
  /** True when the store fails its probe too (or cannot be probed): an outage. False: the failure is the request's. */
  isOutage(): Promise<boolean>;
}

/**
 * A judge on `probe` (the store's health probe; resolves when the store
 * answers). Without a probe every failure is taken for an outage, as a store
 * that cannot be asked gives nothing to tell them apart by.
 *
 * @example
 * const judge = outageJudge(() => store.probe());
 * if (!(await judge.isOutage())) throw requestFailure(error);
 */
export function outageJudge(probe: (() => Promise<void>) | undefined, clock: () => number = Date.now): OutageJudge {
  let last: { at: number; outage: boolean } | undefined;
  let asking: Promise<boolean> | undefined;
  const ask = async (): Promise<boolean> => {
    try {
      await withinBudget((probe as () => Promise<void>)(), PROBE_TIMEOUT_MS);
      return false;
    } catch {
      return true;
    }
  };
  return {
    async isOutage() {
      if (!probe || STORE_FAILURE_IS_AN_OUTAGE !== 'only_when_the_store_fails_a_probe') return true;
      if (last && clock() - last.at < PROBE_REUSE_MS) return last.outage;
      asking ??= ask().then((outage) => {
        last = { at: clock(), outage };
        asking = undefined;
        return outage;
      });
      return asking;
    },
  };
}

/**
 * The error a call is refused with when its own fact gathering failed on a
 * healthy store: `store_failure`, saying it was refused and not let through.
 */
export function requestFailure(error: unknown): PlangateError {
  return new PlangateError(
    ErrorCode.StoreFailure,
    `the facts of this call could not be read (${toError(error).message}) while the store answers other requests: the call is refused, not let through`,
    [],
    { cause: error },
  );
}
