/**
 * Driver errors become typed store failures; plangate's own errors pass through.
 */
import { ErrorCode, PlangateError } from '../../core/errors.js';

/**
 * Runs `fn`; anything but a PlangateError becomes a `store_failure`.
 *
 * @example
 * const row = guard('lineage', () => stmt.get(id));
 */
export function guard<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof PlangateError) throw err;
    const msg = err instanceof Error ? err.message : String(err);
    throw new PlangateError(ErrorCode.StoreFailure, `sqlite store: ${what} failed: ${msg}`, [], { cause: err });
  }
}
