/**
 * The memory store's message rows and the sorted lists that hold them
 * (by time, then id): binary search, insertion, the newest rows at a time.
 */
import type { AuthorKind, MessageFact, StoredMessage } from '../../core/types.js';
import { toFact } from '../validate.js';

export interface Row {
  id: string;
  /** The id as a number, for ordering (ids are decimal integers, later posts larger). */
  seq: number;
  thread: string;
  author: string;
  authorKind: AuthorKind;
  kind: string;
  body: string;
  at: number;
  runId?: string;
}

/** Sorted by `at` ascending, then by insertion (= id) order. */
export type Sorted = Row[];

/**
 * The first index whose `at` is greater than `t` (binary search). A
 * decision's time is usually after every stored message: that case reads
 * only the last row.
 */
export function upperBound(rows: Sorted, t: number): number {
  let hi = rows.length;
  if (hi === 0 || (rows[hi - 1] as Row).at <= t) return hi;
  let lo = 0;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((rows[mid] as Row).at <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The newest row with `at <= now`, if any. */
export function newestOne(rows: Sorted | undefined, now: number): Row | undefined {
  if (!rows) return undefined;
  const end = upperBound(rows, now);
  return end > 0 ? rows[end - 1] : undefined;
}

/** Inserts after every row with the same or an earlier time: ids grow, so order stays (at, id). */
export function insertSorted(rows: Sorted, row: Row): void {
  rows.splice(upperBound(rows, row.at), 0, row);
}

/** The newest `n` rows with `at <= now`, newest first. */
export function newest(rows: Sorted | undefined, now: number, n: number): Row[] {
  if (!rows || n <= 0) return [];
  const end = upperBound(rows, now);
  return rows.slice(Math.max(0, end - n), end).reverse();
}

/** `map.get(key)`, creating the entry with `make()` when absent. */
export function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    map.set(key, v);
  }
  return v;
}

export function copy(row: Row): StoredMessage {
  return { ...toFact(row), body: row.body };
}

/** Newest first; equal times by id descending (the order of `dedupeNewestFirst`). */
function newestRowFirst(a: Row, b: Row): number {
  return b.at - a.at || b.seq - a.seq;
}

/** The facts of `rows`, each once, newest first. */
export function factsOf(rows: Row[]): MessageFact[] {
  rows.sort(newestRowFirst);
  const out: MessageFact[] = [];
  let last: Row | undefined;
  for (const r of rows) {
    // The same message found twice (e.g. a plan that is also context) sorts next to itself.
    if (r !== last) out.push(toFact(r));
    last = r;
  }
  return out;
}
