/**
 * How many bytes the lines a read asks for take: the read guard's measure
 * of a line-counted range (the first or last N lines), since a line count
 * does not bound bytes. Counted as the reference filesystem server cuts
 * them: the first N lines end before the Nth newline, the last N lines
 * start after the Nth newline from the end, and a file with fewer newlines
 * is taken whole. Bounded work: at most `upTo` + 2 bytes are read.
 */
import { open } from 'node:fs/promises';
import type { LineCount } from '../core/types.js';

const CHUNK = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * The bytes `lines` take in the file at `path` (a regular file the caller
 * has resolved): exact up to `upTo`, `upTo + 1` when they take more.
 *
 * @example
 * await lineSpanBytes('/srv/repo/big.log', { from: 'head', count: 10 }, 1048576) // 812
 */
export async function lineSpanBytes(path: string, lines: LineCount, upTo: number): Promise<number> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const bytes = lines.from === 'head' ? await headBytes(handle, lines.count, upTo + 1) : await tailBytes(handle, size, lines.count, upTo + 2);
    return Math.min(bytes ?? size, upTo + 1);
  } finally {
    await handle.close();
  }
}

type Handle = Awaited<ReturnType<typeof open>>;

/** Where the `count`th newline is, if it is within the first `within` bytes; the file's end if it comes first. */
async function headBytes(handle: Handle, count: number, within: number): Promise<number | undefined> {
  const buffer = Buffer.allocUnsafe(Math.min(CHUNK, within));
  let seen = 0;
  let position = 0;
  while (position < within) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, within - position), position);
    if (bytesRead === 0) return position;
    for (let i = buffer.indexOf(NEWLINE); i !== -1 && i < bytesRead; i = buffer.indexOf(NEWLINE, i + 1)) {
      if (++seen === count) return position + i;
    }
    position += bytesRead;
  }
  return within;
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
