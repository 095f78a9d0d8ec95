/**
 * Per-seat quotas on what an agent writes: a rate (rows in a window) and a
 * standing count (rows the store keeps) per kind of write, set in the rules
 * (`quotas:`), with the policy's defaults where they say nothing. Whether a
 * write is over quota is the policy's answer (policies/plangate/quota.rego);
 * the counts are facts the store reads, each with an index on (seat, time)
 * and a limit of the quota plus one, so that a count costs no more however
 * many rows the seat wrote.
 */

/**
 * The kinds of write a quota bounds. `approvalRequests` counts the approval
 * requests recorded for a seat (a retry joining a pending request records none).
 */
export const QUOTA_KINDS = ['messages', 'delegations', 'runs', 'holdPlans', 'approvalRequests'] as const;
export type QuotaKind = (typeof QUOTA_KINDS)[number];

/** The kinds the stores count: every kind. */
export type CountedQuotaKind = QuotaKind;

/** Which bound refused a write. */
export type QuotaLimit = 'rate' | 'standing';

/** One kind's quota as a rule file sets it (each field optional) with where. */
export interface QuotaRule {
  rate?: number;
  windowMin?: number;
  standing?: number;
  source: string;
}

/** One kind's quota in force (the policy's answer, defaults filled in). */
export interface QuotaLimits {
  kind: QuotaKind;
  /** Writes allowed per window. */
  rate: number;
  windowMin: number;
  /** Rows of this kind the store may keep for the seat. */
  standing: number;
  /** `file:line:col` of the rule, or absent for the built-in defaults. */
  source?: string;
}

/** What one count asks the store: each count stops at its limit. */
export interface QuotaCountQuery {
  kind: CountedQuotaKind;
  seat: string;
  /** Rows written after this time (epoch ms) are in the window. */
  since: number;
  /** Counting stops here: the rate plus one. */
  rateLimit: number;
  /** Counting stops here: the standing count plus one. */
  standingLimit: number;
  /** With `rateLimit - 1` or more rows in the window: the time of the oldest of the newest `rateLimit - 1`, for Retry-After. */
  edge?: boolean;
}

/** The counts, each at most its limit. */
export interface QuotaCounts {
  recent: number;
  standing: number;
  /** The time (epoch ms) of the `rate`-th newest row in the window, when there are that many: the window frees one when it leaves. */
  edge?: number;
}

/** The policy's verdict on one write. */
export interface QuotaVerdict {
  allowed: boolean;
  limits: QuotaLimits;
  /** When refused: `quota:<kind>:<rate|standing>`. */
  code?: string;
  limit?: QuotaLimit;
  message?: string;
  /** Seconds until the rate frees a write, when the rate refused. */
  retryAfterSec?: number;
}

/**
 * What a write does when its quota cannot be judged — the store fails while
 * counting, or there is no policy to ask: it is refused. A quota protects
 * the store; a write it cannot count is one the store may not be able to
 * take, and letting writes through uncounted is exactly what a flood needs.
 * Refusing a post loses no decision: plan-required fails open on its own
 * when the store is out (core/failopen.ts).
 */
export const QUOTA_ON_COUNT_FAILURE = 'fail_closed' as const;

/** The same when the rules or the policy cannot be read (no policy to judge the counts). */
export const QUOTA_ON_POLICY_FAILURE = 'fail_closed' as const;

/**
 * The one exception with no policy: a plan to the reviewer goes through.
 * A held agent stays held through a broken policy, and the host's
 * fail-closed hold rule keeps its reviewer channel open so it can still
 * send its plan (core/failclosed.ts); refusing that plan would leave it no
 * way forward but an operator's unblock.
 */
export const HOLD_PLANS_ON_POLICY_FAILURE = 'let_through' as const;
