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

/** `plangate test`: every selected case passed, a case failed, or the rules, the policy or a suite is invalid. */
export const TEST_EXIT = { passed: 0, failed: 1, invalid: 2 } as const;

/** `plangate diff`: nothing changes, something does, or a side, the org or the log cannot be read. */
export const DIFF_EXIT = { unchanged: 0, changed: 1, invalid: 2 } as const;

/**
 * Exit status for a command-line usage error (an unknown option, a missing
 * argument): 2 for the commands whose 1 means something else (a failing
 * case, a change), 1 for the others.
 *
 * @example
 * usageExit('diff') // 2
 */
export function usageExit(command: string | undefined): number {
  return command === 'test' ? TEST_EXIT.invalid : command === 'diff' ? DIFF_EXIT.invalid : EXIT.error;
}

/** Errors that are a refused call (thrown by `guard`): exit 3, like a refusal from `decide`. */
const REFUSALS: ReadonlySet<string> = new Set([ErrorCode.PlanRequired, ErrorCode.PlanningHold, ErrorCode.ReadGuard]);

/** Exit status for an error: 3 for a refused call thrown by `guard`, 1 for anything else. */
export function exitFor(error: unknown): number {
  if (error instanceof PlangateError && REFUSALS.has(error.code)) return EXIT.refused;
  return EXIT.error;
}
