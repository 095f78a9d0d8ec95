/**
 * The one map from outcome to exit status for the CLI.
 */
import { ErrorCode, PlangateError } from '../../core/errors.js';

export const EXIT = {
  ok: 0,
  /** Any error: bad input, invalid rules, a failing store. */
  error: 1,
  /** `decide`/`explain`: the call was refused. */
  refused: 3,
} as const;

/** Errors that are a refused call (thrown by `guard`): exit 3, like a refusal from `decide`. */
const REFUSALS: ReadonlySet<string> = new Set([ErrorCode.PlanRequired, ErrorCode.PlanningHold, ErrorCode.ReadGuard]);

/** Exit status for an error: 3 for a refused call thrown by `guard`, 1 for anything else. */
export function exitFor(error: unknown): number {
  if (error instanceof PlangateError && REFUSALS.has(error.code)) return EXIT.refused;
  return EXIT.error;
}
