/**
 * plangate — no plan, no side effect.
 *
 * @example
 * import { openPlangate } from 'plangate';
 * const pg = await openPlangate({ rules: 'rules', store: '.data/plangate.db' });
 * await pg.gate.guard({ agent: '0xWORKER', tool: 'github.merge_pull_request' }, () => merge());
 *
 * What a user composes: openPlangate (or createGate on an Engine, a store and
 * an audit sink), the in-memory store and the file and memory audit sinks,
 * the errors, where each location comes from, how each check fails, and the
 * types these take and give. Loading it loads no database driver and no
 * schema compiler. The stores with drivers and the adapters are subpath
 * exports, each loading only its own dependencies: `plangate/sqlite`,
 * `plangate/postgres`, `plangate/http`, `plangate/mcp`. Anything else is
 * internal (test/api/exports.test.ts holds the list).
 */
export type * from './core/types.js';
export { ErrorCode, PlangateError, RulesError, PlanRequiredError, CallRefusedError, formatProblem, type Problem } from './core/errors.js';
export { openPlangate, openStore, type Plangate, type OpenOptions, type WatchTuning } from './main/open.js';
export { createGate, type Gate, type GateOptions, type GateStore, type DecideOptions } from './gate/gate.js';
export { Engine, type Evaluator } from './engine/policy.js';
export { loadRules, type LoadedRules } from './rules/load.js';
export type { Store, OrgStore, MessageStore, HoldStore, Hold, NewHold, HoldQuery, HoldMessageRole, Crew, Agent, CandidateQuery, RunStore, DelegationStore } from './facts/port.js';
export type { SnapshotReads, DecisionFacts, DecisionFactsQuery } from './facts/port.js';
export { createMemoryStore } from './facts/memory/store.js';
export { createJsonlAuditSink } from './audit/jsonl.js';
export { createMemoryAuditSink } from './audit/memory.js';
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
  ClaimRefused,
  ClaimKind,
  StoreFailureRefused,
} from './audit/port.js';
export type { Holds, HoldMessage } from './gate/holds.js';
export type { Runs, Delegations } from './gate/runs.js';
export type { RuntimeStatus, StatusSource } from './main/status.js';
// Where things are and which variables move them.
export { resolvePaths, DEFAULT_PATHS, PATH_ENV, type Paths } from './main/config.js';
export { RULES_OPTIONAL_ENV } from './main/rules-location.js';
export { WORKSPACE_ENV } from './main/env.js';
export { READ_BASE_ENV } from './main/roots.js';
// How each check fails (docs/concepts/failing-open-and-closed.md); the decisions built without the policy are internal.
export {
  PLAN_REQUIRED_ON_POLICY_FAILURE,
  PLAN_REQUIRED_ON_STORE_FAILURE,
  READ_GUARD_ON_POLICY_FAILURE,
  READ_GUARD_ON_STORE_FAILURE,
  FAIL_OPEN_CLASS,
} from './core/failopen.js';
export { HOLD_ON_POLICY_FAILURE, HOLD_ON_STORE_FAILURE, UNREAD_HOLDS_ON_STORE_FAILURE, FAIL_CLOSED_HOLD_RULE, FAIL_CLOSED_REVIEWER_CHANNEL } from './core/failclosed.js';
