/**
 * The rules pipeline end to end: read → decode → parse → validate →
 * normalize. `compileRules` is pure (no disk), so an edit can be checked
 * before anything is written; `loadRules` adds the directory reading.
 */
import path from 'node:path';
import { ErrorCode, formatProblem, RulesError, type Problem } from '../core/errors.js';
import type { RulesData } from '../core/types.js';
import { decodeRuleText, stripBom } from './decode.js';
import { normalizeRules } from './normalize.js';
import { parseRuleFile, type ParsedRuleFile } from './parse.js';
import { readRuleDir } from './read.js';
import { compareText, rulesRevision } from './revision.js';
import { validateRuleFile } from './schema.js';

/** One rule file's name (inside the rules directory) and content. */
export interface RuleSource {
  file: string;
  /** Bytes are decoded as strict UTF-8; a leading BOM is dropped either way. */
  text: string | Uint8Array;
}

/** A valid, normalized rule set. */
export interface CompiledRules {
  data: RulesData;
  /** The file names, sorted. */
  files: string[];
  /** sha256 (hex) over the sorted (name, bytes) pairs: changes exactly when some file's content or name does. */
  revision: string;
}

/** The outcome of checking a rule set: `data` only when `problems` is empty. */
export interface RulesCheck {
  data?: RulesData;
  files: string[];
  revision: string;
  /** Every problem found, sorted by file, line and column. */
  problems: Problem[];
}

/** The rules loaded from a directory. */
export interface LoadedRules extends CompiledRules {
  /** The directory, resolved to an absolute path. */
  dir: string;
  loadedAt: Date;
}

/**
 * Checks a rule set without throwing; files are taken in name order.
 *
 * @example
 * const { problems } = checkRules([{ file: 'a.yaml', text: 'planRequired:\n  workspace: { mode: sometimes }\n' }]);
 * // problems[0].message: 'planRequired.workspace.mode: must be one of off, spends_only, side_effects (got "sometimes")'
 */
export function checkRules(sources: readonly RuleSource[]): RulesCheck {
  const sorted = [...sources].sort((a, b) => compareText(a.file, b.file));
  const problems: Problem[] = [];
  const parsed: ParsedRuleFile[] = [];
  const bytes: Array<{ file: string; bytes: Uint8Array }> = [];
  sorted.forEach((src, i) => {
    if (i > 0 && sorted[i - 1]?.file === src.file) {
      problems.push({ file: src.file, message: 'the same file name is given twice' });
      return;
    }
    const raw = typeof src.text === 'string' ? new TextEncoder().encode(src.text) : src.text;
    bytes.push({ file: src.file, bytes: raw });
    const decoded = typeof src.text === 'string' ? { ok: true as const, text: stripBom(src.text) } : decodeRuleText(src.file, src.text);
    if (!decoded.ok) {
      problems.push(decoded.problem);
      return;
    }
    const result = parseRuleFile(src.file, decoded.text);
    problems.push(...result.problems);
    if (result.parsed) {
      parsed.push(result.parsed);
      problems.push(...validateRuleFile(result.parsed));
    }
  });
  const normalized = normalizeRules(parsed);
  problems.push(...normalized.problems);
  const check: RulesCheck = {
    files: bytes.map((b) => b.file),
    revision: rulesRevision(bytes),
    problems: sortProblems(problems),
  };
  if (problems.length === 0) check.data = normalized.data;
  return check;
}

/**
 * Compiles a rule set held in memory, e.g. a proposed edit.
 * Throws a `RulesError` (`rules_invalid`) carrying every problem.
 *
 * @example
 * const { data } = compileRules([{ file: 'plan.yaml', text: 'planRequired:\n  workspace: { mode: spends_only }\n' }]);
 * data.planRequired.workspace // { mode: 'spends_only', source: 'plan.yaml:2:3' }
 */
export function compileRules(sources: readonly RuleSource[]): CompiledRules {
  const check = checkRules(sources);
  if (!check.data) throw rulesError(check.problems);
  return { data: check.data, files: check.files, revision: check.revision };
}

/**
 * Loads every rule file in `dir`. Throws one `RulesError` carrying every
 * problem from every file (`rules_unreadable` when the directory or a file
 * cannot be read, `rules_invalid` otherwise); its message lists them, one
 * `file:line:col: message` per line.
 *
 * @example
 * const rules = await loadRules('examples/rules');
 * rules.data.planRequired.crews['desk']?.mode // 'side_effects'
 */
export async function loadRules(dir: string): Promise<LoadedRules> {
  const read = await readRuleDir(dir);
  const check = checkRules(read.files.map((f) => ({ file: f.file, text: f.bytes })));
  const problems = sortProblems([...read.problems, ...check.problems]);
  if (problems.length > 0 || !check.data) {
    throw rulesError(problems, read.unreadable ? ErrorCode.RulesUnreadable : ErrorCode.RulesInvalid);
  }
  return { dir: path.resolve(dir), data: check.data, files: check.files, revision: check.revision, loadedAt: new Date() };
}

/**
 * A `RulesError` whose message is the formatted problem list, one per line.
 *
 * @example
 * rulesError([{ file: 'a.yaml', line: 2, col: 3, message: 'tools: unknown key "reed"' }]).message
 * // 'a.yaml:2:3: tools: unknown key "reed"'
 */
export function rulesError(problems: Problem[], code: ErrorCode = ErrorCode.RulesInvalid): RulesError {
  return new RulesError(problems.map(formatProblem).join('\n'), problems, code);
}

function sortProblems(problems: Problem[]): Problem[] {
  return [...problems].sort(
    (a, b) => compareText(a.file ?? '', b.file ?? '') || (a.line ?? 0) - (b.line ?? 0) || (a.col ?? 0) - (b.col ?? 0),
  );
}
