/**
 * Node's module compile cache for the `plangate` command: a process that
 * starts per tool call (`plangate hook`) compiles plangate's and its
 * dependencies' JavaScript once per version instead of on every start
 * (`module.enableCompileCache`, Node 22.1 and later:
 * https://nodejs.org/api/module.html#moduleenablecompilecachecachedir).
 *
 * The cache holds code that Node runs, so it lives only in plangate's
 * private cache folder (main/cache-dir.ts); where there is none, the
 * command runs uncached. Node checks each entry against its source's hash
 * and its own version, so an edited or upgraded plangate is compiled
 * afresh. `NODE_DISABLE_COMPILE_CACHE=1` turns it off; a
 * `NODE_COMPILE_CACHE` directory, where set, is Node's to use instead.
 *
 * Imports nothing of plangate's but cache-dir.ts: it runs before the rest
 * loads, and takes Node's modules without their ES module facades (see
 * hook-bundle.ts).
 */
import { privateCacheDir } from '../../main/cache-dir.js';

const module = process.getBuiltinModule('node:module');

/**
 * Turns the compile cache on where it is safe to; never throws, and a cache
 * that cannot be used only costs the compile it would have saved.
 *
 * @example
 * enablePrivateCompileCache(process.env); // then import the rest of the CLI
 */
export function enablePrivateCompileCache(env: NodeJS.ProcessEnv): boolean {
  try {
    if (env['NODE_COMPILE_CACHE'] || env['NODE_DISABLE_COMPILE_CACHE'] || typeof module.enableCompileCache !== 'function') return false;
    const dir = privateCacheDir(env, 'node-compile-cache');
    if (dir === undefined) return false;
    const { status } = module.enableCompileCache(dir);
    return status === module.constants.compileCacheStatus.ENABLED;
  } catch {
    return false;
  }
}
