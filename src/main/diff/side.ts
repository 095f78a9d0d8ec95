/**
 * One side of `plangate diff`: a rules directory on disk, or the rules
 * directory as it is in a Git revision, read through the `git` CLI
 * (`git ls-tree`, `git cat-file`) without a checkout.
 */
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ErrorCode, PlangateError, type Problem } from '../../core/errors.js';
import { checkRules, type RuleSource, type RulesCheck } from '../../rules/load.js';
import { isRuleFileName, MAX_RULE_FILE_BYTES, MAX_RULE_FILES, readRuleDir } from '../../rules/read.js';

const run = promisify(execFile);

/** The rules of one side, read and checked. */
export interface RulesSide {
  /** As given: a directory, a revision, or `REV:path`. */
  spec: string;
  /** How the side is shown: the directory, or `REV:path/in/repo`. */
  label: string;
  kind: 'dir' | 'git';
  sources: RuleSource[];
  check: RulesCheck;
}

/** Largest output read from one git command (the tree listing or a blob). */
const MAX_GIT_OUTPUT = 8 * MAX_RULE_FILE_BYTES;

/**
 * Reads a side: `spec` is a directory when one exists at that path;
 * otherwise a Git revision (`main`, `HEAD~1`, a commit), whose copy of
 * `rulesDir` is read, or `REV:path` naming the directory inside the
 * revision. Throws `invalid_input` when it is neither.
 *
 * @example
 * const old = await readSide('origin/main', 'rules');
 * const now = await readSide('rules', 'rules');
 */
export async function readSide(spec: string, rulesDir: string): Promise<RulesSide> {
  if (await isDirectory(spec)) {
    const read = await readRuleDir(spec);
    const sources = read.files.map((f) => ({ file: f.file, text: f.bytes }));
    const check = checkRules(sources);
    check.problems = [...read.problems, ...check.problems].map((p) => locateIn(spec, p));
    return { spec, label: spec, kind: 'dir', sources, check };
  }
  if (spec.startsWith('-')) throw new PlangateError(ErrorCode.InvalidInput, `"${spec}" is neither a directory nor a Git revision`);
  const colon = spec.indexOf(':');
  const rev = colon >= 0 ? spec.slice(0, colon) : spec;
  const cwd = (await isDirectory(rulesDir)) ? rulesDir : '.';
  const top = (await git(['rev-parse', '--show-toplevel'], cwd, `"${spec}" is not a directory, and there is no Git repository here to read it as a revision`)).trim();
  const inRepo = colon >= 0
    ? spec.slice(colon + 1).replace(/^\/+|\/+$/g, '')
    : path.relative(top, path.resolve(rulesDir)).split(path.sep).join('/');
  if (inRepo.startsWith('..')) throw new PlangateError(ErrorCode.InvalidInput, `the rules directory ${rulesDir} is outside the Git repository at ${top}`);
  const treeish = `${rev}:${inRepo}`;
  await git(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], top, `"${rev}" is neither a directory nor a Git revision`);
  const listing = await git(['ls-tree', '-z', treeish], top, `the revision ${rev} has no directory ${inRepo || '.'}`);
  const names = listing.split('\0').filter(Boolean).flatMap((entry) => {
    const [meta, name] = entry.split('\t') as [string, string];
    const [, type] = meta.split(' ');
    return type === 'blob' && isRuleFileName(name) ? [name] : [];
  }).sort();
  if (names.length > MAX_RULE_FILES) throw new PlangateError(ErrorCode.RulesInvalid, `${treeish}: too many rule files: ${names.length} (at most ${MAX_RULE_FILES})`);
  const sources: RuleSource[] = [];
  const problems: Problem[] = [];
  for (const name of names) {
    const blob = `${treeish ? `${treeish}/` : ''}${name}`.replace(/:\//, ':');
    const size = Number((await git(['cat-file', '-s', blob], top, `cannot read ${blob}`)).trim());
    if (size > MAX_RULE_FILE_BYTES) {
      problems.push({ file: name, message: `file is too large: ${size} bytes (at most ${MAX_RULE_FILE_BYTES})` });
      continue;
    }
    sources.push({ file: name, text: await gitBytes(['cat-file', 'blob', blob], top) });
  }
  const check = checkRules(sources);
  const label = `${rev}:${inRepo || '.'}`;
  check.problems = [...problems, ...check.problems].map((p) => locateIn(label, p));
  return { spec, label, kind: 'git', sources, check };
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

function locateIn(where: string, p: Problem): Problem {
  return p.file && !path.isAbsolute(p.file) ? { ...p, file: `${where.replace(/\/+$/, '')}/${p.file}` } : p;
}

async function git(args: string[], cwd: string, failure: string): Promise<string> {
  try {
    const { stdout } = await run('git', args, { cwd, maxBuffer: MAX_GIT_OUTPUT, encoding: 'utf8' });
    return stdout;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') throw new PlangateError(ErrorCode.InvalidInput, `${failure} (the git command is not installed)`);
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim().split('\n')[0];
    throw new PlangateError(ErrorCode.InvalidInput, stderr ? `${failure}: ${stderr}` : failure);
  }
}

async function gitBytes(args: string[], cwd: string): Promise<Uint8Array> {
  const { stdout } = await run('git', args, { cwd, maxBuffer: MAX_GIT_OUTPUT, encoding: 'buffer' });
  return new Uint8Array(stdout);
}
