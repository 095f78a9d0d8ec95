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

/** Exit status for an error; every error is 1, the mapping is kept here so adapters stay uniform. */
export function exitFor(error: unknown): number {
  if (error instanceof PlangateError && error.code === ErrorCode.PlanRequired) return EXIT.refused;
  return EXIT.error;
}
