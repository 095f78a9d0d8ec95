/**
 * Telling an outage from one request's failure (core/store-failures.ts):
 * a time budget for a decision's fact gathering, and a judge that asks the
 * store's health probe, one probe at a time, its answer reused briefly.
 */
import { ErrorCode, PlangateError, toError } from '../core/errors.js';
import { DECISION_FACTS_BUDGET_MS, PROBE_REUSE_MS, PROBE_TIMEOUT_MS, STORE_FAILURE_IS_AN_OUTAGE } from '../core/store-failures.js';

/**
 * Resolves as `work` does, or rejects with `store_failure` once `ms` have
 * passed (the work itself is not stopped: each store bounds its own
 * statements, and this bounds the wait).
 *
 * @example
 * const facts = await withinBudget(gatherInput(store, call), DECISION_FACTS_BUDGET_MS);
 */
export function withinBudget<T>(work: Promise<T>, ms: number = DECISION_FACTS_BUDGET_MS): Promise<T> {
  // One promise settled by whichever comes first (no race of two promises and no finally: fewer turns per decision).
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new PlangateError(ErrorCode.StoreFailure, `the facts of this call were not read within its ${ms} ms budget`)), ms);
    timer.unref?.();
    work.then((value) => {
      clearTimeout(timer);
      resolve(value);
    }, (error: unknown) => {
      clearTimeout(timer);
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
