/**
 * A small world for tests: the real policy.wasm through opa-wasm, a real
 * store (memory or an SQLite file in a temp dir) and an in-memory audit sink.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryAuditSink, type MemoryAuditSink } from '../../src/audit/memory.js';
import type { RulesData } from '../../src/core/types.js';
import { Engine } from '../../src/engine/policy.js';
import type { Store } from '../../src/facts/port.js';
import { createMemoryStore } from '../../src/facts/memory/store.js';
import { openSqliteStore } from '../../src/facts/sqlite/store.js';
import { createGate, type Gate } from '../../src/gate/gate.js';

export const NOW = Date.parse('2026-06-01T12:00:00Z');
export const MIN = 60_000;

export function rulesData(partial: {
  workspace?: RulesData['planRequired']['workspace'];
  crews?: RulesData['planRequired']['crews'];
  agents?: RulesData['planRequired']['agents'];
  tools?: Partial<RulesData['tools']>;
} = {}): RulesData {
  return {
    planRequired: {
      ...(partial.workspace ? { workspace: partial.workspace } : {}),
      crews: partial.crews ?? {},
      agents: partial.agents ?? {},
    },
    tools: { default: 'effect', exact: {}, patterns: [], ...partial.tools },
  };
}

export interface World {
  gate: Gate;
  store: Store;
  audit: MemoryAuditSink;
  engine: Engine;
  now: number;
}

export async function makeWorld(data: RulesData, options: { store?: 'memory' | 'sqlite'; now?: number } = {}): Promise<World> {
  const store = options.store === 'sqlite'
    ? openSqliteStore(join(mkdtempSync(join(tmpdir(), 'plangate-world-')), 'store.db'))
    : createMemoryStore();
  const audit = createMemoryAuditSink();
  const engine = await Engine.load({ data, rulesRevision: 'test' });
  const now = options.now ?? NOW;
  const gate = createGate({ engine, store, audit, clock: () => now });
  return { gate, store, audit, engine, now };
}

/** desk ← trading ← (0xWORKER); desk ← ops ← (0xOPS); 0xMGR in desk. */
export async function seedOrg(store: Store): Promise<void> {
  await store.putCrew({ id: 'desk', parent: null });
  await store.putCrew({ id: 'trading', parent: 'desk' });
  await store.putCrew({ id: 'ops', parent: 'desk' });
  await store.putAgent({ id: '0xMGR', crew: 'desk' });
  await store.putAgent({ id: '0xWORKER', crew: 'trading' });
  await store.putAgent({ id: '0xOPS', crew: 'ops' });
}
