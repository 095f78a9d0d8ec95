/**
 * Reading `plangate test` suites: `*.test.yaml` files next to the rules,
 * parsed with the rule files' YAML options and validated against
 * `schemas/test-suite.schema.json`, every problem located at file:line:col.
 */
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv } from '../../rules/ajv.js';
import { isPair, isScalar, visit } from 'yaml';
import type { Problem } from '../../core/errors.js';
import { MAX_ALIAS_COUNT } from '../../rules/aliases.js';
import { decodeRuleText } from '../../rules/decode.js';
import { parseRuleFile, type ParsedRuleFile, type Pos } from '../../rules/parse.js';
import { isSuiteFileName, readRuleFile, unreadReason } from '../../rules/read.js';
import { validateParsed } from '../../rules/schema.js';

/** Where the suite schema lives (`schemas/test-suite.schema.json` in the package). */
export const SUITE_SCHEMA_URL = new URL('../../../schemas/test-suite.schema.json', import.meta.url);

/** The time a suite is decided at when it names none. */
export const DEFAULT_SUITE_NOW = '2026-01-01T00:00:00Z';

export interface SuiteMessage { thread: string; author: string; authorKind?: 'agent' | 'human'; kind: string; age?: string; at?: string; run?: string; body?: string }
export interface SuiteRun { id: string; seat: string; age?: string; at?: string; expiresIn?: string; endedAge?: string; delegation?: string }
export interface SuiteDelegation { id: string; manager: string; worker: string; run?: string; age?: string; at?: string; expiresIn?: string; revoked?: boolean }
export interface SuiteHold { agent: string; kind?: 'on_demand' | 'reviewer'; task?: string; by?: string; age?: string; plans?: number; pushBacks?: number }
export interface SuiteCall { agent: string; tool: string; run?: string; delegatedBy?: string[]; delegation?: string; args?: Record<string, unknown>; at?: string }

/** What a case expects; only the fields given are compared. */
export interface Expectation {
  allowed: boolean;
  check?: 'tool_pin' | 'read_guard' | 'planning_hold' | 'plan_required' | 'approval';
  code?: string;
  reason?: 'none' | 'stale';
  /** `workspace`, `crew:<id>`, `agent:<id>` or `default`: where the mode in force comes from. */
  scope?: string;
  class?: 'read' | 'effect' | 'spend' | 'say';
  shadow?: boolean;
  via?: 'fresh' | 'same_run';
}

export interface SuiteCase extends Pos {
  name: string;
  call: SuiteCall;
  expect: Expectation;
}

/** One suite, validated. */
export interface Suite {
  /** The file name inside its directory. */
  file: string;
  /** The path as given (directory joined with the file name), for `file:line:col`. */
  path: string;
  now: string;
  org: { crews: Record<string, string | null>; agents: Record<string, string> };
  messages: SuiteMessage[];
  runs: SuiteRun[];
  delegations: SuiteDelegation[];
  holds: SuiteHold[];
  cases: SuiteCase[];
  /** Where a node of the file is, for problems found after validation. */
  locate(at: ReadonlyArray<string | number>): Pos;
}

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  compiled ??= createAjv({ allErrors: true, strict: true, verbose: true }).compile(JSON.parse(readFileSync(SUITE_SCHEMA_URL, 'utf8')));
  return compiled;
}

/**
 * The suite files of a directory (top level, `*.test.yaml`), sorted.
 *
 * @example
 * await listSuiteFiles('rules') // ['desk.test.yaml']
 */
export async function listSuiteFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries.filter((e) => isSuiteFileName(e.name) && !e.isDirectory()).map((e) => e.name).sort();
}

/**
 * Reads and validates one suite. Problems are located; `suite` is present only without any.
 *
 * @example
 * const { suite, problems } = await loadSuite('rules', 'desk.test.yaml');
 */
export async function loadSuite(dir: string, file: string): Promise<{ suite?: Suite; problems: Problem[] }> {
  const shown = path.join(dir, file);
  // Read like a rule file: a FIFO or a device named *.test.yaml must not hang the run.
  const read = await readRuleFile(shown, file, 'suites');
  if (read.kind !== 'file') return { problems: [{ file: shown, message: read.kind === 'directory' ? `cannot read the suite: ${unreadReason(read)}` : read.message }] };
  const decoded = decodeRuleText(shown, read.bytes);
  if (!decoded.ok) return { problems: [decoded.problem] };
  return parseSuite(shown, file, decoded.text);
}

/**
 * Parses and validates suite text (no disk).
 *
 * @example
 * parseSuite('rules/a.test.yaml', 'a.test.yaml', 'cases: []\n').problems[0].message // 'cases: must NOT have fewer than 1 items'
 */
export function parseSuite(shown: string, file: string, text: string): { suite?: Suite; problems: Problem[] } {
  const { parsed, problems } = parseRuleFile(shown, text);
  if (!parsed) return { problems };
  keepIdsAsWritten(parsed);
  const schemaProblems = validateParsed(validator(), parsed);
  if (schemaProblems.length > 0) return { problems: schemaProblems };
  const data = parsed.data as Record<string, unknown>;
  const locate = (at: ReadonlyArray<string | number>): Pos => parsed.locate(at, 'key');
  const cases = (data['cases'] as Array<Omit<SuiteCase, 'line' | 'col'>>).map((c, i) => ({ ...c, ...parsed.locate(['cases', i], 'value') }));
  const org = (data['org'] ?? {}) as Partial<Suite['org']>;
  return {
    suite: {
      file,
      path: shown,
      now: (data['now'] as string | undefined) ?? DEFAULT_SUITE_NOW,
      org: { crews: org.crews ?? {}, agents: org.agents ?? {} },
      messages: (data['messages'] ?? []) as SuiteMessage[],
      runs: (data['runs'] ?? []) as SuiteRun[],
      delegations: (data['delegations'] ?? []) as SuiteDelegation[],
      holds: (data['holds'] ?? []) as SuiteHold[],
      cases,
      locate,
    },
    problems: [],
  };
}

/** Counts stay numbers; everything else numeric-looking (`0xABC`, `007`) is an id and stays the text written. */
const NUMERIC_KEYS = new Set(['plans', 'pushBacks']);

/**
 * Turns numeric-looking ids (`0xABC`, `007`) back into the text written, except counts and call arguments.
 *
 * @example
 * keepIdsAsWritten(parsed); // parsed.data.org.agents has the key "0xABC"
 */
export function keepIdsAsWritten(parsed: ParsedRuleFile): void {
  visit(parsed.doc, {
    Scalar(_key, node, ancestors) {
      if (typeof node.value !== 'number' || node.type !== 'PLAIN' || node.source === undefined) return;
      const keys = ancestors.filter(isPair).map((p) => (isScalar(p.key) ? String(p.key.value) : ''));
      if (keys.includes('args')) return;
      const parent = ancestors[ancestors.length - 1];
      if (isPair(parent) && parent.key === node) {
        node.value = node.source;
        return;
      }
      if (NUMERIC_KEYS.has(keys[keys.length - 1] ?? '')) return;
      node.value = node.source;
    },
  });
  (parsed as { data: unknown }).data = parsed.doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? {};
}
