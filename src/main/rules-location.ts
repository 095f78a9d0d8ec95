/**
 * Where the rules are, and the check every long-running or deciding command
 * makes at start: a rules location that does not exist, or holds no rule
 * file, is a configuration error (`rules_missing`), not a failure to fail
 * open on. Plan-required fails open for rules that exist but cannot be read
 * or parsed (core/failopen.ts); a typo in `--rules` must not switch the gate
 * off as quietly. An operator who means to start without rules says so:
 * `--rules-optional`, or `PLANGATE_RULES_OPTIONAL=true`.
 */
import { readdir, stat } from 'node:fs/promises';
import { ErrorCode, PlangateError } from '../core/errors.js';
import { isRuleFileName } from '../rules/read.js';
import { DEFAULT_PATHS, PATH_ENV } from './config.js';

/** The variable that lets plangate start without rules (`true` or `false`). */
export const RULES_OPTIONAL_ENV = 'PLANGATE_RULES_OPTIONAL';

/** Where a location came from: a command-line option, its environment variable, or the default. */
export type LocationSource = 'option' | 'env' | 'default';

/**
 * Whether starting without rules is allowed: the flag, else
 * `PLANGATE_RULES_OPTIONAL` (`true`/`false`; empty is unset). Any other value
 * is an `invalid_input` error, so a typo does not allow it either.
 *
 * @example
 * rulesOptional(undefined, { PLANGATE_RULES_OPTIONAL: 'true' }) // true
 */
export function rulesOptional(flag: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  if (flag) return true;
  const value = env[RULES_OPTIONAL_ENV]?.trim();
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw new PlangateError(ErrorCode.InvalidInput, `${RULES_OPTIONAL_ENV} must be true or false (got ${JSON.stringify(value)})`);
}

/** What a refused start says about how to go on. */
const FIX = `Name the rules directory with --rules DIR or ${PATH_ENV.rules}, or start without rules on purpose with --rules-optional (${RULES_OPTIONAL_ENV}=true), where plan-required fails open until rule files appear`;

/** The location's problem, where the location came from, and how to fix it. */
function problem(what: string, source: LocationSource): string {
  const from = source === 'option' ? 'named by --rules' : source === 'env' ? `named by ${PATH_ENV.rules}` : `the default, ./${DEFAULT_PATHS.rules}`;
  return `${what} (${from}). ${FIX}`;
}

/**
 * What is wrong with a rules location at start, or undefined when it holds
 * at least one rule file. A directory that exists but cannot be listed is
 * not this check's business: it fails open as unreadable rules do.
 *
 * @example
 * await missingRules('rulez', 'option') // 'the rules location /srv/app/rulez does not exist (named by --rules). Name the rules directory …'
 */
export async function missingRules(dir: string, source: LocationSource): Promise<string | undefined> {
  let names: string[];
  try {
    if (!(await stat(dir)).isDirectory()) return problem(`the rules location ${dir} is not a directory`, source);
    names = await readdir(dir);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return problem(`the rules location ${dir} does not exist`, source);
    return undefined;
  }
  if (!names.some(isRuleFileName)) return problem(`the rules location ${dir} holds no rule file (*.yaml or *.yml)`, source);
  return undefined;
}

/**
 * Throws `rules_missing` when the rules location does not exist or holds no
 * rule file, unless `optional`.
 *
 * @example
 * await requireRules(paths.rules, 'default', rulesOptional(opts.rulesOptional, process.env));
 */
export async function requireRules(dir: string, source: LocationSource, optional: boolean): Promise<void> {
  if (optional) return;
  const problem = await missingRules(dir, source);
  if (problem) throw new PlangateError(ErrorCode.RulesMissing, problem);
}
