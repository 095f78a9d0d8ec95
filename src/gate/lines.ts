/**
 * How many bytes the lines a read asks for take: the read guard's measure
 * of a line-counted range (the first or last N lines, the first N after
 * the lines an offset skips), since a line count does not bound bytes.
 * Counted as the reference filesystem server cuts them: the first N lines
 * end before the Nth newline, the last N lines start after the Nth newline
 * from the end, and a file with fewer newlines is taken whole. Bounded
 * work: at most `upTo` + 2 bytes are read to measure, and to find where
 * skipped lines end at most what is left of a budget shared by the call's
 * measures ({@link MAX_SKIP_BYTES} unless given).
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { LineCount } from '../core/types.js';
import { MARK_EVERY, MARKS_PER_FILE, marksOf } from './line-marks.js';

/** How many bytes one call's measures may read to find where skipped lines end; past that, the lines cannot be measured. */
export const MAX_SKIP_BYTES = 64 * 1024 * 1024;

/** What is left of a call's budget for finding where skipped lines end, shared by its measures. */
export interface SkipBudget {
  bytes: number;
}

const CHUNK = 64 * 1024;
const NEWLINE = 0x0a;
// Never wait on a FIFO swapped in for the file, never follow a link swapped in for it.
const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

/**
 * The bytes `lines` take in the file at `path` (a regular file the caller
 * has resolved): exact up to `upTo`, `upTo + 1` when they take more.
 * Rejects when the file cannot be read as a regular file now, or the
 * skipped lines do not end within what is left of `budget`.
 *
 * @example
 * await lineSpanBytes('/srv/repo/big.log', { from: 'head', count: 10 }, 1048576) // 812
 */
export async function lineSpanBytes(path: string, lines: LineCount, upTo: number, budget: SkipBudget = { bytes: MAX_SKIP_BYTES }): Promise<number> {
  const handle = await open(path, FLAGS);
  try {
    const stats = await handle.stat({ bigint: true });
    if (!stats.isFile()) throw new Error(`${path} is no longer a regular file`);
    const size = Number(stats.size);
    if (lines.from === 'tail') return Math.min((await tailBytes(handle, size, lines.count, upTo + 2)) ?? size, upTo + 1);
    // Fewer lines than the offset skips: a tool may wrap the offset around, so measure from the start.
    const start = (lines.skip ? await afterLines(handle, lines.skip, budget, marksOf(stats)) : 0) ?? 0;
    return Math.min(await headBytes(handle, start, lines.count, upTo + 1), upTo + 1);
  } finally {
    await handle.close();
  }
}

type Handle = Awaited<ReturnType<typeof open>>;

/** Where a scan stopped: at the newline it looked for, at the file's end, or at its limit. */
type Stop = { newline: number } | { end: number } | 'limit';

/**
 * Calls `each` with the position of every newline from `from` on, until it
 * returns true, the file ends or `within` bytes are read; with a `budget`,
 * every byte read is taken from it too.
 */
async function scan(handle: Handle, from: number, within: number, each: (at: number) => boolean, budget?: SkipBudget): Promise<Stop> {
  const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK, within)));
  let position = from;
  while (position - from < within && (budget === undefined || budget.bytes > 0)) {
    const length = Math.min(buffer.length, within - (position - from), budget?.bytes ?? Number.POSITIVE_INFINITY);
    // Taken from the budget before the read and what was not read given back, so measures at once never overspend it.
    if (budget) budget.bytes -= length;
    const { bytesRead } = await handle.read(buffer, 0, length, position);
    if (budget) budget.bytes += length - bytesRead;
    if (bytesRead === 0) return { end: position };
    const read = buffer.subarray(0, bytesRead);
    for (let i = read.indexOf(NEWLINE); i !== -1; i = read.indexOf(NEWLINE, i + 1)) {
      if (each(position + i)) return { newline: position + i };
    }
    position += bytesRead;
  }
  return 'limit';
}

/**
 * Where the line after the first `skip` lines starts; undefined when the
 * file has no more lines. Scans from the nearest of the file's `marks`
 * before it, and leaves a mark at every {@link MARK_EVERY}th line it passes.
 */
async function afterLines(handle: Handle, skip: number, budget: SkipBudget, marks: number[]): Promise<number | undefined> {
  const k = Math.min(Math.floor(skip / MARK_EVERY), marks.length);
  let seen = k * MARK_EVERY;
  const from = k === 0 ? 0 : (marks[k - 1] as number);
  if (seen === skip) return from;
  const stop = await scan(handle, from, Number.POSITIVE_INFINITY, (at) => {
    seen++;
    if (seen === (marks.length + 1) * MARK_EVERY && marks.length < MARKS_PER_FILE) marks.push(at + 1);
    return seen === skip;
  }, budget);
  if (stop === 'limit') throw new Error('the lines skipped do not end within the bytes a call may read to find them');
  return 'newline' in stop ? stop.newline + 1 : undefined;
}

/** The bytes from `start` to the `count`th newline after it, if within `within` bytes; to the file's end (as read) if it comes first. */
async function headBytes(handle: Handle, start: number, count: number, within: number): Promise<number> {
  let seen = 0;
  const stop = await scan(handle, start, within, () => ++seen === count);
  if (stop === 'limit') return within;
  return ('newline' in stop ? stop.newline : stop.end) - start;
}

/** The bytes after the `count`th newline from the end, if it is within the last `within` bytes; undefined (the whole file) when there is none. */
async function tailBytes(handle: Handle, size: number, count: number, within: number): Promise<number | undefined> {
  const buffer = Buffer.allocUnsafe(Math.min(CHUNK, within));
  const stop = Math.max(0, size - within);
  let seen = 0;
  let end = size;
  while (end > stop) {
    const length = Math.min(buffer.length, end - stop);
    const start = end - length;
    const { bytesRead } = await handle.read(buffer, 0, length, start);
    if (bytesRead < length) return undefined; // the file shrank under us: take it whole
    for (let i = buffer.lastIndexOf(NEWLINE, length - 1); i !== -1; i = i === 0 ? -1 : buffer.lastIndexOf(NEWLINE, i - 1)) {
      if (++seen === count) return size - (start + i) - 1;
    }
    end = start;
  }
  return stop === 0 ? undefined : within;
}
