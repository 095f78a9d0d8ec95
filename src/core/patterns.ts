/**
 * Tool patterns as data the policy can match without compiling them: each
 * pattern's shape, literal prefix and suffix and number of literal
 * characters, indexed by the first character of its prefix. Computed once
 * when the rules are normalized, for the tool-class patterns and for each
 * planning-gate whitelist; the matching itself stays in the policy
 * (policies/plangate/classify.rego, planning.rego), which falls back to the
 * patterns as written when a data document has no index.
 */
import type { RulesData, ToolClass } from './rules.js';

/**
 * How a pattern can be matched: `prefix` (`lit*`: the tool starts with
 * `prefix`), `suffix` (`*lit`), `infix` (`*lit*`: the tool contains
 * `infix`), `glob` (any other use of `*` and `?`: prefix and suffix first,
 * then glob matching), `never` (a character no tool name holds).
 */
export type PatternShape = 'prefix' | 'suffix' | 'infix' | 'glob' | 'never';

/** A pattern as the policy matches it, without compiling it. */
export interface PatternShapeEntry {
  pattern: string;
  shape: PatternShape;
  /** The text before the first wildcard. */
  prefix: string;
  /** The text after the last wildcard. */
  suffix: string;
  /** For `infix`: the text between the two stars. */
  infix?: string;
  /** Literal characters: the more, the more specific. */
  literals: number;
}

/** A tool-class pattern's entry: its shape and the class it gives. */
export interface PatternEntry extends PatternShapeEntry {
  class: ToolClass;
}

/** Patterns by the first character of their prefix; `""` holds those whose prefix is empty. */
export interface ToolMatchIndex {
  byFirst: Record<string, PatternEntry[]>;
}

/** Only `*` and `?` are special; any other character outside this set makes a pattern that never matches. */
const WELL_FORMED = /^[A-Za-z0-9_.:/@*?-]+$/;

/**
 * One pattern's shape.
 *
 * @example
 * patternShape('github.get_*') // { shape: 'prefix', prefix: 'github.get_', suffix: '', literals: 11, … }
 */
export function patternShape(pattern: string): PatternShapeEntry {
  const first = pattern.search(/[*?]/);
  const last = Math.max(pattern.lastIndexOf('*'), pattern.lastIndexOf('?'));
  const prefix = first === -1 ? pattern : pattern.slice(0, first);
  const suffix = last === -1 ? '' : pattern.slice(last + 1);
  const literals = pattern.replace(/[*?]/g, '').length;
  const base = { pattern, prefix, suffix, literals };
  if (!WELL_FORMED.test(pattern)) return { ...base, shape: 'never' };
  const middle = pattern.slice(1, -1);
  if (/^[^*?]*\*$/.test(pattern)) return { ...base, shape: 'prefix' };
  if (/^\*[^*?]+$/.test(pattern)) return { ...base, shape: 'suffix' };
  if (/^\*[^*?]+\*$/.test(pattern)) return { ...base, shape: 'infix', infix: middle };
  return { ...base, shape: 'glob' };
}

/**
 * One tool-class pattern's entry.
 *
 * @example
 * patternEntry('github.get_*', 'read') // { shape: 'prefix', prefix: 'github.get_', class: 'read', … }
 */
export function patternEntry(pattern: string, cls: ToolClass): PatternEntry {
  return { ...patternShape(pattern), class: cls };
}

/**
 * The index of a rule set's patterns, in their order.
 *
 * @example
 * toolMatchIndex([{ pattern: '*.search', class: 'read' }]).byFirst[''] // [{ shape: 'suffix', suffix: '.search', … }]
 */
export function toolMatchIndex(patterns: ReadonlyArray<{ pattern: string; class: ToolClass }>): ToolMatchIndex {
  const byFirst: Record<string, PatternEntry[]> = Object.create(null);
  for (const p of patterns) {
    const entry = patternEntry(p.pattern, p.class);
    const key = entry.prefix.slice(0, 1);
    (byFirst[key] ??= []).push(entry);
  }
  return { byFirst };
}

/**
 * A whitelist as the policy matches it: its plain names (`exact`) and its
 * `*`/`?` patterns by the first character of their prefix (`byFirst`). A
 * name with a character no tool name holds is left out: as a pattern it
 * never matches.
 */
export interface WhitelistIndex {
  exact: Record<string, true>;
  byFirst: Record<string, PatternShapeEntry[]>;
}

/**
 * The index of one whitelist.
 *
 * @example
 * whitelistIndex(['fs.read_file', 'github.get_*']) // { exact: { 'fs.read_file': true }, byFirst: { g: [{ shape: 'prefix', … }] } }
 */
export function whitelistIndex(entries: readonly string[]): WhitelistIndex {
  const exact: Record<string, true> = Object.create(null);
  const byFirst: Record<string, PatternShapeEntry[]> = Object.create(null);
  for (const pattern of entries) {
    if (typeof pattern !== 'string') continue;
    const entry = patternShape(pattern);
    if (entry.shape === 'never') continue;
    if (!/[*?]/.test(pattern)) exact[pattern] = true;
    else (byFirst[entry.prefix.slice(0, 1)] ??= []).push(entry);
  }
  return { exact, byFirst };
}

/**
 * The rules with their patterns indexed (normalized rules have the index
 * already; a hand-made data document may not).
 *
 * @example
 * withMatchIndex(data).tools.match?.byFirst
 */
export function withMatchIndex(data: RulesData): RulesData {
  const patterns = data.tools?.patterns;
  if (!Array.isArray(patterns) || patterns.length === 0 || data.tools.match) return data;
  return { ...data, tools: { ...data.tools, match: toolMatchIndex(patterns) } };
}
