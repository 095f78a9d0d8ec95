/**
 * ISO-8601 times for audit events. Decisions come many to the millisecond:
 * the last conversion is remembered, so a burst pays for one.
 */

let lastMs = Number.NaN;
let lastIso = '';

/**
 * `new Date(ms).toISOString()`, remembering the last answer.
 *
 * @example
 * isoTime(0) // '1970-01-01T00:00:00.000Z'
 */
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
