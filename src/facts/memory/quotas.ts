/**
 * The memory store's quota counts: per seat, its rows' times kept sorted,
 * so that each count is a binary search and stops at its limit.
 */
import type { QuotaCountQuery, QuotaCounts } from '../../core/quotas.js';
import { edgeOffset } from '../quotas.js';

/** Times (epoch ms) kept ascending per seat. */
export class SeatTimes {
  private readonly bySeat = new Map<string, number[]>();

  /** Records one row of `seat` at `at`. */
  add(seat: string, at: number): void {
    let list = this.bySeat.get(seat);
    if (list === undefined) this.bySeat.set(seat, (list = []));
    list.splice(firstAfter(list, at), 0, at);
  }

  /** The times of `seat`, ascending (the live list: do not change it). */
  of(seat: string): readonly number[] {
    return this.bySeat.get(seat) ?? [];
  }
}

/** A row's time: the row itself when it is a time, else its `at`. */
type Timed = number | { at: number };
const timeOf = (x: Timed): number => (typeof x === 'number' ? x : x.at);

/** The first index whose time is after `t`. */
function firstAfter(times: readonly Timed[], t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (timeOf(times[mid] as Timed) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The counts of a query over one seat's ascending times (or rows with `at`) (`standing` given
 * when it is not the number of rows, as for a hold's plans).
 *
 * @example
 * countTimes([1, 2, 3], { since: 1, rateLimit: 11, standingLimit: 101 }) // { recent: 2, standing: 3 }
 */
export function countTimes(times: readonly Timed[], q: Pick<QuotaCountQuery, 'since' | 'rateLimit' | 'standingLimit'>, standing?: number): QuotaCounts {
  const start = firstAfter(times, q.since);
  const recent = Math.min(q.rateLimit, times.length - start);
  const kept = Math.min(q.standingLimit, standing ?? times.length);
  const offset = edgeOffset(q, recent);
  const at = offset === undefined ? undefined : times[times.length - 1 - offset];
  const edge = at === undefined ? undefined : timeOf(at);
  return edge === undefined ? { recent, standing: kept } : { recent, standing: kept, edge };
}
