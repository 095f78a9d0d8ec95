/**
 * The read guard's facts: what is at each path a whole-file read names,
 * gathered only inside the configured read roots. A path is resolved the way
 * the tool would resolve it — against the first root (with several roots, a
 * relative path in each), with `..` folded and every symlink followed — so
 * neither a relative path nor a link can slip a large file past the ceiling. A path that leads outside every root is
 * reported as `outside` and nothing more: the host never looks at a file it
 * may not vouch for, so the decision cannot be used as a probe. Bounded
 * work per path: a realpath and a stat (for a missing path, a few more and
 * a listing of the directory where the name is missing, to find a
 * Unicode-equivalent one).
 */
import { lstat, readdir, realpath, stat, statfs } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { FileFact } from '../core/types.js';

/**
 * A file fact with what only the audit may see: where the path resolved to
 * (for a path inside the roots). The policy is given `fact` alone.
 */
export type GatheredFile =
  /** A regular file inside the roots, and where it is. */
  | { fact: Extract<FileFact, { kind: 'file' }>; resolved: string }
  /** Anything else; the resolved absolute path as far as the host followed it (for a path outside the roots: where it leads out). */
  | { fact: Exclude<FileFact, { kind: 'file' }>; resolved?: string };

/** Whether a gathered path is a regular file inside the roots (and so has a resolved path). */
export function isRegularFile(g: GatheredFile): g is Extract<GatheredFile, { resolved: string }> {
  return g.fact.kind === 'file';
}

/** True when `child` is `root` or inside it (both absolute, normalized). */
export function isInside(root: string, child: string): boolean {
  const rel = relative(root, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

async function realRoots(roots: readonly string[]): Promise<string[]> {
  return Promise.all(roots.map(async (r) => {
    const absolute = resolve(r);
    try {
      return await realpath(absolute);
    } catch {
      return absolute;
    }
  }));
}

/**
 * Resolves `path` against `base` (the directory the tool resolves a relative
 * path in; the first of `roots` unless given) and reports what is there: a
 * regular file with its size, a FIFO, a device or a socket (`special`),
 * something else (a directory),
 * nothing (`missing`: the tool reports its own error), or `outside` when the
 * path, a symlink on the way, or a dangling link leads out of every root.
 *
 * A relative path with several roots and no `base` is looked up in each root
 * it stays inside, and the worst of what is found there is reported (see
 * {@link worse}): a filesystem server resolves it in the first of its own
 * directories that holds it, and roots read off a command line may start
 * with a directory that is not one of them (`node /opt/server /srv/work`),
 * where a missing file would let a large one elsewhere through.
 *
 * @example
 * await fileFact(['/srv/repo'], 'logs/../big.log') // { fact: { path: 'logs/../big.log', kind: 'file', size: 5242880 }, resolved: '/srv/repo/big.log' }
 * await fileFact(['/srv/repo'], '/etc/passwd')     // { fact: { path: '/etc/passwd', kind: 'outside' }, resolved: '/etc/passwd' }
 */
export async function fileFact(roots: readonly string[], path: string, base?: string): Promise<GatheredFile> {
  if (roots.length === 0) return { fact: { path, kind: 'outside' } };
  const given = roots.map((r) => resolve(r));
  const real = await realRoots(roots);
  if (base !== undefined || isAbsolute(path) || given.length === 1) return factAt(resolve(base ?? (given[0] as string), path), path, given, real);
  const candidates = [...new Set(given.map((r) => resolve(r, path)))].filter((a) => within(a, given) || within(a, real));
  if (candidates.length === 0) return { fact: { path, kind: 'outside' }, resolved: resolve(given[0] as string, path) };
  const found = await Promise.all(candidates.map((a) => factAt(a, path, given, real)));
  return found.reduce((worst, g) => (worse(g, worst) ? g : worst));
}

const within = (p: string, list: readonly string[]): boolean => list.some((root) => isInside(root, p));

/** What is at `absolute` (the path resolved), in the roots as given and as real paths. */
async function factAt(absolute: string, path: string, given: readonly string[], real: readonly string[]): Promise<GatheredFile> {
  const outside = (resolved?: string): GatheredFile => ({ fact: { path, kind: 'outside' }, ...(resolved !== undefined ? { resolved } : {}) });
  // Lexically outside: nothing on the file system is looked at.
  if (!within(absolute, given) && !within(absolute, real)) return outside(absolute);
  let resolved: string;
  try {
    resolved = await realpath(absolute);
  } catch {
    // Not there as spelt: a file server may still read a file whose name is the same once
    // Unicode-normalized (the reference filesystem server does), so that file is the one to measure.
    const equivalent = await unicodeEquivalent(absolute, given, real);
    if (equivalent === undefined) return missingOrOutside(absolute, path, real);
    if (equivalent === OUTSIDE) return outside(absolute);
    resolved = equivalent;
  }
  if (!within(resolved, real)) return outside(resolved);
  try {
    const s = await stat(resolved);
    if (s.isFile() && (s.size > 0 || !(await onPseudoFileSystem(resolved)))) return { fact: { path, kind: 'file', size: s.size }, resolved };
    // A FIFO, a device or a socket has no size, and a tool reads it until it ends, if it ever does;
    // so has a file of /proc and its kind (`/proc/self/pagemap` says 0 bytes and holds terabytes).
    const special = s.isFile() || s.isFIFO() || s.isCharacterDevice() || s.isBlockDevice() || s.isSocket();
    return { fact: { path, kind: special ? 'special' : 'other' }, resolved };
  } catch {
    return { fact: { path, kind: 'missing' }, resolved };
  }
}

/**
 * Linux file systems whose files say 0 bytes whatever they hold (statfs
 * magic numbers): proc, sysfs, debugfs, tracefs, securityfs, configfs,
 * cgroup and cgroup2.
 */
const PSEUDO_FILE_SYSTEMS: ReadonlySet<number> = new Set([0x9fa0, 0x62656572, 0x64626720, 0x74726163, 0x73636673, 0x62656570, 0x27e0eb, 0x63677270]);

/** Whether an empty-looking file is on one of {@link PSEUDO_FILE_SYSTEMS}: then its size says nothing. */
async function onPseudoFileSystem(resolved: string): Promise<boolean> {
  try {
    return PSEUDO_FILE_SYSTEMS.has((await statfs(resolved)).type);
  } catch {
    return false;
  }
}

/** How much each kind of fact lets through, least first: a read guard must judge by the worst. */
const RANK: Record<FileFact['kind'], number> = { missing: 0, other: 1, file: 2, special: 3, outside: 4 };

/** Whether `a` is worse than `b` for the read guard: a kind that lets less be checked, or a larger file. */
function worse(a: GatheredFile, b: GatheredFile): boolean {
  if (a.fact.kind === 'file' && b.fact.kind === 'file') return a.fact.size > b.fact.size;
  return RANK[a.fact.kind] > RANK[b.fact.kind];
}

const OUTSIDE = Symbol('outside');

/**
 * The file a path names up to Unicode normalization, as the reference
 * filesystem server finds it for a path that does not exist as spelt: from
 * the innermost root that holds the path, each part is the directory entry
 * of that exact name, else the one entry equal to it in NFC (`K` and the
 * Kelvin sign, `é` composed and decomposed), every link followed.
 * Undefined when some part has no such entry, or more than one (the server
 * then fails the call); `OUTSIDE` when a link leads out of every root.
 */
async function unicodeEquivalent(absolute: string, given: readonly string[], real: readonly string[]): Promise<string | typeof OUTSIDE | undefined> {
  const root = [...given].sort((a, b) => b.length - a.length).find((r) => isInside(r, absolute));
  if (root === undefined) return undefined;
  try {
    let current = await realpath(root);
    for (const part of relative(root, absolute).split(sep).filter(Boolean)) {
      current = await entryNamed(current, part);
      if (!real.some((r) => isInside(r, current))) return OUTSIDE;
    }
    return current;
  } catch {
    return undefined;
  }
}

/**
 * The real path of the entry of `dir` named `part`, else of the one entry
 * equal to it in NFC; the directory is listed only when the exact name is
 * not there. Throws when there is no such entry, or more than one.
 */
async function entryNamed(dir: string, part: string): Promise<string> {
  try {
    return await realpath(join(dir, part));
  } catch {
    const wanted = part.normalize('NFC');
    const matches = (await readdir(dir)).filter((e) => e !== part && e.normalize('NFC') === wanted);
    if (matches.length !== 1) throw new Error(`no single entry named ${part}`);
    return realpath(join(dir, matches[0] as string));
  }
}

/**
 * A path that does not resolve: missing when its nearest existing ancestor
 * is inside a root and the first missing part is not a (dangling) link;
 * otherwise outside, since where it leads cannot be vouched for.
 */
async function missingOrOutside(absolute: string, path: string, real: readonly string[]): Promise<GatheredFile> {
  let child = absolute;
  let parent = dirname(absolute);
  for (;;) {
    try {
      const ancestor = await realpath(parent);
      if (!real.some((root) => isInside(root, ancestor))) return { fact: { path, kind: 'outside' }, resolved: absolute };
      break;
    } catch {
      if (parent === dirname(parent)) return { fact: { path, kind: 'outside' }, resolved: absolute };
      child = parent;
      parent = dirname(parent);
    }
  }
  try {
    await lstat(child);
    // It exists but does not resolve: a dangling link (or a loop), leading who knows where.
    return { fact: { path, kind: 'outside' }, resolved: absolute };
  } catch {
    return { fact: { path, kind: 'missing' }, resolved: absolute };
  }
}
