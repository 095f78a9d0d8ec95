/**
 * plangate — no plan, no side effect.
 *
 * @example
 * import { openPlangate } from 'plangate';
 * const pg = await openPlangate({ rules: 'rules', store: '.data/plangate.db' });
 * await pg.gate.guard({ agent: '0xWORKER', tool: 'github.merge_pull_request' }, () => merge());
 *
 * What a user composes: openPlangate, the gate, the engine, stores, audit
 * sinks, rules, errors and types. The runtime's internals (the reload state
 * machine, the watcher, the policy holder) are not part of this API.
 */
export * from './core/types.js';
export * from './core/errors.js';
export * from './core/threads.js';
export { createGate, type Gate, type GateOptions, type GateStore, type DecideOptions } from './gate/index.js';
export { Engine, type Evaluator } from './engine/index.js';
export type { Store, OrgStore, MessageStore, HoldStore, Hold, NewHold, HoldQuery, HoldMessageRole, Crew, Agent, CandidateQuery } from './facts/port.js';
export type { SnapshotReads, DecisionFacts, DecisionFactsQuery } from './facts/port.js';
export { createMemoryStore } from './facts/memory/store.js';
export { openSqliteStore } from './facts/sqlite/store.js';
export type { SqliteStoreOptions } from './facts/sqlite/store.js';
export { openPostgresStore, type PostgresStore, type PostgresOptions } from './facts/postgres/store.js';
export { watchHoldChanges, HOLD_CHANNEL, type HoldChange, type HoldWatch } from './facts/postgres/listen.js';
export { createPostgresAuditSink, type PostgresAuditSink } from './audit/postgres.js';
export type {
  AuditSink,
  AuditEvent,
  PlanRequiredBlocked,
  HoldPlaced,
  HoldPlanSubmitted,
  HoldPushedBack,
  HoldReleased,
  HoldUnblocked,
  PlanningHoldBlocked,
  ReadGuardBlocked,
} from './audit/port.js';
export type { Holds, HoldMessage } from './gate/holds.js';
export type { RunStore, DelegationStore } from './facts/port.js';
export { DEFAULT_RUN_TTL_MS, type Runs, type Delegations } from './gate/runs.js';
export { RESERVED_KINDS } from './gate/posting.js';
export type { ClaimRefused, ClaimKind, StoreFailureRefused } from './audit/port.js';
export { createJsonlAuditSink } from './audit/jsonl.js';
export { createMemoryAuditSink } from './audit/memory.js';
export { loadRules, type LoadedRules } from './rules/load.js';
export { openPlangate, openStore, type Plangate, type OpenOptions, type WatchTuning } from './main/open.js';
export { resolvePaths, DEFAULT_PATHS, PATH_ENV, type Paths } from './main/config.js';
// How each check fails (docs/concepts/failing-open-and-closed.md); the decisions built without the policy are internal.
export {
  PLAN_REQUIRED_ON_POLICY_FAILURE,
  PLAN_REQUIRED_ON_STORE_FAILURE,
  READ_GUARD_ON_POLICY_FAILURE,
  READ_GUARD_ON_STORE_FAILURE,
  FAIL_OPEN_CLASS,
} from './core/failopen.js';
export type { RuntimeStatus, StatusSource } from './main/status.js';
export { WORKSPACE_ENV } from './main/env.js';
export { loadBlueprint, parseBlueprint, type Blueprint } from './rules/blueprint.js';
export { applyBlueprint, type ApplyBlueprintOptions, type ApplyBlueprintResult } from './main/blueprint.js';
export { readRootsFrom, READ_BASE_ENV } from './main/roots.js';
export { HOLD_ON_POLICY_FAILURE, HOLD_ON_STORE_FAILURE, UNREAD_HOLDS_ON_STORE_FAILURE, FAIL_CLOSED_HOLD_RULE, FAIL_CLOSED_REVIEWER_CHANNEL } from './core/failclosed.js';
export { checkJson, MAX_JSON_DEPTH } from './core/json.js';
export { argsForPolicy, POLICY_ARG_MAX_BYTES, POLICY_ARG_MAX_KEYS, type PolicyArgs } from './gate/args.js';
export { KnownHolds, type KnownHold } from './gate/known-holds.js';
export { runSuites, type TestReport, type RunSuitesOptions } from './main/suite/run.js';
export { diffRuleSets, type DiffReport, type DiffOptions } from './main/diff/diff.js';
export { createDecisionLog, type DecisionLog, type DecisionRecord } from './audit/decision-log.js';
