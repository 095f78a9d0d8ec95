/**
 * A world for the planning-gate tests: rules compiled from YAML through the
 * real pipeline, the real policy.wasm, a real store (memory or an SQLite
 * file), an in-memory audit sink and a clock the test moves.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { createMemoryAuditSink, type MemoryAuditSink } from '../../src/audit/memory.js';
import type { Call, Decision, Explanation } from '../../src/core/types.js';
import { Engine } from '../../src/engine/policy.js';
import type { Store } from '../../src/facts/port.js';
import { createMemoryStore } from '../../src/facts/memory/store.js';
import { openSqliteStore } from '../../src/facts/sqlite/store.js';
import { createGate, type Gate } from '../../src/gate/gate.js';
import { compileRules } from '../../src/rules/load.js';
import { NOW, seedOrg } from '../support/world.js';

export { MIN, NOW } from '../support/world.js';

export type StoreKind = 'memory' | 'sqlite';

export interface PlanningWorld {
  gate: Gate;
  store: Store;
  audit: MemoryAuditSink;
  engine: Engine;
  /** The current time (epoch ms); `advance` moves it. */
  now(): number;
  advance(ms: number): void;
  /** The SQLite file, for a restart; undefined for the memory store. */
  path?: string;
}

export interface WorldOptions {
  store?: StoreKind;
  /** Reopen this SQLite file instead of creating one. */
  path?: string;
  now?: number;
  readBase?: string;
  /** Seed the org of test/support/world.ts (default true). */
  seed?: boolean;
}

/** Compiles YAML rules (one file, `rules.yaml`) to the policy's data document. */
export function rulesFrom(yaml: string) {
  return compileRules([{ file: 'rules.yaml', text: yaml }]).data;
}

export async function planningWorld(yaml: string, options: WorldOptions = {}): Promise<PlanningWorld> {
  const path = options.path ?? (options.store === 'sqlite' ? join(mkdtempSync(join(tmpdir(), 'plangate-planning-')), 'store.db') : undefined);
  const store = path ? openSqliteStore(path) : createMemoryStore();
  const audit = createMemoryAuditSink();
  const engine = await Engine.load({ data: rulesFrom(yaml), rulesRevision: 'test' });
  let now = options.now ?? NOW;
  const gate = createGate({ engine, store, audit, clock: () => now, ...(options.readBase ? { readBase: options.readBase } : {}) });
  if (options.seed !== false) await seedOrg(store);
  return {
    gate, store, audit, engine,
    now: () => now,
    advance: (ms) => { now += ms; },
    ...(path ? { path } : {}),
  };
}

/** The types of the audit events recorded so far. */
export function eventTypes(w: PlanningWorld): string[] {
  return w.audit.events.map((e) => e.type);
}

/**
 * Decides a call (audited, as a gateway would) and explains it (not
 * audited), checks that the decision's fields are the explanation's, and
 * returns the explanation with the decision's hot-only fields: a test can
 * then look at every check's verdict of the call it decided.
 */
export async function decideExplained(gate: Gate, call: Call): Promise<Explanation & Decision> {
  const decision = await gate.decide(call);
  const { decision: explanation } = await gate.explain(call);
  const { channelCall, readGuard, reviewerChannel, ...shared } = decision;
  expect(shared).toEqual(Object.fromEntries(Object.entries(explanation).filter(([k]) => k !== 'candidates' && k !== 'checks')));
  if (explanation.checks) {
    expect(channelCall === true).toBe(explanation.checks.planningHold.channelCall);
    expect(reviewerChannel).toBe(explanation.checks.planningHold.held ? explanation.checks.planningHold.channel : undefined);
    if (decision.check === 'read_guard') expect(readGuard).toEqual(explanation.checks.readGuard);
  }
  return { ...explanation, ...decision };
}
