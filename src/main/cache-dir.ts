/**
 * plangate's cache directory on this machine: `$XDG_CACHE_HOME/plangate`
 * (else `~/.cache/plangate`), made with mode 0700. What is cached there
 * steers what plangate runs (compiled JavaScript) and decides (checked
 * rules), so a folder is used only when it is a real directory of this
 * user's that no one else can write, and its parent too (whoever can write
 * the parent can put another folder in its place). Imports nothing of
 * plangate's: the CLI calls it before the rest loads, and takes Node's
 * modules without their ES module facades (see hook-bundle.ts).
 */
const { lstatSync, mkdirSync } = process.getBuiltinModule('node:fs');
const { homedir } = process.getBuiltinModule('node:os');
const { dirname, isAbsolute, join } = process.getBuiltinModule('node:path');

/** plangate's cache folder for `env`, or undefined when there is no home to put it in. */
export function cacheRoot(env: NodeJS.ProcessEnv): string | undefined {
  const xdg = env['XDG_CACHE_HOME'];
  if (xdg && isAbsolute(xdg)) return join(xdg, 'plangate');
  const home = env['HOME'] || homedir();
  return home && isAbsolute(home) ? join(home, '.cache', 'plangate') : undefined;
}

/** Whether `dir` is a real directory of this user's that no one else can write. */
export function privateDir(dir: string): boolean {
  const st = lstatSync(dir);
  const uid = process.getuid?.();
  return st.isDirectory() && uid !== undefined && st.uid === uid && (st.mode & 0o022) === 0;
}

/**
 * The folder `name` of plangate's cache, made if missing, when it and its
 * parent are private to this user; undefined otherwise (no home, a folder
 * of someone else's, one others can write, a platform without user ids).
 * Never throws.
 *
 * @example
 * privateCacheDir(process.env, 'rules') // '/home/ana/.cache/plangate/rules'
 */
export function privateCacheDir(env: NodeJS.ProcessEnv, name: string): string | undefined {
  try {
    const root = cacheRoot(env);
    if (root === undefined) return undefined;
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return privateDir(dir) && privateDir(dirname(dir)) ? dir : undefined;
  } catch {
    return undefined;
  }
}
