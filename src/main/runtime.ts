/**
 * The reload state machine: puts a loaded snapshot of the rules and the
 * policy in force, or keeps what is in force when something is wrong. It
 * also reports the status (reloads, errors, decisions).
 *
 *  - At boot, when anything is wrong, plan-required FAILS OPEN (see
 *    core/failopen.ts): a banner on stderr, every decision says so and is
 *    logged, the status is degraded. The next good load starts enforcement.
 *  - After a good load, a bad change keeps the last good snapshot; the error
 *    is logged once per change (with `file:line:col`), counted, and shown in
 *    the status until a good load clears it.
 *
 * The steps live beside it: inputs.ts (read and validate), compile.ts (the
 * compile cache), selftest.ts (the engine self-test), counters.ts (decision
 * counters), banner.ts (the banner and problem summaries).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { formatProblem, type Problem } from '../core/errors.js';
import type { Decision } from '../core/types.js';
import { enforcing, failingOpen, PolicyHolder, type PolicySnapshot } from '../engine/holder.js';
import type { Engine } from '../engine/policy.js';
import { banner, listProblems, reasonOf, short, summary } from './banner.js';
import { DecisionCounters } from './counters.js';
import { readWorkspaceEnv, type WorkspaceEnv } from './env.js';
import { problemsOf, readLoadInputs, type LoadInputs } from './inputs.js';
import { loadCheckedEngine } from './selftest.js';
import { STORE_FAIL_OPEN_DEGRADED_MS, type RuntimeStatus, type StatusSource } from './status.js';

export { banner } from './banner.js';
export { readLoadInputs, type LoadInputs } from './inputs.js';
export { loadCheckedEngine, RUNTIME_ENGINE_MEMORY } from './selftest.js';

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
  /** A private folder to cache checked rules in (see rules-cache.ts); none by default. */
  rulesCache?: string;
}

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
  /** The calls failing open on a store outage: when the run of them began, the last one, its reason. */
  private storeFailOpen: { since: number; last: number; reason: string } | undefined;
  private lastFailureKey: string | undefined;
  private booted = false;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly decisions: DecisionCounters;
  /** Writes refused for a quota, by `<kind>:<limit>`. */
  private readonly quotaRefusals = new Map<string, number>();
  /** Set by the host when a watcher runs. */
  watching = false;

  private constructor(options: RuntimeOptions, env: WorkspaceEnv) {
    this.options = { ...options, rulesDir: path.resolve(options.rulesDir) };
    this.pinned = env.variables;
    this.holder = new PolicyHolder(failingOpen('starting: nothing loaded yet'));
    this.decisions = new DecisionCounters(options.log);
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
    return readLoadInputs({ rulesDir: this.options.rulesDir, policy: this.options.policy, env: this.options.env, ...(this.options.rulesCache !== undefined ? { rulesCache: this.options.rulesCache } : {}) });
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
    this.decisions.record(decision);
    if (decision.failOpen?.cause === 'store') {
      const now = Date.now();
      const ongoing = this.storeFailOpen && now - this.storeFailOpen.last < STORE_FAIL_OPEN_DEGRADED_MS;
      this.storeFailOpen = { since: ongoing && this.storeFailOpen ? this.storeFailOpen.since : now, last: now, reason: decision.failOpen.reason };
    }
  }

  /** Counts a write refused for a seat's quota (by kind and limit), for the status and /metrics. */
  recordQuotaRefusal(kind: string, limit: string): void {
    const key = `${kind}:${limit}`;
    this.quotaRefusals.set(key, (this.quotaRefusals.get(key) ?? 0) + 1);
  }

  /** The last calls that failed open on a store outage, while recent enough to say degraded. */
  private storeFailingOpen(): RuntimeStatus['storeFailingOpen'] {
    const f = this.storeFailOpen;
    if (!f || Date.now() - f.last >= STORE_FAIL_OPEN_DEGRADED_MS) return undefined;
    return { since: new Date(f.since).toISOString(), last: new Date(f.last).toISOString(), reason: f.reason };
  }

  /** The status contract read by /health, /metrics and the CLI. */
  status(): RuntimeStatus {
    const snap = this.holder.snapshot();
    const on = snap.kind === 'enforcing' ? snap : undefined;
    const storeFailingOpen = this.storeFailingOpen();
    return {
      state: snap.kind === 'failing_open' || this.lastReloadError || storeFailingOpen ? 'degraded' : 'ok',
      ...(storeFailingOpen ? { storeFailingOpen } : {}),
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
      decisions: this.decisions.snapshot(),
      quotaRefusals: Object.fromEntries(this.quotaRefusals),
      env: { pinned: { ...this.pinned } },
      watching: this.watching,
    };
  }
}
