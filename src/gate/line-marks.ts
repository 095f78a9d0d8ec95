/**
 * Where every {@link MARK_EVERY}th line starts, in the files measured
 * lately, so that a paged read deep into a large file (an offset of a
 * million lines, then the next page, and the next) does not scan the file
 * from its start on every call. A file is known by its device, inode, size
 * and change time (which every write moves, and which, unlike the
 * modification time, a process cannot set back): a change to any of them
 * starts it afresh. Kept for
 * {@link MARKED_FILES} files at most, the least recently measured dropped.
 */

/** Lines between two marks. */
export const MARK_EVERY = 4096;

/** Most files whose marks are kept. */
export const MARKED_FILES = 64;

/** Most marks kept for one file (past them, lines are counted from the last): 512 KiB of numbers at most. */
export const MARKS_PER_FILE = 65_536;

/** A file as measured: what tells one version of it from another. */
export interface FileVersion {
  dev: bigint;
  ino: bigint;
  size: bigint;
  ctimeNs: bigint;
}

const kept = new Map<string, number[]>();

/**
 * The marks of one version of a file: `marks[k]` is the byte where line
 * `(k + 1) × MARK_EVERY` starts (after that many newlines). Filled in by
 * whoever scans the file; shared by every measure of the same version.
 *
 * @example
 * const marks = marksOf(await handle.stat({ bigint: true }));
 * marks[0] // the byte where line 4096 starts, once a scan has passed it
 */
export function marksOf(v: FileVersion): number[] {
  const key = `${v.dev}:${v.ino}:${v.size}:${v.ctimeNs}`;
  let marks = kept.get(key);
  if (marks === undefined) {
    marks = [];
    if (kept.size >= MARKED_FILES) kept.delete(kept.keys().next().value as string);
  } else {
    kept.delete(key);
  }
  // Most recently measured last: the first key is the one to drop.
  kept.set(key, marks);
  return marks;
}
