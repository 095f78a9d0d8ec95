/**
 * Whether bin/plangate.js may run the hook's bundle (dist/hook/, made by
 * scripts/build-hook-bundle.mjs) for a command line: only for `plangate
 * hook`, and only while the bundle is current. Its inputs.json lists every
 * file the bundle was made of and every file of the bundle, with size,
 * modification time and sha256 at build. A file of another size, or
 * modified since with other bytes (a `tsc` after the build that changed
 * something, a dependency installed since), or missing makes the bundle
 * stale, and the command runs from its modules as ever. A file rewritten
 * with the same bytes (a `tsc` that changed nothing; an installed package,
 * whose files all carry the time of the install) is read and hashed, and
 * the bundle runs. A bundle is never run in place of newer code.
 *
 * Imports nothing of plangate's but argv.ts: it runs before the rest loads.
 * Node's modules are taken with process.getBuiltinModule(), not imported:
 * importing node:fs or node:crypto builds its ES module facade, which reads
 * every export and so loads streams, fs/promises and webcrypto, a few
 * milliseconds of every hook call spent on modules it never uses (the
 * bundle takes them so too: scripts/build-hook-bundle.mjs). For the same
 * reason the paths are strings: a WHATWG URL per listed file cost more than
 * the stat.
 */
import { commandWord } from './argv.js';

const { readFileSync, statSync } = process.getBuiltinModule('node:fs');
const { join } = process.getBuiltinModule('node:path');
const { fileURLToPath, pathToFileURL } = process.getBuiltinModule('node:url');

/** The bundle's folder: dist/hook/ beside dist/adapters/ (from src/, a folder that does not exist), with its trailing slash. */
export const HOOK_BUNDLE_DIR = fileURLToPath(new URL('../../hook/', import.meta.url));

/** inputs.json: paths (with / between folders) relative to the bundle's folder, each with its size, mtime (ms) and sha256 (hex) at build. */
type Listed = [path: string, size: number, mtimeMs: number, sha256: string];
interface Manifest { entry: string; inputs: Listed[]; outputs: Listed[] }

/** True when every listed file is there, of its size, and not modified since the build or of the same bytes. */
function unchanged(dir: string, files: Listed[]): boolean {
  for (const [path, size, mtimeMs, sha256] of files) {
    const file = join(dir, path);
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat === undefined || stat.size !== size) return false;
    // node:crypto only here: loading it costs a hook call about 2 ms, and an unchanged build never hashes.
    if (stat.mtimeMs > mtimeMs && process.getBuiltinModule('node:crypto').hash('sha256', readFileSync(file)) !== sha256) return false;
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
export function hookBundle(argv: readonly string[], dir: string = HOOK_BUNDLE_DIR): string | undefined {
  if (commandWord(argv) !== 'hook') return undefined;
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'inputs.json'), 'utf8')) as Manifest;
    if (!unchanged(dir, manifest.inputs) || !unchanged(dir, manifest.outputs)) return undefined;
    return pathToFileURL(join(dir, manifest.entry)).href;
  } catch {
    return undefined;
  }
}
