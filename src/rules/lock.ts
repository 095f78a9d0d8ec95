/**
 * Rule edits are serialised: an edit holds a lock on the rules directory
 * from reading the files to writing them, so two edits — from the CLI, from
 * HTTP, from two processes — never both validate against the same base and
 * the second never overwrites the first. The lock is a lock directory in the
 * rules directory (proper-lockfile: atomic mkdir, refreshed while held,
 * taken over when its holder died); it is a dotfile, so the watcher and the
 * rule reader ignore it.
 */
import path from 'node:path';
import { ErrorCode, PlangateError } from '../core/errors.js';

/** The lock's name inside the rules directory. */
export const EDIT_LOCK_NAME = '.plangate-edit.lock';
/** How long an edit waits for another to finish before giving up. */
const WAIT_MS = 10_000;
/** A lock not refreshed for this long belongs to a process that died. */
const STALE_MS = 10_000;

/**
 * Runs `edit` holding the rules directory's edit lock.
 *
 * @example
 * await withEditLock('rules', () => setRuleInFiles());
 */
export async function withEditLock<T>(dir: string, edit: () => Promise<T>): Promise<T> {
  const release = await acquire(dir);
  try {
    return await edit();
  } finally {
    await release?.().catch(() => undefined);
  }
}

/**
 * Takes the lock, waiting while another edit holds it. A directory where
 * the lock cannot be made at all (read-only, missing) gives no lock: the
 * edit then fails on its own, reading or writing, with the usual message.
 */
async function acquire(dir: string): Promise<(() => Promise<void>) | undefined> {
  // Loaded on first use: only the commands that edit rules take the lock.
  const { default: lockfile } = await import('proper-lockfile');
  const deadline = Date.now() + WAIT_MS;
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    try {
      return await lockfile.lock(dir, { lockfilePath: path.join(dir, EDIT_LOCK_NAME), retries: 0, stale: STALE_MS, realpath: false, onCompromised: () => undefined });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') return undefined;
      if (Date.now() > deadline) {
        throw new PlangateError(ErrorCode.Conflict, `${dir}: another edit of the rules has been in progress for ${WAIT_MS / 1000} s; try again`);
      }
      await new Promise((resolve) => setTimeout(resolve, delay + Math.random() * delay));
    }
  }
}
