/**
 * plangate — no plan, no side effect.
 *
 * @example
 * import { openPlangate } from 'plangate';
 * const pg = await openPlangate({ rules: 'rules', store: '.data/plangate.db' });
 * await pg.gate.guard({ agent: '0xWORKER', tool: 'github.merge_pull_request' }, () => merge());
 */
export * from './core/types.js';
export * from './core/errors.js';
export * from './core/threads.js';
export { createGate, type Gate, type GateOptions, type GateStore, type DecideOptions } from './gate/index.js';
export { Engine, type Evaluator } from './engine/index.js';
export type { Store, OrgStore, MessageStore, HoldStore, Hold, NewHold, HoldQuery, HoldMessageRole, Crew, Agent, CandidateQuery } from './facts/port.js';
export { createMemoryStore } from './facts/memory/store.js';
export { openSqliteStore } from './facts/sqlite/store.js';
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
export { createJsonlAuditSink } from './audit/jsonl.js';
export { createMemoryAuditSink } from './audit/memory.js';
export { loadRules, type LoadedRules } from './rules/load.js';
export { openPlangate, openStore, type Plangate, type OpenOptions, type WatchTuning } from './main/open.js';
export { resolvePaths, DEFAULT_PATHS, PATH_ENV, type Paths } from './main/config.js';
export * from './core/failopen.js';
export { PolicyHolder, failOpenEvaluator, readPolicy, type PolicySnapshot } from './engine/index.js';
export { PolicyRuntime, readLoadInputs, banner, type LoadInputs, type LoadResult, type RuntimeOptions } from './main/runtime.js';
export { watchPolicyInputs, DEFAULT_DEBOUNCE_MS, DEFAULT_RESCAN_MS, type PolicyWatcher, type WatchOptions } from './main/watch.js';
export { readWorkspaceEnv, applyWorkspaceEnv, refuseIfWorkspacePinned, WORKSPACE_ENV, type WorkspaceEnv } from './main/env.js';
export type { RuntimeStatus, StatusSource } from './main/status.js';
export { loadBlueprint, parseBlueprint, type Blueprint } from './rules/blueprint.js';
export { applyBlueprint, type ApplyBlueprintOptions, type ApplyBlueprintResult } from './main/blueprint.js';
export { readRootsFrom, READ_BASE_ENV } from './main/roots.js';
export * from './core/failclosed.js';
export { checkJson, MAX_JSON_DEPTH } from './core/json.js';
export { argsForPolicy, POLICY_ARG_MAX_BYTES, POLICY_ARG_MAX_KEYS, type PolicyArgs } from './gate/args.js';
export { KnownHolds, type KnownHold } from './gate/known-holds.js';
