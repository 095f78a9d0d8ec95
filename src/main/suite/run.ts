/**
 * Running `plangate test` suites: for each directory, the rules and the
 * policy are loaded and checked exactly as `decide` loads them, each suite is
 * seeded into a fresh in-memory store, and each case is decided by the gate.
 * A failing case is explained by the gate too. Nothing is audited.
 */
import type { Problem } from '../../core/errors.js';
import type { Call, Decision, Explanation, PolicyInput, RulesData } from '../../core/types.js';
import type { Engine } from '../../engine/policy.js';
import { createGate } from '../../gate/gate.js';
import { loadCheckedEngine, readLoadInputs } from '../runtime.js';
import { coverageOf, CoverageRecorder, type Unexercised } from './coverage.js';
import { listSuiteFiles, loadSuite, type Expectation, type Suite, type SuiteCase } from './load.js';
import { seedSuite } from './seed.js';

/** One case's outcome. */
export interface CaseResult {
  name: string;
  /** `path:line:col` of the case in its suite. */
  where: string;
  status: 'passed' | 'failed' | 'error';
  expected: Expectation;
  /** The fields of the decision the expectation names. */
  got?: Partial<Record<keyof Expectation, unknown>>;
  /** For a failed case: the decision and its facts, as `explain` gives them. */
  explained?: { decision: Explanation; input: PolicyInput };
  /** For an error: why the case could not be decided. */
  error?: string;
  ms: number;
}

export interface SuiteResult {
  file: string;
  path: string;
  cases: CaseResult[];
  /** Said once per suite, e.g. that runs and delegations were not recorded. */
  notes: string[];
  ms: number;
}

export interface DirResult {
  dir: string;
  /** Problems with the rules, the policy or a suite: the directory's suites did not run (exit 2). */
  problems: Problem[];
  suites: SuiteResult[];
  /** Rules no selected case exercised; empty when the directory did not run. */
  unexercised: Unexercised[];
}

export interface TestReport {
  dirs: DirResult[];
  passed: number;
  failed: number;
  errors: number;
  /** Cases left out by the filter. */
  filtered: number;
}

export interface RunSuitesOptions {
  dirs: string[];
  policy: string;
  env: NodeJS.ProcessEnv;
  /** Only cases whose `<suite file> <case name>` contains this text (case-insensitive). */
  filter?: string;
}

/**
 * Runs every suite in every directory.
 *
 * @example
 * const report = await runSuites({ dirs: ['rules'], policy: 'policies/build/policy.wasm', env: process.env });
 * report.failed // 0
 */
export async function runSuites(options: RunSuitesOptions): Promise<TestReport> {
  const report: TestReport = { dirs: [], passed: 0, failed: 0, errors: 0, filtered: 0 };
  for (const dir of options.dirs) {
    const result = await runDir(dir, options, report);
    report.dirs.push(result);
  }
  return report;
}

async function runDir(dir: string, options: RunSuitesOptions, report: TestReport): Promise<DirResult> {
  const result: DirResult = { dir, problems: [], suites: [], unexercised: [] };
  const inputs = await readLoadInputs({ rulesDir: dir, policy: options.policy, env: options.env });
  if (inputs.problems.length > 0 || !inputs.data || !inputs.policy || !inputs.revision) {
    result.problems = inputs.problems.map((p) => (p.file && !p.file.startsWith('/') && p.file !== dir ? { ...p, file: joinPath(dir, p.file) } : p));
    return result;
  }
  let engine: Engine;
  try {
    engine = await loadCheckedEngine(inputs.data, inputs.policy, inputs.revision);
  } catch (error) {
    result.problems = [{ file: options.policy, message: error instanceof Error ? error.message : String(error) }];
    return result;
  }
  let files: string[];
  try {
    files = await listSuiteFiles(dir);
  } catch (error) {
    result.problems = [{ file: dir, message: `cannot list the suites: ${error instanceof Error ? error.message : String(error)}` }];
    return result;
  }
  if (files.length === 0) result.problems.push({ file: dir, message: 'no test suites (*.test.yaml) in this directory' });
  const suites: Suite[] = [];
  for (const file of files) {
    const loaded = await loadSuite(dir, file);
    if (loaded.suite) suites.push(loaded.suite);
    result.problems.push(...loaded.problems);
  }
  if (result.problems.length > 0) return result;

  const coverage = new CoverageRecorder();
  for (const suite of suites) {
    const ran = await runSuite(suite, engine, dir, options.filter, coverage);
    if ('problems' in ran) {
      result.problems.push(...ran.problems);
      continue;
    }
    for (const c of ran.cases) report[c.status === 'error' ? 'errors' : c.status] += 1;
    report.filtered += ran.filtered;
    result.suites.push(ran.result);
  }
  if (result.problems.length === 0) {
    const unexercised = await coverageOf(inputs.data as RulesData, inputs.policy.bytes, coverage);
    result.unexercised = unexercised.map((u) => ({ ...u, source: joinPath(dir, u.source) }));
  }
  return result;
}

async function runSuite(
  suite: Suite,
  engine: Engine,
  dir: string,
  filter: string | undefined,
  coverage: CoverageRecorder,
): Promise<{ result: SuiteResult; cases: CaseResult[]; filtered: number } | { problems: Problem[] }> {
  const started = performance.now();
  const seeded = await seedSuite(suite);
  if ('problems' in seeded) return { problems: seeded.problems };
  const gate = createGate({ engine, store: seeded.store, clock: () => seeded.now, readBase: dir });
  const cases: CaseResult[] = [];
  let filtered = 0;
  try {
    for (const c of suite.cases) {
      if (filter && !`${suite.file} ${c.name}`.toLowerCase().includes(filter.toLowerCase())) {
        filtered += 1;
        continue;
      }
      const t0 = performance.now();
      const where = `${suite.path}:${c.line}:${c.col}`;
      const call = toCall(c, suite);
      let decision: Decision;
      try {
        decision = await gate.decide(call);
      } catch (error) {
        cases.push({ name: c.name, where, status: 'error', expected: c.expect, error: error instanceof Error ? error.message : String(error), ms: performance.now() - t0 });
        continue;
      }
      coverage.record(decision, await seeded.store.lineage(call.agent), engine);
      const got = pick(decision, c.expect);
      const passed = Object.entries(c.expect).every(([k, v]) => got[k as keyof Expectation] === v);
      const outcome: CaseResult = { name: c.name, where, status: passed ? 'passed' : 'failed', expected: c.expect, got, ms: 0 };
      if (!passed) outcome.explained = await gate.explain(call);
      outcome.ms = performance.now() - t0;
      cases.push(outcome);
    }
  } finally {
    await seeded.store.close();
  }
  return {
    result: { file: suite.file, path: suite.path, cases, notes: seeded.note ? [seeded.note] : [], ms: performance.now() - started },
    cases,
    filtered,
  };
}

/** The call a case makes; a case's `delegation` puts that delegation's manager at the head of the chain. */
function toCall(c: SuiteCase, suite: Suite): Call {
  const chain = [...(c.call.delegatedBy ?? [])];
  const delegation = suite.delegations.find((d) => d.id === c.call.delegation);
  if (delegation && chain[0] !== delegation.manager) chain.unshift(delegation.manager);
  return {
    agent: c.call.agent,
    tool: c.call.tool,
    at: c.call.at ?? suite.now,
    ...(c.call.run !== undefined ? { runId: c.call.run } : {}),
    ...(chain.length > 0 ? { delegatedBy: chain } : {}),
    ...(c.call.args !== undefined ? { args: c.call.args } : {}),
  };
}

/**
 * The decision's value for every field an expectation names.
 *
 * @example
 * pick(decision, { allowed: false, scope: 'crew:desk' }) // { allowed: true, scope: 'workspace' }
 */
export function pick(d: Decision, expect: Expectation): Partial<Record<keyof Expectation, unknown>> {
  const mode = d.settings.mode;
  const all: Record<keyof Expectation, unknown> = {
    allowed: d.allowed,
    check: d.check,
    code: d.code,
    reason: d.reason,
    scope: mode.scope === 'crew' || mode.scope === 'agent' ? `${mode.scope}:${mode.id}` : mode.scope,
    class: d.class,
    shadow: d.shadow === true,
    via: d.plan?.via,
  };
  const out: Partial<Record<keyof Expectation, unknown>> = {};
  for (const key of Object.keys(expect) as Array<keyof Expectation>) out[key] = all[key];
  return out;
}

function joinPath(dir: string, file: string): string {
  return dir === '.' ? file : `${dir.replace(/\/+$/, '')}/${file}`;
}
