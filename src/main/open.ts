/**
 * The composition root: rules → engine → store → audit → gate. The only
 * place that picks concrete drivers.
 *
 * The rules and the policy are held by a runtime (runtime.ts) that can
 * reload them (watch.ts) and fails open when they cannot be loaded at start
 * (core/failopen.ts); `openPlangate` never throws for bad rules or a bad
 * policy, it says so on stderr and in `status()`.
 */
import { ErrorCode, PlangateError } from '../core/errors.js';
import type { AuditSink } from '../audit/port.js';
import { createDecisionLog } from '../audit/decision-log.js';
import { createJsonlAuditSink } from '../audit/jsonl.js';
import type { Decision, PolicyInput } from '../core/types.js';
import type { Engine } from '../engine/policy.js';
import type { Store } from '../facts/port.js';
import type { HoldWatch } from '../facts/postgres/listen.js';
import type { PostgresStore } from '../facts/postgres/store.js';
import type { SqliteStoreOptions } from '../facts/sqlite/store.js';
import { createGate, type Gate } from '../gate/gate.js';
import type { LoadedRules } from '../rules/load.js';
import { resolvePaths, storeKind, type Paths } from './config.js';
import { readHoldsAtStart, type HoldsAtStart } from './holds-at-start.js';
import { watchClock, type ClockWatch } from './clock-watch.js';
import { readRootsFrom } from './roots.js';
import { PolicyRuntime, type LoadResult } from './runtime.js';
import { withAudit, withClock, type RuntimeStatus, type StatusSource } from './status.js';
import type { PolicyWatcher } from './watch.js';
import { OPA_DECISION_LOG_ENV, telemetryConfigured } from './telemetry/state.js';
import { plangateVersion } from './version.js';

export interface Plangate extends StatusSource {
  gate: Gate;
  /** The engine in force now; undefined while failing open. */
  readonly engine: Engine | undefined;
  /** The rules in force now (with the environment's workspace pin applied); undefined while failing open. */
  readonly rules: LoadedRules | undefined;
  store: Store;
  audit: AuditSink;
  /**
   * Whether the store is shared by several replicas (PostgreSQL). Rules are
   * files each replica watches on its own mount, so with a shared store
   * runtime rule edits through the API are refused: change the files in Git.
   */
  sharedStore: boolean;
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
  /**
   * The SQLite store's page cache in MiB (default: SQLite's); for stores of
   * millions of messages. Also `PLANGATE_SQLITE_CACHE_MIB`.
   */
  sqliteCacheMiB?: number;
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
  /** Append every decision's policy input to this JSONL file (for `plangate diff --replay`). Off unless set. */
  decisionLog?: string;
  /**
   * Send every decision in OPA's decision-log format to this file or
   * `http(s)://` endpoint (also `PLANGATE_OPA_DECISION_LOG`). Off unless set.
   */
  opaDecisionLog?: string;
  /**
   * A private folder to cache checked rules in, for a process that starts
   * per call (`plangate hook`; see rules-cache.ts). None by default.
   */
  rulesCache?: string;
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
  const runtime = await PolicyRuntime.start({
    rulesDir: paths.rules, policy: paths.policy, env, log, announce: Boolean(options.watch),
    ...(options.rulesCache !== undefined ? { rulesCache: options.rulesCache } : {}),
  });
  const store = options.storeInstance ?? (await openStore(paths.store, { cacheSizeMiB: options.sqliteCacheMiB ?? cacheFromEnv(options.env ?? process.env) }));
  let audit: AuditSink;
  try {
    if (options.auditSink) {
      audit = options.auditSink;
    } else if (storeKind(paths.audit) === 'postgres') {
      const shared = paths.audit === paths.store && 'pool' in store ? (store as PostgresStore).pool : undefined;
      const [{ createPostgresAuditSink }, { createPool }] = await Promise.all([import('../audit/postgres.js'), import('../facts/postgres/pool.js')]);
      // The sink is also an AuditReader (query()): every replica's events, from any replica.
      audit = await createPostgresAuditSink(shared ?? createPool(paths.audit), { ownsPool: shared === undefined });
    } else {
      audit = createJsonlAuditSink(paths.audit);
    }
  } catch (err) {
    if (!options.storeInstance) await store.close();
    throw err;
  }
  const decisionLog = options.decisionLog ? createDecisionLog(options.decisionLog) : undefined;
  const opaLogTarget = options.opaDecisionLog ?? (env[OPA_DECISION_LOG_ENV] || undefined);
  // OpenTelemetry and the OPA-format log load only when asked for.
  const opaLog = opaLogTarget ? (await import('./telemetry/opa-log.js')).openOpaLog(opaLogTarget, env) : undefined;
  const telemetry = telemetryConfigured(env) ? await (await import('./telemetry/start.js')).startTelemetry(env, plangateVersion()) : undefined;
  const revision = (): string | undefined => {
    const snap = runtime.holder.snapshot();
    return snap.kind === 'enforcing' ? snap.rules.revision : undefined;
  };
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
    onQuotaRefused: (kind, limit) => runtime.recordQuotaRefusal(kind, limit),
    ...(decisionLog || opaLog
      ? { onDecided: (input: PolicyInput, decision: Decision) => {
        decisionLog?.record(input, decision, revision());
        opaLog?.record(input, decision, revision());
      } }
      : {}),
    ...(telemetry ? { observer: telemetry.observer } : {}),
    // The fail-open decision carries the store's error and recordDecision logs it: one line, not two.
    onStoreError: () => {},
  });
  let holdWatch: HoldWatch | undefined;
  let holdsRead: HoldsAtStart | undefined;
  let clockWatch: ClockWatch | undefined;
  let watcher: PolicyWatcher | undefined;
  const closeAll = async (): Promise<void> => {
    runtime.watching = false;
    holdsRead?.stop();
    clockWatch?.stop();
    await watcher?.close();
    await holdWatch?.close();
    await audit.close?.();
    await decisionLog?.close();
    await opaLog?.close();
    await telemetry?.release();
    if (!options.storeInstance) await store.close();
  };
  try {
    // With a store shared by replicas, holds changed through the others are known here at once. Followed
    // from before the holds on record are read, so that a hold placed in between is not missed.
    if (storeKind(paths.store) === 'postgres' && !options.storeInstance) {
      const { followHoldChanges } = await import('./hold-watch.js');
      holdWatch = await followHoldChanges(paths.store, gate, log);
    }
    // Holds on record at start are known before the first decision, so they hold even if the store fails right away.
    // If they cannot be read, no agent is let through a failing store until they have been (see UNREAD_HOLDS_ON_STORE_FAILURE).
    holdsRead = await readHoldsAtStart(gate, log);
    // Replicas stamp and judge plans by their own clocks: one that is off the database's says so.
    if ('pool' in store) {
      const { clockSkew } = await import('../facts/postgres/clock.js');
      clockWatch = await watchClock(() => clockSkew((store as PostgresStore).pool, options.clock ?? Date.now), log);
    }
    if (options.watch) {
      const tuning = typeof options.watch === 'object' ? options.watch : {};
      const { watchPolicyInputs } = await import('./watch.js');
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
  } catch (error) {
    // A start that fails part way leaves nothing open behind it.
    await closeAll().catch(() => {});
    throw error;
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
    sharedStore: storeKind(paths.store) === 'postgres',
    paths,
    runtime,
    status: () => withClock(withAudit(runtime.status(), audit.state?.()), clockWatch?.state()),
    reload: () => runtime.load(),
    close: closeAll,
  };
}

/**
 * Opens the store a location names: `:memory:` for the in-memory driver, a
 * `postgres://` URL for PostgreSQL, otherwise an SQLite file (with
 * `options`). Any other URL scheme is an `invalid_input` error.
 *
 * @example
 * const store = await openStore('postgres://127.0.0.1:5432/plangate');
 */
export async function openStore(path: string, options: SqliteStoreOptions = {}): Promise<Store> {
  switch (storeKind(path)) {
    case 'memory':
      // Each store's modules load only for a store of its kind (a hook process opens one SQLite file).
      return (await import('../facts/memory/store.js')).createMemoryStore();
    case 'postgres': {
      // PostgreSQL's driver is loaded only for a store that needs it: a one-shot command (a hook) starts sooner.
      const { openPostgresStore } = await import('../facts/postgres/store.js');
      return openPostgresStore(path);
    }
    default: {
      // So is SQLite's native module: `import 'plangate'` loads neither driver until a store needs one.
      const { openSqliteStore } = await import('../facts/sqlite/store.js');
      return openSqliteStore(path, options);
    }
  }
}

/** `PLANGATE_SQLITE_CACHE_MIB` as a number (the store checks its range); unset or empty is the default. */
function cacheFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const text = env.PLANGATE_SQLITE_CACHE_MIB;
  if (text === undefined || text === '') return undefined;
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n)) {
    throw new PlangateError(ErrorCode.InvalidInput, `PLANGATE_SQLITE_CACHE_MIB must be a whole number of MiB (got ${JSON.stringify(text)})`);
  }
  return n;
}
