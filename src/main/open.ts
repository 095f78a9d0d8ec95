/**
 * The composition root: rules → engine → store → audit → gate. The only
 * place that picks concrete drivers.
 *
 * The rules and the policy are held by a runtime (runtime.ts) that can
 * reload them (watch.ts) and fails open when they cannot be loaded at start
 * (core/failopen.ts); `openPlangate` never throws for bad rules or a bad
 * policy, it says so on stderr and in `status()`.
 */
import type { AuditSink } from '../audit/port.js';
import { createJsonlAuditSink } from '../audit/jsonl.js';
import type { Engine } from '../engine/policy.js';
import type { Store } from '../facts/port.js';
import { createMemoryStore } from '../facts/memory/store.js';
import { openSqliteStore } from '../facts/sqlite/store.js';
import { MAX_HOLD_LIMIT } from '../facts/holds.js';
import { createGate, type Gate } from '../gate/gate.js';
import type { LoadedRules } from '../rules/load.js';
import { resolvePaths, type Paths } from './config.js';
import { readRootsFrom } from './roots.js';
import { PolicyRuntime, type LoadResult } from './runtime.js';
import { withAudit, type RuntimeStatus, type StatusSource } from './status.js';
import { watchPolicyInputs, type PolicyWatcher } from './watch.js';

export interface Plangate extends StatusSource {
  gate: Gate;
  /** The engine in force now; undefined while failing open. */
  readonly engine: Engine | undefined;
  /** The rules in force now (with the environment's workspace pin applied); undefined while failing open. */
  readonly rules: LoadedRules | undefined;
  store: Store;
  audit: AuditSink;
  paths: Paths;
  /** The runtime: what is in force, reloads, status. */
  runtime: PolicyRuntime;
  /** Whether plan-required is enforced, which rules and policy are in force, reload errors, counters. */
  status(): RuntimeStatus;
  /** Reads the rules and the policy again now and puts them in force if they are good and new. */
  reload(): Promise<LoadResult>;
  close(): Promise<void>;
}

/** Tuning for hot reload. */
export interface WatchTuning {
  /** Quiet period after the last file event before reloading (default 100 ms). */
  debounceMs?: number;
  /** Safety-net rescan interval (default 30 s). */
  rescanMs?: number;
  /** New content is read twice this far apart and must match before it is put in force (default 25 ms). */
  settleMs?: number;
}

/** Default gap between the two reads that confirm new content is complete. */
export const DEFAULT_SETTLE_MS = 25;

export interface OpenOptions extends Partial<Paths> {
  /** Environment to read `PLANGATE_*` from; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Use this store instead of opening one from `store`. */
  storeInstance?: Store;
  /** Use this sink instead of the JSONL file at `audit`. */
  auditSink?: AuditSink;
  clock?: () => number;
  /**
   * The directories the read guard may look in (e.g. an MCP filesystem
   * server's directories). Beats `PLANGATE_READ_BASE` and the rules'
   * `readGuard.roots`; the working directory by default (see roots.ts).
   */
  readRoots?: string[];
  /**
   * Watch the rules directory and the policy and reload on change (hot
   * reload). Off by default (one-shot commands); `plangate serve` turns it on.
   */
  watch?: boolean | WatchTuning;
  /**
   * Where the boot banner, reload results and fail-open decisions are
   * logged, one message per call. Defaults to stderr.
   */
  log?: (text: string) => void;
}

/**
 * Opens plangate on a rules directory, a store and an audit file. Never
 * throws for bad rules or a bad policy: it fails open (banner on stderr,
 * `failOpen` on every decision, `status().enforcing === false`) until a good
 * version is loaded.
 *
 * @example
 * const pg = await openPlangate({ rules: 'examples/rules', store: ':memory:', watch: true });
 * await pg.gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' });
 * pg.status().enforcing // false while failing open
 * await pg.close();
 */
export async function openPlangate(options: OpenOptions = {}): Promise<Plangate> {
  const env = options.env ?? process.env;
  const paths = resolvePaths(options, env);
  const log = options.log ?? ((text: string) => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`));
  const runtime = await PolicyRuntime.start({ rulesDir: paths.rules, policy: paths.policy, env, log, announce: Boolean(options.watch) });
  const store = options.storeInstance ?? openStore(paths.store);
  const audit = options.auditSink ?? createJsonlAuditSink(paths.audit);
  const gate = createGate({
    engine: runtime.holder,
    store,
    audit,
    ...(options.clock ? { clock: options.clock } : {}),
    readRoots: () => {
      const snap = runtime.holder.snapshot();
      return readRootsFrom({ ...(options.readRoots ? { option: options.readRoots } : {}), env, rules: snap.kind === 'enforcing' ? snap.rules.data : undefined });
    },
    onDecision: (decision) => runtime.recordDecision(decision),
    // The fail-open decision carries the store's error and recordDecision logs it: one line, not two.
    onStoreError: () => {},
  });
  // Holds on record at start are known before the first decision, so they hold even if the store fails right away.
  await gate.holds.list({ limit: MAX_HOLD_LIMIT }).catch((error: unknown) => {
    log(`plangate: the store failed while reading the active holds at start: ${error instanceof Error ? error.message : String(error)}`);
  });
  let watcher: PolicyWatcher | undefined;
  if (options.watch) {
    const tuning = typeof options.watch === 'object' ? options.watch : {};
    watcher = watchPolicyInputs({
      rulesDir: paths.rules,
      policy: paths.policy,
      reload: () => runtime.load({ settleMs: tuning.settleMs ?? DEFAULT_SETTLE_MS }),
      ...(tuning.debounceMs !== undefined ? { debounceMs: tuning.debounceMs } : {}),
      ...(tuning.rescanMs !== undefined ? { rescanMs: tuning.rescanMs } : {}),
      onError: (error) => log(`plangate: watching ${paths.rules} failed: ${error instanceof Error ? error.message : String(error)}`),
    });
    await watcher.ready;
    runtime.watching = true;
  }
  return {
    gate,
    get engine() {
      const snap = runtime.holder.snapshot();
      return snap.kind === 'enforcing' ? snap.engine : undefined;
    },
    get rules() {
      const snap = runtime.holder.snapshot();
      if (snap.kind !== 'enforcing') return undefined;
      const { dir, revision, files, data, loadedAt } = snap.rules;
      return { dir, revision, files, data, loadedAt };
    },
    store,
    audit,
    paths,
    runtime,
    status: () => withAudit(runtime.status(), audit.state?.()),
    reload: () => runtime.load(),
    async close() {
      runtime.watching = false;
      await watcher?.close();
      await audit.close?.();
      if (!options.storeInstance) await store.close();
    },
  };
}

/** `:memory:` for the in-memory driver, otherwise an SQLite file. */
export function openStore(path: string): Store {
  return path === ':memory:' ? createMemoryStore() : openSqliteStore(path);
}
