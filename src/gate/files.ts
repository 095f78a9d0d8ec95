/**
 * The read guard's one fact: what is at the path a whole-file read names.
 * The path is resolved the way the tool would resolve it — against a base
 * directory, with `..` folded and every symlink followed — so neither a
 * relative path nor a link can slip a large file past the ceiling. Bounded
 * work: one realpath and one stat.
 */
import { realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { FileFact } from '../core/types.js';

/**
 * Resolves `path` against `base` and reports what is there: a regular file
 * with its size, something else (a directory, a device), or nothing. A path
 * that cannot be resolved (missing, dangling link, no permission) is
 * `missing`: the call passes through and the tool reports its own error.
 *
 * @example
 * await fileFact('/srv/repo', 'logs/../big.log') // { path: 'logs/../big.log', resolved: '/srv/repo/big.log', kind: 'file', size: 5242880 }
 */
export async function fileFact(base: string, path: string): Promise<FileFact> {
  const absolute = resolve(base, path);
  let resolved: string;
  try {
    resolved = await realpath(absolute);
  } catch {
    return { path, resolved: absolute, kind: 'missing' };
  }
  try {
    const s = await stat(resolved);
    return s.isFile() ? { path, resolved, kind: 'file', size: s.size } : { path, resolved, kind: 'other' };
  } catch {
    return { path, resolved, kind: 'missing' };
  }
}
