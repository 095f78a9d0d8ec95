/**
 * The policy runtime: reads the rules, the environment's pin and the compiled
 * policy, validates all of it, and puts it in force as one snapshot — or
 * keeps what is in force when something is wrong. It also keeps the numbers
 * `status()` reports (reloads, errors, decisions).
 *
 *  - At boot, when anything is wrong, plan-required FAILS OPEN (see
 *    core/failopen.ts): a banner on stderr, every decision says so and is
 *    logged, the status is degraded. The next good load starts enforcement.
 *  - After a good load, a bad change keeps the last good snapshot; the error
 *    is logged once per change (with `file:line:col`), counted, and shown in
 *    the status until a good load clears it.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { ErrorCode, formatProblem, PlangateError, toError, type Problem } from '../core/errors.js';
import type { Decision, PolicyInput, RulesData } from '../core/types.js';
import { enforcing, failingOpen, PolicyHolder, type PolicySnapshot } from '../engine/holder.js';
import { Engine, type CompiledPolicy } from '../engine/policy.js';
import { readPolicy, type PolicyBytes } from '../engine/source.js';
import { checkRules } from '../rules/load.js';
import { readRuleDir } from '../rules/read.js';
import { applyWorkspaceEnv, effectiveRevision, readWorkspaceEnv, type WorkspaceEnv } from './env.js';
import type { RuntimeStatus, StatusSource } from './status.js';

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
export async function readLoadInputs(options: { rulesDir: string; policy: string; env: NodeJS.ProcessEnv }): Promise<LoadInputs> {
  const rulesDir = path.resolve(options.rulesDir);
  const problems: Problem[] = [];
  let code: ErrorCode | undefined;
  let files: string[] = [];
  let revision: string | null = null;
  let data: RulesData | undefined;

  const envPin = readWorkspaceEnv(options.env);
  try {
    const read = await readRuleDir(rulesDir);
    const check = checkRules(read.files.map((f) => ({ file: f.file, text: f.bytes })));
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

/**
 * Linear memory of the engines the runtime loads: 1 MiB to start (it grows
 * as evaluations need, up to 256 MiB). Smaller than a one-off engine's
 * start, because every reload allocates a fresh instance, and large fresh
 * allocations make the garbage collector pause decisions during reloads.
 */
export const RUNTIME_ENGINE_MEMORY = { initial: 16, maximum: 4096 } as const;

/** The last policy compiled, by sha256: a reload of the rules alone does not compile the WASM again. */
let compiledPolicy: { sha256: string; module: CompiledPolicy } | undefined;

async function compilePolicy(policy: PolicyBytes): Promise<CompiledPolicy> {
  if (compiledPolicy?.sha256 === policy.sha256) return compiledPolicy.module;
  const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<CompiledPolicy> } }).WebAssembly;
  let module: CompiledPolicy;
  try {
    module = await wasm.compile(policy.bytes);
  } catch (thrown) {
    throw new PlangateError(ErrorCode.PolicyUnavailable, `policy.wasm cannot be loaded: ${toError(thrown).message}`, [], { cause: thrown });
  }
  compiledPolicy = { sha256: policy.sha256, module };
  return module;
}

/**
 * Loads the policy with the rules and checks that it decides: one effective
 * lookup and one decision on a synthetic call. Throws `policy_unavailable`
 * (or `policy_result_invalid`) when it does not.
 *
 * @example
 * const engine = await loadCheckedEngine(inputs.data, inputs.policy, inputs.revision);
 */
export async function loadCheckedEngine(data: RulesData, policy: PolicyBytes, revision: string): Promise<Engine> {
  const module = await compilePolicy(policy);
  const engine = await Engine.load({ data, rulesRevision: revision, wasm: module, memory: RUNTIME_ENGINE_MEMORY });
  const seat = { id: 'plangate.selftest', known: false, crews: [] };
  const input: PolicyInput = { now: 0, call: { agent: seat.id, tool: 'plangate.selftest', delegatedBy: [] }, agent: seat, upstream: [], messages: [] };
  engine.effective(seat);
  engine.decide(input);
  return engine;
}

/** What one load did. */
export type LoadResult =
  /** The rules and the policy on disk are the ones in force: nothing to do. */
  | { outcome: 'unchanged' }
  /** The files were still changing while they were read (two reads `settleMs` apart differ): try again later. */
  | { outcome: 'unsettled' }
  /** A new snapshot is in force. */
  | { outcome: 'loaded'; revision: string; policySha256: string; enforcementStarted: boolean }
  /** Something is wrong: the last good snapshot stays (`kept`), or plan-required fails open. */
  | { outcome: 'failed'; kept: 'last_good' | 'fail_open'; problems: Problem[] };

export interface RuntimeOptions {
  rulesDir: string;
  /** The policy file: a policy.wasm or an OPA bundle holding one. */
  policy: string;
  /** Where `PLANGATE_WORKSPACE_*` are read from. */
  env: NodeJS.ProcessEnv;
  /** Where the banner and reload lines go (one call per message, which may span lines). */
  log: (text: string) => void;
  /** Log a line when the first load succeeds too (long-running processes). Default false. */
  announce?: boolean;
}

/** Most problems listed in a log message or a fail-open reason; the rest are counted. */
const MAX_LISTED = 20;

/**
 * The runtime. Create it with {@link PolicyRuntime.start}; hand `holder` to
 * the gate; call `load()` whenever something may have changed (the watcher
 * does); loads never overlap.
 *
 * @example
 * const rt = await PolicyRuntime.start({ rulesDir: 'rules', policy: 'policies/build/policy.wasm', env: process.env, log: console.error });
 * const gate = createGate({ engine: rt.holder, store, onDecision: (d) => rt.recordDecision(d) });
 */
export class PolicyRuntime implements StatusSource {
  readonly holder: PolicyHolder;
  private readonly options: RuntimeOptions;
  private readonly pinned: Record<string, string>;
  private reloads = 0;
  private reloadErrors = 0;
  private lastReloadError: RuntimeStatus['lastReloadError'];
  private lastFailureKey: string | undefined;
  private booted = false;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly decisions = { total: 0, refused: 0, shadowRefused: 0, failOpen: 0 };
  /** Set by the host when a watcher runs. */
  watching = false;

  private constructor(options: RuntimeOptions, env: WorkspaceEnv) {
    this.options = { ...options, rulesDir: path.resolve(options.rulesDir) };
    this.pinned = env.variables;
    this.holder = new PolicyHolder(failingOpen('starting: nothing loaded yet'));
  }

  /**
   * Creates the runtime and loads once. Never throws for bad rules or a bad
   * policy: it fails open and prints the banner instead.
   */
  static async start(options: RuntimeOptions): Promise<PolicyRuntime> {
    const rt = new PolicyRuntime(options, readWorkspaceEnv(options.env));
    await rt.load();
    return rt;
  }

  /**
   * Reads everything again and puts it in force if it is good and new. Loads
   * are serialized. With `settleMs`, new content is read twice that far
   * apart and must be the same both times, so a file caught half-written
   * (e.g. between a truncate and a write) is never put in force: the outcome
   * is then `unsettled` and the caller tries again.
   */
  load(options: { settleMs?: number } = {}): Promise<LoadResult> {
    const next = this.queue.then(() => this.loadNow(options.settleMs ?? 0));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private read(): Promise<LoadInputs> {
    return readLoadInputs({ rulesDir: this.options.rulesDir, policy: this.options.policy, env: this.options.env });
  }

  private async loadNow(settleMs: number): Promise<LoadResult> {
    const boot = !this.booted;
    this.booted = true;
    const before = this.holder.snapshot();
    let inputs = await this.read();
    const unchanged = (i: LoadInputs): boolean =>
      i.problems.length === 0 && before.kind === 'enforcing' && before.rules.revision === i.revision && before.policy.sha256 === i.policy?.sha256;
    if (settleMs > 0 && !boot && !unchanged(inputs)) {
      await new Promise((resolve) => setTimeout(resolve, settleMs));
      const again = await this.read();
      if (again.revision !== inputs.revision || again.policy?.sha256 !== inputs.policy?.sha256) return { outcome: 'unsettled' };
      inputs = again;
    }
    if (unchanged(inputs)) {
      // Nothing changed (e.g. a touched file, a periodic rescan). A reverted bad edit also lands here.
      this.clearError();
      return { outcome: 'unchanged' };
    }
    let problems = inputs.problems;
    let engine: Engine | undefined;
    if (problems.length === 0 && inputs.data && inputs.policy && inputs.revision) {
      try {
        engine = await loadCheckedEngine(inputs.data, inputs.policy, inputs.revision);
      } catch (thrown) {
        problems = problemsOf(thrown, this.options.policy);
      }
    }
    if (!engine || !inputs.data || !inputs.policy || !inputs.revision) {
      return this.fail(boot, before, inputs, problems.length > 0 ? problems : [{ message: 'nothing to load' }]);
    }

    const now = new Date();
    const policyChanged = before.kind !== 'enforcing' || before.policy.sha256 !== inputs.policy.sha256;
    const next = enforcing(
      engine,
      { dir: inputs.rulesDir, revision: inputs.revision, files: inputs.files, data: inputs.data, loadedAt: now },
      { sha256: inputs.policy.sha256, loadedAt: policyChanged || before.kind !== 'enforcing' ? now : before.policy.loadedAt },
    );
    this.holder.swap(next);
    this.clearError();
    if (!boot) this.reloads += 1;
    const what = `rules ${inputs.rulesDir} revision ${short(inputs.revision)} (${inputs.files.length} file(s)), policy sha256 ${short(inputs.policy.sha256)}`;
    if (before.kind === 'failing_open' && !boot) {
      this.options.log(`plangate: plan-required ENFORCEMENT STARTED: ${what}; it was failing open since ${before.failOpen.since.toISOString()} (${before.failOpen.reason})`);
    } else if (!boot) {
      this.options.log(`plangate: reloaded ${what}${policyChanged ? ' (new policy)' : ''}`);
    } else if (this.options.announce) {
      this.options.log(`plangate: enforcing plan-required: ${what}`);
    }
    return { outcome: 'loaded', revision: inputs.revision, policySha256: inputs.policy.sha256, enforcementStarted: before.kind === 'failing_open' };
  }

  private fail(boot: boolean, before: PolicySnapshot, inputs: LoadInputs, problems: Problem[]): LoadResult {
    const key = createHash('sha256')
      .update(`${inputs.revision ?? '-'}\0${inputs.policy?.sha256 ?? '-'}\0${problems.map(formatProblem).join('\n')}`)
      .digest('hex');
    const changed = key !== this.lastFailureKey;
    this.lastFailureKey = key;
    const listed = listProblems(problems);
    if (before.kind === 'enforcing') {
      if (changed) {
        this.reloadErrors += 1;
        this.lastReloadError = { message: summary(problems), problems, at: new Date().toISOString() };
        this.options.log(
          `plangate: reload failed, keeping the last good rules (revision ${short(before.rules.revision)}, loaded ${before.rules.loadedAt.toISOString()}):\n${listed}`,
        );
      }
      return { outcome: 'failed', kept: 'last_good', problems };
    }
    const reason = reasonOf(problems);
    if (boot) {
      this.holder.swap(failingOpen(reason));
      this.options.log(banner(problems));
    } else if (changed) {
      this.reloadErrors += 1;
      this.lastReloadError = { message: summary(problems), problems, at: new Date().toISOString() };
      this.holder.swap(failingOpen(reason, before.failOpen.since));
      this.options.log(`plangate: still FAILING OPEN, plan-required is NOT enforced:\n${listed}`);
    }
    return { outcome: 'failed', kept: 'fail_open', problems };
  }

  private clearError(): void {
    this.lastReloadError = undefined;
    this.lastFailureKey = undefined;
  }

  /**
   * Counts a decision for the status, and logs it when it failed open
   * (every fail-open decision is logged).
   */
  recordDecision(decision: Decision): void {
    this.decisions.total += 1;
    if (!decision.allowed) this.decisions.refused += 1;
    if (decision.allowed && decision.shadow === true) this.decisions.shadowRefused += 1;
    if (decision.failOpen) {
      this.decisions.failOpen += 1;
      this.options.log(`plangate: FAIL-OPEN ${decision.agent} → ${decision.tool} allowed without plan-required: ${decision.failOpen.reason}`);
    }
  }

  /** The status contract read by /health, /metrics and the CLI. */
  status(): RuntimeStatus {
    const snap = this.holder.snapshot();
    const on = snap.kind === 'enforcing' ? snap : undefined;
    return {
      state: snap.kind === 'failing_open' || this.lastReloadError ? 'degraded' : 'ok',
      enforcing: snap.kind === 'enforcing',
      ...(snap.kind === 'failing_open' ? { failOpen: { reason: snap.failOpen.reason, since: snap.failOpen.since.toISOString() } } : {}),
      rules: {
        dir: this.options.rulesDir,
        revision: on?.rules.revision ?? null,
        loadedAt: on?.rules.loadedAt.toISOString() ?? null,
        files: on ? [...on.rules.files] : [],
      },
      policy: { sha256: on?.policy.sha256 ?? null, loadedAt: on?.policy.loadedAt.toISOString() ?? null },
      ...(this.lastReloadError ? { lastReloadError: this.lastReloadError } : {}),
      reloads: this.reloads,
      reloadErrors: this.reloadErrors,
      decisions: { ...this.decisions },
      env: { pinned: { ...this.pinned } },
      watching: this.watching,
    };
  }
}

/**
 * The loud boot banner: plan-required is NOT enforced, and why.
 *
 * @example
 * process.stderr.write(banner([{ file: 'plan.yaml', line: 3, col: 9, message: 'invalid YAML' }]));
 */
export function banner(problems: Problem[]): string {
  const rule = '='.repeat(76);
  const lines = [
    rule,
    '!!! PLANGATE IS FAILING OPEN: PLAN-REQUIRED IS NOT ENFORCED !!!',
    '',
    'The rules or the compiled policy could not be loaded, so every call goes',
    'through as if plan-required mode were off. Every decision says so',
    '(failOpen) and is logged; the status (health, metrics) reports degraded.',
    '',
    'Why:',
    ...listProblems(problems).split('\n'),
    '',
    'Fix it (`plangate check` lists every problem). With hot reload on,',
    'enforcement starts by itself as soon as a good version appears;',
    'otherwise at the next start.',
    rule,
  ];
  return lines.map((l) => `plangate: ${l}`.trimEnd()).join('\n');
}

function listProblems(problems: Problem[]): string {
  const lines = problems.slice(0, MAX_LISTED).map((p) => `  ${formatProblem(p)}`);
  if (problems.length > MAX_LISTED) lines.push(`  … and ${problems.length - MAX_LISTED} more`);
  return lines.join('\n');
}

function summary(problems: Problem[]): string {
  const first = problems[0] ? formatProblem(problems[0]) : 'unknown problem';
  return problems.length > 1 ? `${first} (and ${problems.length - 1} more)` : first;
}

/** The fail-open reason carried by every decision: what could not be loaded, with the first problems. */
function reasonOf(problems: Problem[]): string {
  const shown = problems.slice(0, 3).map(formatProblem).join('; ');
  const more = problems.length > 3 ? `; and ${problems.length - 3} more` : '';
  return `plan-required is not enforced: ${shown}${more}`;
}

function short(hash: string): string {
  return hash.slice(0, 12);
}

/** Problems from anything thrown while reading or loading. */
function problemsOf(thrown: unknown, where: string): Problem[] {
  if (thrown instanceof PlangateError && thrown.details.length > 0) return thrown.details;
  const message = thrown instanceof PlangateError ? thrown.message : new PlangateError(ErrorCode.PolicyUnavailable, toError(thrown).message).message;
  return [message.includes(where) ? { message } : { file: where, message }];
}
