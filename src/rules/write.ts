/**
 * Atomic replacement of one rule file: a temporary file in the same
 * directory, fsync, then rename over the target.
 */
import { randomBytes } from 'node:crypto';
import { open, readFile, realpath, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ErrorCode, RulesError } from '../core/errors.js';
import { describeIoError } from './read.js';

/**
 * Writes `text` to `file` atomically. `expected` is the content the caller
 * based its edit on (`null`: the file must not exist yet); if the file no
 * longer holds it, nothing is written and the edit is refused, so a
 * concurrent edit is never silently overwritten. A symlinked file is written
 * through to its target; the file keeps its permission bits.
 *
 * Throws a `RulesError` with code `rules_edit_refused` when the file cannot
 * be written (read-only directory, permissions) or changed meanwhile.
 *
 * @example
 * await writeFileAtomic('rules/plan.yaml', 'planRequired: {}\n', await readFile('rules/plan.yaml'));
 */
export async function writeFileAtomic(file: string, text: string, expected: Uint8Array | null): Promise<void> {
  const target = await realpath(file).catch(() => file);
  const dir = path.dirname(target);
  const tmp = path.join(dir, `.${path.basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const mode = await stat(target).then(
    (st) => st.mode & 0o7777,
    () => 0o644,
  );
  let created = false;
  try {
    const handle = await open(tmp, 'wx', mode);
    created = true;
    try {
      await handle.writeFile(text, 'utf8');
      await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await assertUnchanged(target, expected);
    await rename(tmp, target);
    created = false;
    await syncDir(dir);
  } catch (err) {
    if (created) await unlink(tmp).catch(() => undefined);
    if (err instanceof RulesError) throw err;
    const message = `cannot write ${file}: ${describeIoError(err)}`;
    throw new RulesError(message, [{ file, message }], ErrorCode.RulesEditRefused);
  }
}

async function assertUnchanged(target: string, expected: Uint8Array | null): Promise<void> {
  const now = await readFile(target).catch((err: { code?: string }) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  const same = now === null || expected === null ? now === expected : Buffer.compare(now, expected) === 0;
  if (!same) {
    const message = `${target} changed while it was being edited; nothing was written, try again`;
    throw new RulesError(message, [{ file: target, message }], ErrorCode.RulesEditRefused);
  }
}

/** Makes the rename durable. Some file systems refuse to fsync a directory; that is not an error. */
async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // best effort
  }
}
