/**
 * Lists and reads the files of a rules directory, within fixed limits.
 * Reading never parses: it returns bytes, and problems for files it refused.
 */
import { constants } from 'node:fs';
import { open, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ErrorCode, RulesError, type Problem } from '../core/errors.js';

/** Largest rule file read, in bytes (1 MiB). Checked with `stat` before reading. */
export const MAX_RULE_FILE_BYTES = 1024 * 1024;
/** Most rule files one directory may hold. */
export const MAX_RULE_FILES = 500;

/** One rule file as read: its name inside the directory and its raw bytes. */
export interface RawRuleFile {
  file: string;
  bytes: Uint8Array;
}

/** What reading a rules directory produced. */
export interface RuleDirRead {
  /** Every rule file name found, sorted, including the ones that could not be read. */
  names: string[];
  /** The files that were read, sorted by name. */
  files: RawRuleFile[];
  /** One problem per file that was refused or could not be read. */
  problems: Problem[];
  /** True when some file failed with an I/O error (rather than being refused). */
  unreadable: boolean;
}

/**
 * Whether a directory entry name is a rule file: `*.yaml` or `*.yml`, not a
 * dotfile (which also skips Kubernetes ConfigMap internals such as `..data`)
 * and not a test suite kept next to the rules (`*.test.yaml`, see
 * {@link isSuiteFileName}).
 *
 * @example
 * isRuleFileName('plan.yaml')      // true
 * isRuleFileName('..data')         // false
 * isRuleFileName('desk.test.yaml') // false
 */
export function isRuleFileName(name: string): boolean {
  return !name.startsWith('.') && /\.ya?ml$/.test(name) && !isSuiteFileName(name);
}

/**
 * Whether a directory entry name is a `plangate test` suite: `*.test.yaml` or `*.test.yml`.
 *
 * @example
 * isSuiteFileName('desk.test.yaml') // true
 */
export function isSuiteFileName(name: string): boolean {
  return !name.startsWith('.') && /\.test\.ya?ml$/.test(name);
}

/**
 * Reads every rule file at the top level of `dir`, sorted by name.
 * Directories are skipped; top-level symlinks are followed within `dir`
 * (one that leads out of it is refused, unread). A file larger
 * than {@link MAX_RULE_FILE_BYTES} or that is not a regular file (a FIFO, a
 * socket, a device) is refused without reading its content.
 *
 * Throws a `RulesError` when the directory itself cannot be listed
 * (`rules_unreadable`) or holds more than {@link MAX_RULE_FILES} rule files
 * (`rules_invalid`); problems with single files are returned, not thrown.
 *
 * @example
 * const { files, problems } = await readRuleDir('examples/rules');
 */
export async function readRuleDir(dir: string): Promise<RuleDirRead> {
  const names = await listRuleNames(dir);
  if (names.length > MAX_RULE_FILES) {
    const message = `too many rule files: ${names.length} (at most ${MAX_RULE_FILES})`;
    throw new RulesError(`${dir}: ${message}`, [{ file: dir, message }]);
  }
  const result: RuleDirRead = { names: [], files: [], problems: [], unreadable: false };
  const realDir = await realpath(dir).catch(() => path.resolve(dir));
  for (const name of names) {
    const got = await readRuleFile(path.join(dir, name), name, 'rule files', realDir);
    if (got.kind === 'directory') continue;
    result.names.push(name);
    if (got.kind === 'file') result.files.push({ file: name, bytes: got.bytes });
    else {
      result.problems.push({ file: name, message: got.message });
      if (got.kind === 'unreadable') result.unreadable = true;
    }
  }
  return result;
}

/** Rule file names in `dir`, sorted by code point, directories excluded. */
async function listRuleNames(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries
      .filter((e) => isRuleFileName(e.name) && !e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch (err) {
    const message = `cannot read the rules directory: ${describeIoError(err)}`;
    throw new RulesError(`${dir}: ${message}`, [{ file: dir, message }], ErrorCode.RulesUnreadable);
  }
}

/** What reading one file gave. */
export type ReadOutcome =
  | { kind: 'file'; bytes: Uint8Array }
  | { kind: 'directory' }
  | { kind: 'refused'; message: string }
  | { kind: 'unreadable'; message: string };

/**
 * Opens without blocking (a FIFO must not hang us), checks the type and size
 * on the open handle, and only then reads. `what` names the kind of file in
 * the refusal ("rule files must be regular files").
 *
 * @example
 * await readRuleFile('rules/desk.test.yaml', 'desk.test.yaml', 'suites') // { kind: 'file', bytes }
 */
export async function readRuleFile(fullPath: string, name: string, what = 'rule files', within?: string): Promise<ReadOutcome> {
  let target = fullPath;
  if (within !== undefined) {
    // A link may lead elsewhere in the directory (as a mounted ConfigMap's do), never out of it:
    // what is out there (/proc/self/environ, a credentials file) would come back in an error message.
    try {
      target = await realpath(fullPath);
    } catch (err) {
      return { kind: 'unreadable', message: `cannot open ${name}: ${describeIoError(err)}` };
    }
    const rel = path.relative(within, target);
    if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
      return { kind: 'refused', message: `a link that leads out of the rules directory; ${what} must be in it` };
    }
  }
  let handle;
  try {
    handle = await open(target, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    return { kind: 'unreadable', message: `cannot open ${name}: ${describeIoError(err)}` };
  }
  try {
    const st = await handle.stat();
    if (st.isDirectory()) return { kind: 'directory' };
    if (!st.isFile()) return { kind: 'refused', message: `not a regular file (${fileKind(st)}); ${what} must be regular files` };
    if (st.size > MAX_RULE_FILE_BYTES) return { kind: 'refused', message: tooLarge(st.size) };
    // Read to the end, at most one byte past the limit: the file may have grown since stat.
    let buf = new Uint8Array(Math.min(st.size, MAX_RULE_FILE_BYTES) + 1);
    let len = 0;
    for (;;) {
      if (len === buf.length) {
        if (len > MAX_RULE_FILE_BYTES) return { kind: 'refused', message: tooLarge(len) };
        // Longer than stat said: make room up to the limit and go on, never returning a cut file.
        const grown = new Uint8Array(Math.min(buf.length * 2, MAX_RULE_FILE_BYTES + 1));
        grown.set(buf);
        buf = grown;
      }
      const { bytesRead } = await handle.read(buf, len, buf.length - len, null);
      if (bytesRead === 0) break;
      len += bytesRead;
    }
    return { kind: 'file', bytes: buf.subarray(0, len) };
  } catch (err) {
    return { kind: 'unreadable', message: `cannot read ${name}: ${describeIoError(err)}` };
  } finally {
    await handle.close();
  }
}

/**
 * Why a file named on its own (a suite, a blueprint, an org file) was not
 * read: its refusal or error, or that it is a directory.
 *
 * @example
 * const got = await readRuleFile(file, name, 'blueprints');
 * if (got.kind !== 'file') throw new Error(`cannot read ${file}: ${unreadReason(got)}`);
 */
export function unreadReason(outcome: Exclude<ReadOutcome, { kind: 'file' }>): string {
  return outcome.kind === 'directory' ? 'it is a directory' : outcome.message;
}

function tooLarge(size: number): string {
  return `file is too large: ${size} bytes (at most ${MAX_RULE_FILE_BYTES})`;
}

function fileKind(st: { isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a file';
}

/**
 * Readable text for a file-system error.
 *
 * @example
 * describeIoError(Object.assign(new Error('…'), { code: 'ENOENT' })) // 'no such file or directory (ENOENT)'
 */
export function describeIoError(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  const known: Record<string, string> = {
    ENOENT: 'no such file or directory',
    ENOTDIR: 'not a directory',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'read-only file system',
    ELOOP: 'too many levels of symbolic links',
    EISDIR: 'is a directory',
  };
  if (typeof code === 'string') return known[code] ? `${known[code]} (${code})` : code;
  return err instanceof Error ? err.message : String(err);
}
