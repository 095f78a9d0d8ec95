/**
 * The quota check of a seat's write, shared by every door (the gate's say,
 * the reviewer channel, runs and delegations; the tool-call pipeline asks it
 * before plangate's own tools): ask the policy the quota in force, count
 * the seat's rows up to it plus one, and ask the policy whether one more is
 * over. Over quota throws `quota_exceeded` naming the quota; a quota that
 * cannot be judged refuses the write (core/quotas.ts).
 */
import { ErrorCode, PlangateError, QuotaExceededError, toError } from '../core/errors.js';
import { HOLD_PLANS_ON_POLICY_FAILURE, QUOTA_ON_COUNT_FAILURE, QUOTA_ON_POLICY_FAILURE, type CountedQuotaKind, type QuotaCounts, type QuotaLimit } from '../core/quotas.js';
import type { Evaluator } from '../engine/policy.js';
import type { QuotaStore } from '../facts/port.js';
import { withinBudget } from './store-failures.js';

/** Checks one write of `seat`; resolves when it is within quota, throws otherwise. */
export type QuotaCheck = (seat: string, kind: CountedQuotaKind) => Promise<void>;

export interface QuotaCheckOptions {
  store: QuotaStore;
  evaluator: () => Evaluator;
  clock: () => number;
  /** Told every write refused for its quota (the metric). */
  onRefused?: (kind: CountedQuotaKind, limit: QuotaLimit, seat: string) => void;
}

/**
 * Creates the check.
 *
 * @example
 * const check = createQuotaCheck({ store, evaluator: () => engine, clock: Date.now });
 * await check('0xWORKER', 'messages'); // throws QuotaExceededError when over
 */
export function createQuotaCheck(options: QuotaCheckOptions): QuotaCheck {
  return async (seat, kind) => {
    const evaluator = options.evaluator();
    if (!evaluator.quota) {
      if (kind === 'holdPlans' && HOLD_PLANS_ON_POLICY_FAILURE === 'let_through') return;
      if (QUOTA_ON_POLICY_FAILURE === 'fail_closed') {
        throw new PlangateError(ErrorCode.PolicyUnavailable, `the ${kind} quota of ${seat} cannot be judged: the policy is unavailable, so the write is refused`);
      }
      return;
    }
    const now = options.clock();
    const { limits } = evaluator.quota({ kind, seat, now });
    let counts: QuotaCounts;
    try {
      counts = await withinBudget(options.store.quotaCounts({
        kind, seat, since: now - limits.windowMin * 60_000, rateLimit: limits.rate + 1, standingLimit: limits.standing + 1,
      }));
    } catch (error) {
      // A count that failed or outlasted its budget: the write is refused (fail closed), with the store's code.
      if (QUOTA_ON_COUNT_FAILURE === 'fail_closed') throw countFailure(error, kind, seat);
      return;
    }
    const verdict = evaluator.quota({ kind, seat, now, counts });
    if (verdict.allowed) return;
    const limit = verdict.limit ?? 'standing';
    options.onRefused?.(kind, limit, seat);
    throw new QuotaExceededError(verdict.code ?? `quota:${kind}:${limit}`, verdict.message ?? `${seat} is over its ${kind} quota`, verdict.retryAfterSec);
  };
}

/** The error of a write whose quota could not be counted: the store's code (unavailable or failed), saying the write was refused. */
function countFailure(error: unknown, kind: CountedQuotaKind, seat: string): PlangateError {
  const code = error instanceof PlangateError && error.code === ErrorCode.StoreUnavailable ? ErrorCode.StoreUnavailable : ErrorCode.StoreFailure;
  return new PlangateError(code, `the ${kind} quota of ${seat} could not be counted (${toError(error).message}): the write is refused, not let through uncounted`, [], { cause: error });
}
