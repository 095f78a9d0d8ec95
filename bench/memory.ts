/**
 * Memory over a long run (part of `npm run bench`): 1,000,000 decide() calls
 * on one gate (memory store, 10k agents, 20k messages), with the WASM heap
 * (`engine.memoryBytes`), the JS heap and the process RSS sampled every
 * 100,000 decisions after a gc(). Flat means: the WASM heap never grows
 * after the first sample, and RSS and JS heap end within a few MiB of where
 * they were after the first 100,000.
 */
import { createMemoryAuditSink } from '../src/audit/memory.js';
import type { Call } from '../src/core/types.js';
import { Engine } from '../src/engine/policy.js';
import { createMemoryStore } from '../src/facts/memory/store.js';
import { createGate } from '../src/gate/gate.js';
import { round } from './stats.js';
import { benchRules, buildOrg, makeCalls, messageStream, NOW } from './world.js';

export interface MemorySample {
  decisions: number;
  wasmBytes: number;
  rssMB: number;
  heapUsedMB: number;
}

export interface MemoryBenchResult {
  decisions: number;
  samples: MemorySample[];
  growth: { wasmBytes: number; rssMB: number; heapUsedMB: number };
  targets: Record<string, { target: string; value: unknown; met: boolean }>;
}

/** RSS may move by allocator noise; more than this over 900k decisions is growth. */
const RSS_SLACK_MB = 16;
const HEAP_SLACK_MB = 8;

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const mb = (bytes: number): number => round(bytes / 2 ** 20, 1);

export async function runMemoryBench(options: { decisions?: number; log?: (s: string) => void } = {}): Promise<MemoryBenchResult> {
  const total = options.decisions ?? 1_000_000;
  const every = Math.max(1, Math.floor(total / 10));
  const log = options.log ?? ((s: string) => void process.stderr.write(`${s}\n`));
  const org = buildOrg();
  const engine = await Engine.load({ data: benchRules(org), rulesRevision: 'bench-memory' });
  const store = createMemoryStore();
  for (const c of [...org.crews].sort((a, b) => a.depth - b.depth)) await store.putCrew({ id: c.id, parent: c.parent });
  for (const a of org.agents) await store.putAgent({ id: a.id, crew: a.crew });
  const stream = messageStream(org, 5);
  for (let i = 0; i < 20_000; i++) {
    const m = stream.next();
    await store.postMessage({ thread: m.thread, author: m.author, authorKind: m.authorKind, kind: m.kind, body: 'b', at: m.at, ...(m.runId ? { runId: m.runId } : {}) });
  }
  const calls: Call[] = makeCalls(org, org.agents.map((a) => a.id), 10_000, 13, stream.runPlanOf);
  const audit = createMemoryAuditSink();
  const gate = createGate({ engine, store, audit, clock: () => NOW });
  const samples: MemorySample[] = [];
  const sample = (decisions: number): void => {
    gc();
    const m = process.memoryUsage();
    samples.push({ decisions, wasmBytes: engine.memoryBytes, rssMB: mb(m.rss), heapUsedMB: mb(m.heapUsed) });
  };
  log(`  memory: ${total} decide() calls, sampled every ${every} …`);
  sample(0);
  for (let i = 1; i <= total; i++) {
    await gate.decide(calls[i % calls.length] as Call);
    if (i % 1000 === 0) audit.clear(); // the sink keeps events: not the gate's memory
    if (i % every === 0) sample(i);
  }
  await store.close();
  const first = samples[1] ?? samples[0]!;
  const last = samples[samples.length - 1]!;
  const growth = { wasmBytes: last.wasmBytes - first.wasmBytes, rssMB: round(last.rssMB - first.rssMB, 1), heapUsedMB: round(last.heapUsedMB - first.heapUsedMB, 1) };
  return {
    decisions: total,
    samples,
    growth,
    targets: {
      wasmHeapFlat: { target: `WASM heap flat over ${total} decisions (no growth after the first ${every})`, value: growth.wasmBytes, met: growth.wasmBytes === 0 },
      rssFlat: { target: `RSS and JS heap flat over ${total} decisions (≤ ${RSS_SLACK_MB} MiB / ${HEAP_SLACK_MB} MiB after the first ${every})`, value: { rssMB: growth.rssMB, heapUsedMB: growth.heapUsedMB }, met: growth.rssMB <= RSS_SLACK_MB && growth.heapUsedMB <= HEAP_SLACK_MB },
    },
  };
}

export function formatMemoryBench(r: MemoryBenchResult): string {
  const lines = ['', `memory over ${r.decisions} decisions (decide(), memory store):`];
  for (const s of r.samples) lines.push(`  after ${String(s.decisions).padStart(8)}: WASM ${s.wasmBytes} B, RSS ${s.rssMB} MiB, JS heap ${s.heapUsedMB} MiB`);
  lines.push('targets:');
  for (const [k, t] of Object.entries(r.targets)) lines.push(`  ${t.met ? 'MET    ' : 'NOT MET'}  ${k}: ${t.target} → ${JSON.stringify(t.value)}`);
  return `${lines.join('\n')}\n`;
}
