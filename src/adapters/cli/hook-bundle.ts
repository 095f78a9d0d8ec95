/**
 * Whether bin/plangate.js may run the hook's bundle (dist/hook/, made by
 * scripts/build-hook-bundle.mjs) for a command line: only for `plangate
 * hook`, and only while the bundle is current. Its inputs.json lists every
 * file the bundle was made of and every file of the bundle, with size and
 * modification time at build: one that is missing, of another size or
 * modified since (a `tsc` after the build, a dependency installed since)
 * makes the bundle stale, and the command runs from its modules as ever.
 * A bundle is never run in place of newer code.
 *
 * Imports nothing of plangate's but argv.ts: it runs before the rest loads.
 */
import { readFileSync, statSync } from 'node:fs';
import { commandWord } from './argv.js';

/** The bundle's folder: dist/hook/ beside dist/adapters/ (from src/, a folder that does not exist). */
export const HOOK_BUNDLE_DIR = new URL('../../hook/', import.meta.url);

/** inputs.json: paths relative to the bundle's folder, each with its size and mtime (ms) at build. */
interface Manifest { entry: string; inputs: Array<[string, number, number]>; outputs: Array<[string, number, number]> }

/** True when every listed file is there, of its size and not modified since the build. */
function unchanged(dir: URL, files: Manifest['inputs']): boolean {
  for (const [path, size, mtimeMs] of files) {
    const stat = statSync(new URL(path, dir), { throwIfNoEntry: false });
    if (stat === undefined || stat.size !== size || stat.mtimeMs > mtimeMs) return false;
  }
  return true;
}

/**
 * The URL of the bundle's entry to import for `argv`, or undefined: not a
 * hook command line, or no current bundle (none built, stale, unreadable).
 * Never throws.
 *
 * @example
 * hookBundle(['hook', '--agent', '0xW']) // 'file:///…/dist/hook/hook.js' after `npm run build`
 */
export function hookBundle(argv: readonly string[], dir: URL = HOOK_BUNDLE_DIR): string | undefined {
  if (commandWord(argv) !== 'hook') return undefined;
  try {
    const manifest = JSON.parse(readFileSync(new URL('inputs.json', dir), 'utf8')) as Manifest;
    if (!unchanged(dir, manifest.inputs) || !unchanged(dir, manifest.outputs)) return undefined;
    return new URL(manifest.entry, dir).href;
  } catch {
    return undefined;
  }
}
