/**
 * The read roots: the directories the read guard may look in. A relative
 * path in a call resolves against the first; a whole-file read that leads
 * outside every root is refused by the guard (policies/plangate/read_guard.rego).
 *
 * Where they come from, first found wins: the `readRoots` option (a host, or
 * an MCP gateway passing its filesystem server's directories), then
 * `PLANGATE_READ_BASE` (one directory, or several joined by the platform's
 * path delimiter, `:` on Linux), then `readGuard.roots` in the rules, then
 * the working directory. Relative roots resolve against the working directory.
 */
import { delimiter, resolve } from 'node:path';
import type { RulesData } from '../core/types.js';

/** The environment variable naming the read roots. */
export const READ_BASE_ENV = 'PLANGATE_READ_BASE';

/**
 * The read roots in force, as absolute paths.
 *
 * @example
 * readRootsFrom({ env: { PLANGATE_READ_BASE: '/srv/repo:/srv/docs' } }) // ['/srv/repo', '/srv/docs']
 * readRootsFrom({ env: {} }) // [process.cwd()]
 */
export function readRootsFrom(sources: { option?: readonly string[]; env?: NodeJS.ProcessEnv; rules?: RulesData | undefined; cwd?: string }): string[] {
  const cwd = sources.cwd ?? process.cwd();
  const fromEnv = sources.env?.[READ_BASE_ENV]?.split(delimiter).filter((p) => p.trim() !== '');
  const picked = [sources.option, fromEnv, sources.rules?.readGuard?.roots].find((list) => list !== undefined && list.length > 0);
  return (picked ?? [cwd]).map((p) => resolve(cwd, p));
}
