/**
 * Driver errors become typed store failures; plangate's own errors pass through.
 */
import { ErrorCode, PlangateError } from '../../core/errors.js';

/**
 * Runs `fn`; anything but a PlangateError becomes a `store_failure`, or a
 * `store_unavailable` when another connection held the file's lock past the
 * busy timeout (SQLITE_BUSY, SQLITE_LOCKED and their extended codes).
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
    if (isLocked(err)) {
      throw new PlangateError(ErrorCode.StoreUnavailable, `sqlite store: ${what} failed: the database file is locked by another connection (${msg})`, [], { cause: err });
    }
    throw new PlangateError(ErrorCode.StoreFailure, `sqlite store: ${what} failed: ${msg}`, [], { cause: err });
  }
}

/** Whether better-sqlite3 failed because the file was busy or locked. */
export function isLocked(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)(_|$)/.test(code);
}
