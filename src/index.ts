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
export type { Store, OrgStore, MessageStore, Crew, Agent, CandidateQuery } from './facts/port.js';
export { createMemoryStore } from './facts/memory/store.js';
export { openSqliteStore } from './facts/sqlite/store.js';
export type { AuditSink, AuditEvent, PlanRequiredBlocked } from './audit/port.js';
export { createJsonlAuditSink } from './audit/jsonl.js';
export { createMemoryAuditSink } from './audit/memory.js';
export { loadRules, type LoadedRules } from './rules/load.js';
export { openPlangate, openStore, type Plangate, type OpenOptions } from './main/open.js';
export { resolvePaths, DEFAULT_PATHS, PATH_ENV, type Paths } from './main/config.js';
