/**
 * Helpers for the hot-reload and fail-open tests: real temporary
 * directories, real file-system events, and polling with a deadline
 * (never a fixed sleep to "let the watcher catch up").
 */
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, basename } from 'node:path';
import { createMemoryAuditSink, type MemoryAuditSink } from '../../src/audit/memory.js';
import { createMemoryStore } from '../../src/facts/memory/store.js';
import type { Store } from '../../src/facts/port.js';
import { openPlangate, type OpenOptions, type Plangate } from '../../src/main/open.js';

export const WASM = join(import.meta.dirname, '..', '..', 'policies', 'build', 'policy.wasm');

export function tempRoot(prefix = 'plangate-reload-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Polls `probe` until it returns a truthy value, or fails after `timeoutMs` naming `what`. */
export async function until<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 5000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as NonNullable<T>;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${String(last)})`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Waits `ms` — only to show that something does NOT happen. */
export function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** An editor's atomic save: write a temp dotfile next to the target, then rename it over. */
export function atomicWrite(file: string, text: string | Uint8Array): void {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

/** A rule file with a workspace rule and, optionally, a crew rule for `desk`. */
export function rulesText(workspace: string, desk?: string): string {
  return `planRequired:\n  workspace: { ${workspace} }\n${desk ? `  crews:\n    desk: { ${desk} }\n` : ''}`;
}

export interface Opened {
  pg: Plangate;
  store: Store;
  audit: MemoryAuditSink;
  logs: string[];
}

/** Opens plangate on a memory store and audit sink, collecting its log lines. */
export async function open(options: OpenOptions): Promise<Opened> {
  const store = createMemoryStore();
  await store.putCrew({ id: 'desk', parent: null });
  await store.putAgent({ id: '0xW', crew: 'desk' });
  await store.putAgent({ id: '0xSOLO', crew: 'solo' }).catch(async () => {
    await store.putCrew({ id: 'solo', parent: null });
    await store.putAgent({ id: '0xSOLO', crew: 'solo' });
  });
  const audit = createMemoryAuditSink();
  const logs: string[] = [];
  const pg = await openPlangate({ env: {}, storeInstance: store, auditSink: audit, log: (t) => logs.push(t), ...options });
  return { pg, store, audit, logs };
}

/** The mode and window in force for 0xW (in crew desk), as `mode/window`. */
export async function settingsOf(pg: Plangate, agent = '0xW'): Promise<string> {
  const s = await pg.gate.settingsFor(agent);
  return `${s.mode.value}/${s.windowMin.value}`;
}
