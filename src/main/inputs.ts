/**
 * The load pipeline's first step: read the rules directory, the
 * environment's workspace pin and the compiled policy, and validate them,
 * collecting every problem instead of stopping at the first.
 */
import path from 'node:path';
import { ErrorCode, PlangateError, toError, type Problem } from '../core/errors.js';
import type { RulesData } from '../core/types.js';
import { readPolicy, type PolicyBytes } from '../engine/source.js';
import { readRuleDir } from '../rules/read.js';
import { applyWorkspaceEnv, effectiveRevision, readWorkspaceEnv } from './env.js';
import { checkRuleFiles } from './rules-cache.js';

/** Everything a load reads, validated; `problems` is empty when it can be put in force. */
export interface LoadInputs {
  rulesDir: string;
  /** The rule files found, sorted. */
  files: string[];
  /** The revision of the rules in force (files plus the environment's pin), when the files could be read. */
  revision: string | null;
  /** The rules with the environment's pin applied; only when there is no problem with the rules or the environment. */
  data?: RulesData;
  policy?: PolicyBytes;
  /** Every problem found, rules first, then the environment, then the policy. */
  problems: Problem[];
  /** The error code of the first problem: rules_unreadable, rules_invalid, invalid_input (environment) or policy_unavailable. */
  code?: ErrorCode;
}

/**
 * Reads and validates the rules directory, the `PLANGATE_WORKSPACE_*`
 * variables and the policy, collecting every problem. Never throws for a
 * problem with them.
 *
 * @example
 * const inputs = await readLoadInputs({ rulesDir: 'rules', policy: 'policies/build/policy.wasm', env: process.env });
 * inputs.problems.map(formatProblem) // [] when all is well
 */
export async function readLoadInputs(options: {
  rulesDir: string;
  policy: string;
  env: NodeJS.ProcessEnv;
  /** A private folder to cache checked rules in (see rules-cache.ts), for processes that start per call. */
  rulesCache?: string;
}): Promise<LoadInputs> {
  const rulesDir = path.resolve(options.rulesDir);
  const problems: Problem[] = [];
  let code: ErrorCode | undefined;
  let files: string[] = [];
  let revision: string | null = null;
  let data: RulesData | undefined;

  const envPin = readWorkspaceEnv(options.env);
  try {
    const read = await readRuleDir(rulesDir);
    const check = await checkRuleFiles(read.files, options.rulesCache, rulesDir);
    files = read.names;
    revision = effectiveRevision(check.revision, envPin.rule);
    problems.push(...read.problems, ...check.problems);
    if (problems.length > 0) code = read.unreadable ? ErrorCode.RulesUnreadable : ErrorCode.RulesInvalid;
    if (read.problems.length === 0 && check.data) data = applyWorkspaceEnv(check.data, envPin.rule);
  } catch (thrown) {
    problems.push(...problemsOf(thrown, rulesDir));
    code = thrown instanceof PlangateError ? thrown.code : ErrorCode.RulesUnreadable;
  }
  problems.push(...envPin.problems);
  if (envPin.problems.length > 0) {
    data = undefined;
    code ??= ErrorCode.InvalidInput;
  }

  let policy: PolicyBytes | undefined;
  try {
    policy = await readPolicy(options.policy);
  } catch (thrown) {
    problems.push(...problemsOf(thrown, options.policy));
    code ??= ErrorCode.PolicyUnavailable;
  }
  return {
    rulesDir,
    files,
    revision,
    ...(data && problems.length === 0 ? { data } : {}),
    ...(policy ? { policy } : {}),
    problems,
    ...(code ? { code } : {}),
  };
}

/** Problems from anything thrown while reading or loading. */
export function problemsOf(thrown: unknown, where: string): Problem[] {
  if (thrown instanceof PlangateError && thrown.details.length > 0) return thrown.details;
  const message = thrown instanceof PlangateError ? thrown.message : new PlangateError(ErrorCode.PolicyUnavailable, toError(thrown).message).message;
  return [message.includes(where) ? { message } : { file: where, message }];
}
