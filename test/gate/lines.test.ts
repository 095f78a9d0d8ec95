/**
 * The read guard's measure of a line-counted read against what the
 * reference filesystem server really returns for `head` and `tail` of a
 * UTF-8 text file: never less than the bytes it returns, and no more than
 * one byte beyond them. (The ceiling is in the file's bytes: the server
 * may return more for bytes that are not UTF-8.)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: the server ships JavaScript without declarations
import { headFile, tailFile } from '@modelcontextprotocol/server-filesystem/dist/lib.js';
import { MARK_EVERY, marksOf } from '../../src/gate/line-marks.js';
import { lineSpanBytes, MAX_SKIP_BYTES } from '../../src/gate/lines.js';
import type { LineCount } from '../../src/core/types.js';

const dir = mkdtempSync(join(tmpdir(), 'plangate-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const served = async (path: string, l: LineCount): Promise<number> =>
  Buffer.byteLength((l.from === 'head' ? await headFile(path, l.count) : await tailFile(path, l.count)) as string);

/** Lines of a few bytes to far over one 64 KiB read, some empty, some not ASCII. */
const line = fc.oneof(
  fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, '')),
  fc.constant(''),
  fc.integer({ min: 1, max: 90_000 }).map((n) => 'é'.repeat(n >> 1)),
);

describe('lineSpanBytes', () => {
  it('bounds what the filesystem server returns for head and tail, to the byte', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 60 }),
        fc.boolean(),
        fc.constantFrom<'head' | 'tail'>('head', 'tail'),
        fc.integer({ min: 1, max: 80 }),
        fc.integer({ min: 0, max: 300_000 }),
        async (lines, trailing, from, count, upTo) => {
          const path = join(dir, `f${n++}.txt`);
          writeFileSync(path, lines.join('\n') + (trailing && lines.length > 0 ? '\n' : ''));
          const actual = await served(path, { from, count });
          const measured = await lineSpanBytes(path, { from, count }, upTo);
          expect(measured).toBeLessThanOrEqual(upTo + 1);
          if (measured <= upTo) {
            expect(measured).toBeGreaterThanOrEqual(actual);
            expect(measured - actual).toBeLessThanOrEqual(1);
          } else {
            expect(actual + 1).toBeGreaterThan(upTo);
          }
        },
      ),
      { numRuns: 300 },
    );
  }, 60_000);

  it('takes one line with no newline as the whole file, from either end', async () => {
    const path = join(dir, 'minified.js');
    writeFileSync(path, 'x'.repeat(5000));
    expect(await lineSpanBytes(path, { from: 'head', count: 1 }, 100)).toBe(101);
    expect(await lineSpanBytes(path, { from: 'tail', count: 1 }, 100)).toBe(101);
    expect(await lineSpanBytes(path, { from: 'tail', count: 1 }, 10_000)).toBe(5000);
  });

  it('counts a huge line count without reading past the ceiling', async () => {
    const path = join(dir, 'short-lines.txt');
    writeFileSync(path, 'ab\n'.repeat(100_000));
    expect(await lineSpanBytes(path, { from: 'head', count: Number.MAX_SAFE_INTEGER }, 1000)).toBe(1001);
    expect(await lineSpanBytes(path, { from: 'head', count: 3 }, 1000)).toBe(8);
    expect(await lineSpanBytes(path, { from: 'tail', count: 3 }, 1000)).toBe(6); // 'ab\nab\n': the last line is the empty one after the final newline
  });

  it('measures the lines after those an offset skips, as a tool reading from that line returns them', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 60 }), fc.boolean(), fc.integer({ min: 1, max: 70 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 300_000 }),
        async (lines, trailing, skip, count, upTo) => {
          const text = lines.join('\n') + (trailing && lines.length > 0 ? '\n' : '');
          const path = join(dir, `s${n++}.txt`);
          writeFileSync(path, text);
          const segments = text.split('\n');
          // Past the last line a tool may wrap the offset around: the lines are measured from the start.
          const from = skip >= segments.length ? 0 : skip;
          const actual = Buffer.byteLength(segments.slice(from, from + count).join('\n'));
          const measured = await lineSpanBytes(path, { from: 'head', count, skip }, upTo);
          if (measured <= upTo) {
            expect(measured).toBeGreaterThanOrEqual(actual);
            expect(measured - actual).toBeLessThanOrEqual(1);
          } else {
            expect(measured).toBe(upTo + 1);
            expect(actual + 1).toBeGreaterThan(upTo);
          }
        }),
      { numRuns: 300 },
    );
  }, 60_000);

  it('pages deep into a large file from the marks earlier measures left, with the same answers, until the file changes', async () => {
    const path = join(dir, 'paged.log');
    const lengths = Array.from({ length: 5 * MARK_EVERY + 37 }, (_, i) => (i * 7) % 53);
    const expected = (text: string, skip: number, count: number): number => {
      const segments = text.split('\n');
      const from = skip >= segments.length ? 0 : skip;
      return Buffer.byteLength(segments.slice(from, from + count).join('\n'));
    };
    const skips = [3 * MARK_EVERY + 5, MARK_EVERY, MARK_EVERY - 1, MARK_EVERY + 1, 4 * MARK_EVERY, 2 * MARK_EVERY, 5 * MARK_EVERY + 36, 5 * MARK_EVERY + 40, 7];
    // A version is known by its change time, which a writer cannot set back as it can the modification time.
    const v = { dev: 1n, ino: 2n, size: 3n, ctimeNs: 4n };
    expect(marksOf(v)).toBe(marksOf({ ...v }));
    expect(marksOf(v)).not.toBe(marksOf({ ...v, ctimeNs: 5n }));
    // Two versions of one size, their lines in the opposite order; the second gets the first's modification time back.
    const versions = [lengths, [...lengths].reverse()].map((ls) => ls.map((n) => 'l'.repeat(n)).join('\n'));
    let first: { atime: Date; mtime: Date } | undefined;
    for (const text of versions) {
      writeFileSync(path, text);
      if (first) utimesSync(path, first.atime, first.mtime);
      else first = statSync(path);
      for (const round of [1, 2]) {
        for (const skip of skips) {
          const measured = await lineSpanBytes(path, { from: 'head', count: 3, skip }, 10_000);
          expect(measured - expected(text, skip, 3), `round ${round}, skip ${skip}`).toBeGreaterThanOrEqual(0);
          expect(measured - expected(text, skip, 3), `round ${round}, skip ${skip}`).toBeLessThanOrEqual(1);
        }
      }
      // The marks spare the bytes before them: a budget far short of the offset's depth suffices now.
      const deep = 5 * MARK_EVERY + 2;
      const budget = { bytes: 64 * 1024 };
      expect(Buffer.byteLength(text.split('\n').slice(0, deep).join('\n'))).toBeGreaterThan(budget.bytes);
      expect(await lineSpanBytes(path, { from: 'head', count: 1, skip: deep }, 10_000, budget)).toBe(expected(text, deep, 1));
    }
  });

  it('refuses to measure lines an offset puts too deep in the file, or anything but a regular file', async () => {
    const deep = join(dir, 'deep.bin');
    writeFileSync(deep, '');
    truncateSync(deep, MAX_SKIP_BYTES + 1024); // sparse zeros: no newline before the limit
    await expect(lineSpanBytes(deep, { from: 'head', count: 1, skip: 1 }, 100)).rejects.toThrow(/do not end within/);
    // The budget is the call's, shared by its measures: once one has spent it, the next cannot look.
    const lined = join(dir, 'lined.txt');
    writeFileSync(lined, 'x'.repeat(900) + '\n' + 'y\n'.repeat(10));
    const budget = { bytes: 1000 };
    expect(await lineSpanBytes(lined, { from: 'head', count: 2, skip: 1 }, 100, budget)).toBe(3);
    expect(budget.bytes).toBe(1000 - 921); // the whole file, read in one go
    await expect(lineSpanBytes(lined, { from: 'head', count: 1, skip: 1 }, 100, budget)).rejects.toThrow(/do not end within/);
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    // A FIFO swapped in for the file is never waited on.
    await expect(lineSpanBytes(fifo, { from: 'head', count: 1 }, 100)).rejects.toThrow(/regular file/);
  });
});
