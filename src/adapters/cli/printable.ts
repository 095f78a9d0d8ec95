/**
 * Text from the record as a terminal may show it: what an agent wrote (a
 * path in a read-guard refusal, a task) must not forge lines, move the
 * cursor or recolour what an operator reads.
 */

/** Control characters (C0 but the tab, DEL and C1) and the bidirectional overrides and isolates. */
const UNPRINTABLE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with each of those written as a `\uXXXX` escape.
 *
 * @example
 * printable('big.log\n2026-01-01  forged line') // 'big.log\\u000a2026-01-01  forged line'
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
