/**
 * Typed errors with stable codes. Adapters map a code to an exit status,
 * an HTTP status or a protocol error in one table each; nothing else
 * inspects error messages.
 */

/** Every error code plangate raises, in one place. */
export const ErrorCode = {
  /** A rule file is malformed or violates the schema; `details` lists each problem. */
  RulesInvalid: 'rules_invalid',
  /** The rules directory or a rule file cannot be read. */
  RulesUnreadable: 'rules_unreadable',
  /**
   * The rules location does not exist or holds no rule file, at start: a
   * configuration error (a typo must not switch the gate off), not a
   * failure to fail open on. `--rules-optional` starts without rules.
   */
  RulesMissing: 'rules_missing',
  /** A rules edit was refused (e.g. the result would be invalid). */
  RulesEditRefused: 'rules_edit_refused',
  /** The compiled policy cannot be loaded or evaluated. */
  PolicyUnavailable: 'policy_unavailable',
  /** The policy returned something other than a decision. */
  PolicyResultInvalid: 'policy_result_invalid',
  /** A call, message or org change is malformed. */
  InvalidInput: 'invalid_input',
  /** An org change refers to something that does not exist. */
  NotFound: 'not_found',
  /** An org change would create a cycle or conflicts with existing state. */
  Conflict: 'conflict',
  /** The store failed. */
  StoreFailure: 'store_failure',
  /**
   * The store cannot be reached for now (the database refuses or drops the
   * connection, or another connection holds the SQLite file's lock past the
   * busy timeout): the same request may succeed when retried.
   */
  StoreUnavailable: 'store_unavailable',
  /** A call was refused by plan-required (thrown only by `guard`). */
  PlanRequired: 'plan_required',
  /** A call was refused because it needs a person's approval of that exact call (thrown only by `guard`). */
  ApprovalRequired: 'approval_required',
  /** A call was refused because the agent is on a planning hold (thrown only by `guard`). */
  PlanningHold: 'planning_hold',
  /** A whole-file read over the ceiling was refused by the read guard (thrown only by `guard`). */
  ReadGuard: 'read_guard',
  /** A pinned MCP tool whose definition changed was refused (thrown only by `guard`). */
  ToolChanged: 'tool_changed',
  /** A reviewer hold was refused: the planning gate is off for that agent. */
  PlanningGateOff: 'planning_gate_off',
  /** A hold was refused: the agent is already held (clear it first with unblock). */
  AlreadyHeld: 'already_held',
  /** A plan, push-back, release or unblock named an agent that is not held. */
  NotHeld: 'not_held',
  /**
   * A claim beyond the caller's own seat that the record does not back: a
   * delegation not on record, a thread the seat does not speak in, a kind
   * that belongs to the reviewer. Refused (and audited), never believed.
   */
  ClaimRefused: 'claim_refused',
  /** A seat's write is over one of its quotas (core/quotas.ts); the message names it. */
  QuotaExceeded: 'quota_exceeded',
  /** The caller may not answer this approval request (it is not among its approvers; an agent never is). */
  NotApprover: 'not_approver',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** One located problem, e.g. in a rule file. */
export interface Problem {
  file?: string;
  line?: number;
  col?: number;
  /** A JSON-pointer-like path inside the document, when known. */
  path?: string;
  message: string;
}

/** Formats a problem as `file:line:col: message`. */
export function formatProblem(p: Problem): string {
  const where = [p.file, p.line, p.col].filter((x) => x !== undefined).join(':');
  return where ? `${where}: ${p.message}` : p.message;
}

/**
 * The base of every plangate error.
 *
 * @example
 * throw new PlangateError(ErrorCode.InvalidInput, 'call.tool must be a non-empty string');
 */
export class PlangateError extends Error {
  readonly code: ErrorCode;
  readonly details: Problem[];

  constructor(code: ErrorCode, message: string, details: Problem[] = [], options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PlangateError';
    this.code = code;
    this.details = details;
  }
}

/** Raised when rule files are invalid; `details` holds every problem found. */
export class RulesError extends PlangateError {
  constructor(message: string, details: Problem[], code: ErrorCode = ErrorCode.RulesInvalid) {
    super(code, message, details);
    this.name = 'RulesError';
  }
}

/** Turns anything thrown (the WASM SDK throws strings) into an Error. */
export function toError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  if (typeof thrown === 'string') return new Error(thrown);
  if (thrown && typeof thrown === 'object' && 'message' in thrown) {
    return new Error(String((thrown as { message: unknown }).message));
  }
  return new Error(String(thrown));
}

/**
 * A write refused by a seat's quota: `quota` is `quota:<kind>:<rate|standing>`,
 * `retryAfterSec` is set when the rate refused (the window frees a write then).
 *
 * @example
 * new QuotaExceededError('quota:messages:rate', 'over its quota…', 42).retryAfterSec // 42
 */
export class QuotaExceededError extends PlangateError {
  readonly quota: string;
  readonly retryAfterSec: number | undefined;

  constructor(quota: string, message: string, retryAfterSec?: number) {
    super(ErrorCode.QuotaExceeded, message);
    this.name = 'QuotaExceededError';
    this.quota = quota;
    this.retryAfterSec = retryAfterSec;
  }
}

/**
 * What anyone but an operator is told of a store error, by its code. Its
 * own message is the store's (a database's host and user, a file's path, a
 * driver's words): the operator's log has it.
 */
export const STORE_ERROR_SHOWN: Readonly<Partial<Record<ErrorCode, string>>> = Object.freeze({
  [ErrorCode.StoreUnavailable]: "plangate's store cannot be reached; retry in a moment",
  [ErrorCode.StoreFailure]: "plangate's store failed",
});

/**
 * The words of a store error that anyone but an operator may read, or
 * undefined for any other error (its own message is written for callers).
 *
 * @example
 * storeErrorShown(new PlangateError(ErrorCode.StoreUnavailable, 'postgres store: … db.internal:5432 …')) // "plangate's store cannot be reached; retry in a moment"
 */
export function storeErrorShown(error: unknown): string | undefined {
  return error instanceof PlangateError ? STORE_ERROR_SHOWN[error.code] : undefined;
}

/**
 * The code of a refused (or shadow-refused) decision. The policy always sets
 * it and the engine rejects a refusal without one; the fallback only keeps
 * the type total.
 *
 * @example
 * refusalCode({ tool: 'x', code: 'plan_required:x:stale' }) // 'plan_required:x:stale'
 */
export function refusalCode(decision: { code?: string; tool: string; check?: string }): string {
  if (decision.code !== undefined) return decision.code;
  const check = decision.check ?? 'plan_required';
  return `${check}:${decision.tool}${check === 'plan_required' ? ':none' : ''}`;
}

/**
 * Thrown by `gate.guard()` when plan-required refuses a call; the effect was
 * not started. `code` is always `plan_required`; the refusal's own code
 * (`plan_required:<tool>:<none|stale>`) is `refusal`.
 */
export class PlanRequiredError extends PlangateError {
  readonly refusal: string;
  readonly tool: string;
  readonly reason: 'none' | 'stale';

  constructor(decision: { code?: string; tool: string; reason?: 'none' | 'stale'; message?: string }) {
    super(ErrorCode.PlanRequired, decision.message ?? refusalCode(decision));
    this.name = 'PlanRequiredError';
    this.refusal = refusalCode(decision);
    this.tool = decision.tool;
    this.reason = decision.reason ?? 'none';
  }
}

/**
 * Thrown by `gate.guard()` when a call is refused by the planning hold or the
 * read guard; the effect was not started. `code` is `planning_hold` or
 * `read_guard`; the refusal's own code (`planning_hold:<tool>`,
 * `read_guard:<tool>`) is `refusal`.
 *
 * @example
 * try { await gate.guard(call, effect); } catch (e) { if (e instanceof CallRefusedError) reply(e.refusal, e.message); }
 */
export class CallRefusedError extends PlangateError {
  readonly refusal: string;
  readonly tool: string;

  constructor(code: typeof ErrorCode.PlanningHold | typeof ErrorCode.ReadGuard | typeof ErrorCode.ApprovalRequired | typeof ErrorCode.ToolChanged, decision: { code?: string; tool: string; message?: string }) {
    super(code, decision.message ?? refusalCode({ ...decision, check: code }));
    this.name = 'CallRefusedError';
    this.refusal = refusalCode({ ...decision, check: code });
    this.tool = decision.tool;
  }
}
