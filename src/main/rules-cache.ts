/**
 * A cache of checked rule sets, for processes that start per call
 * (`plangate hook`): parsing and validating the rules (YAML, the schema,
 * normalizing) is about half of such a process's own time, and the rules
 * seldom change between two tool calls.
 *
 * An entry is the checked rules' data, filed under a key made of the rule
 * files' revision (the sha256 of their names and bytes), plangate's
 * package.json and its rules pipeline's modules (rules/ and core/; see
 * {@link pipelineFingerprint}): new rules, a new plangate or a rebuilt
 * pipeline miss, and are checked afresh.
 * Only a rule set with no problem is kept, so a bad one is always reported
 * with its file:line:col. An entry that cannot be read, parsed or matched
 * is a miss; writing one is best effort.
 *
 * Who may change an entry may change what plangate decides, so the cache
 * is used only where that changes nothing: in plangate's private cache
 * folder (main/cache-dir.ts), and only for a rules directory this user
 * owns, which the user can rewrite anyway. The rules of someone else (an
 * operator's read-only rules) are parsed in every process.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RulesData } from '../core/types.js';
import type { RulesCheck } from '../rules/load.js';
import type { RawRuleFile } from '../rules/read.js';
import { compareText, rulesRevision } from '../rules/revision.js';

/** The entries' format; a change of it misses every entry written before. */
const FORMAT = 1;

/** Entries kept; past it the oldest are removed when one is written. */
export const RULES_CACHE_ENTRIES = 32;

/** What an entry file holds. */
interface Entry {
  format: number;
  key: string;
  revision: string;
  data: RulesData;
  /** The paths (keys from the top) of the objects in `data` made without a prototype. */
  bare: string[][];
}

/**
 * The paths of the objects in `value` that have no prototype. The rules'
 * maps are made so (a tool named `toString` must not find Object's); JSON
 * does not keep it, so an entry lists them and a hit makes them so again.
 */
export function barePaths(value: unknown, at: string[] = [], out: string[][] = []): string[][] {
  if (typeof value !== 'object' || value === null) return out;
  if (!Array.isArray(value) && Object.getPrototypeOf(value) === null) out.push(at);
  for (const [k, v] of Object.entries(value)) barePaths(v, [...at, k], out);
  return out;
}

/** `data` with the objects at `paths` (outermost first) made without a prototype. */
export function withBareObjects(data: Record<string, unknown>, paths: readonly string[][]): Record<string, unknown> {
  let root = data;
  for (const path of [...paths].sort((a, b) => a.length - b.length)) {
    if (path.length === 0) {
      root = Object.assign(Object.create(null) as Record<string, unknown>, root);
      continue;
    }
    let parent: Record<string, unknown> = root;
    for (const k of path.slice(0, -1)) parent = parent[k] as Record<string, unknown>;
    const last = path[path.length - 1] as string;
    parent[last] = Object.assign(Object.create(null) as Record<string, unknown>, parent[last]);
  }
  return root;
}

let fingerprint: string | undefined;

/** The modules' files under `dir` (its subfolders too), as `relative name, size, mtime` lines, in name order. */
function moduleStats(dir: string, prefix = ''): string[] {
  const lines: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const name = `${prefix}${entry.name}`;
    if (entry.isDirectory()) lines.push(...moduleStats(join(dir, entry.name), `${name}/`));
    else if (/\.[jt]s$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      const st = statSync(join(dir, entry.name));
      lines.push(`${name}\0${st.size}\0${st.mtimeMs}`);
    }
  }
  return lines.sort(compareText);
}

/**
 * The fingerprint of the code that turns rule files into data: the sha256
 * of plangate's package.json (its version and pinned dependencies, YAML's
 * among them) and of the name, size and modification time of every module
 * in rules/ and core/ (read once per process). Building or installing
 * plangate writes those files anew; reading them whole would cost the
 * process more than the stat does.
 */
export function pipelineFingerprint(): string {
  if (fingerprint !== undefined) return fingerprint;
  const hash = createHash('sha256');
  hash.update(readFileSync(new URL('../../package.json', import.meta.url)));
  for (const folder of ['../rules/', '../core/']) hash.update(`${folder}\n${moduleStats(fileURLToPath(new URL(folder, import.meta.url))).join('\n')}\n`);
  fingerprint = hash.digest('hex');
  return fingerprint;
}

/** Whether this user owns `rulesDir` (and so could rewrite every rule in it). */
function ownsRules(rulesDir: string): boolean {
  const uid = process.getuid?.();
  return uid !== undefined && statSync(rulesDir).uid === uid;
}

function entryFile(cacheDir: string, key: string): string {
  return join(cacheDir, `${key}.json`);
}

function readEntry(file: string, key: string, revision: string): RulesData | undefined {
  try {
    const entry = JSON.parse(readFileSync(file, 'utf8')) as Partial<Entry> | null;
    if (entry?.format !== FORMAT || entry.key !== key || entry.revision !== revision || !Array.isArray(entry.bare)) return undefined;
    if (typeof entry.data !== 'object' || entry.data === null || Array.isArray(entry.data)) return undefined;
    return withBareObjects(entry.data as unknown as Record<string, unknown>, entry.bare) as unknown as RulesData;
  } catch {
    return undefined;
  }
}

function writeEntry(cacheDir: string, key: string, revision: string, data: RulesData): void {
  try {
    const file = entryFile(cacheDir, key);
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify({ format: FORMAT, key, revision, data, bare: barePaths(data) } satisfies Entry), { mode: 0o600, flag: 'w' });
    renameSync(partial, file);
    const entries = readdirSync(cacheDir).filter((n) => n.endsWith('.json'));
    if (entries.length <= RULES_CACHE_ENTRIES) return;
    const aged = entries.map((n) => ({ n, t: statSync(join(cacheDir, n)).mtimeMs })).sort((a, b) => a.t - b.t);
    for (const { n } of aged.slice(0, entries.length - RULES_CACHE_ENTRIES)) unlinkSync(join(cacheDir, n));
  } catch {
    // Best effort: the next process checks the rules again.
  }
}

/**
 * Checks the rule files read from `rulesDir`, as `checkRules` does, taking
 * the data from the cache in `cacheDir` where it may (see above). Without a
 * cache folder it is `checkRules` itself, loaded on first use.
 *
 * @example
 * const check = await checkRuleFiles(read.files, privateCacheDir(env, 'rules'), rulesDir);
 */
export async function checkRuleFiles(files: readonly RawRuleFile[], cacheDir: string | undefined, rulesDir: string): Promise<RulesCheck> {
  let cache: { dir: string; key: string; revision: string } | undefined;
  try {
    if (cacheDir !== undefined && ownsRules(rulesDir)) {
      const revision = rulesRevision(files);
      const key = createHash('sha256').update(`${FORMAT}\0${pipelineFingerprint()}\0${revision}`).digest('hex');
      cache = { dir: cacheDir, key, revision };
      const data = readEntry(entryFile(cacheDir, key), key, revision);
      if (data) return { data, files: files.map((f) => f.file).sort(compareText), revision, problems: [] };
    }
  } catch {
    cache = undefined;
  }
  // YAML and the schema validator load only when the rules are checked.
  const { checkRules } = await import('../rules/load.js');
  const check = checkRules(files.map((f) => ({ file: f.file, text: f.bytes })));
  if (cache && check.data && check.problems.length === 0 && check.revision === cache.revision) writeEntry(cache.dir, cache.key, cache.revision, check.data);
  return check;
}
