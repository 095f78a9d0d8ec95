/**
 * The composition root: rules → engine → store → audit → gate. The only
 * place that picks concrete drivers.
 */
import type { AuditSink } from '../audit/port.js';
import { createJsonlAuditSink } from '../audit/jsonl.js';
import { Engine } from '../engine/policy.js';
import type { Store } from '../facts/port.js';
import { createMemoryStore } from '../facts/memory/store.js';
import { openSqliteStore } from '../facts/sqlite/store.js';
import { createGate, type Gate } from '../gate/gate.js';
import { loadRules, type LoadedRules } from '../rules/load.js';
import { resolvePaths, type Paths } from './config.js';

export interface Plangate {
  gate: Gate;
  engine: Engine;
  rules: LoadedRules;
  store: Store;
  audit: AuditSink;
  paths: Paths;
  close(): Promise<void>;
}

export interface OpenOptions extends Partial<Paths> {
  /** Environment to read `PLANGATE_*` from; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Use this store instead of opening one from `store`. */
  storeInstance?: Store;
  /** Use this sink instead of the JSONL file at `audit`. */
  auditSink?: AuditSink;
  clock?: () => number;
}

/**
 * Opens plangate on a rules directory, a store and an audit file.
 *
 * @example
 * const pg = await openPlangate({ rules: 'examples/rules', store: ':memory:' });
 * await pg.gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' });
 * await pg.close();
 */
export async function openPlangate(options: OpenOptions = {}): Promise<Plangate> {
  const paths = resolvePaths(options, options.env);
  const rules = await loadRules(paths.rules);
  const engine = await Engine.load({ data: rules.data, rulesRevision: rules.revision });
  const store = options.storeInstance ?? openStore(paths.store);
  const audit = options.auditSink ?? createJsonlAuditSink(paths.audit);
  const gate = createGate({ engine, store, audit, ...(options.clock ? { clock: options.clock } : {}) });
  return {
    gate,
    engine,
    rules,
    store,
    audit,
    paths,
    async close() {
      await audit.close?.();
      if (!options.storeInstance) await store.close();
    },
  };
}

/** `:memory:` for the in-memory driver, otherwise an SQLite file. */
export function openStore(path: string): Store {
  return path === ':memory:' ? createMemoryStore() : openSqliteStore(path);
}
