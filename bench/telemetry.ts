/**
 * npm run bench:telemetry — what tracing costs a decision, in one process and
 * one run (interleaved rounds, so the machine's drift hits every variant
 * alike): decide() on the memory store with no observer (tracing off), with
 * the span observer on an SDK whose sampler drops every trace (configured,
 * sampled out), and with every decision sampled and exported to memory (the
 * SDK's own cost per decision, without a network).
 */
import os from 'node:os';
import { AlwaysOffSampler, AlwaysOnSampler, InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createMemoryAuditSink } from '../src/audit/memory.js';
import type { Call } from '../src/core/types.js';
import { Engine } from '../src/engine/policy.js';
import { createMemoryStore } from '../src/facts/memory/store.js';
import { createGate } from '../src/gate/gate.js';
import { spanObserver } from '../src/main/telemetry/observer.js';
import { checkRules } from '../src/rules/load.js';
import { interleave, summarize } from './stats.js';

const N = Number(process.env['BENCH_N'] ?? 20_000);
const RULES = 'planRequired:\n  workspace: { mode: side_effects, windowMin: 30 }\n';

async function main(): Promise<void> {
  const rules = checkRules([{ file: 'rules.yaml', text: RULES }]);
  if (!rules.data) throw new Error(JSON.stringify(rules.problems));
  const engine = await Engine.load({ data: rules.data, rulesRevision: 'bench' });
  const store = createMemoryStore();
  const exported = new InMemorySpanExporter();
  const sampledOut = new TracerProvider({ sampler: new AlwaysOffSampler(), spanProcessors: [new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })] });
  const sampledIn = new TracerProvider({ sampler: new AlwaysOnSampler(), spanProcessors: [new SimpleSpanProcessor({ exporter: exported })] });
  const gates = {
    off: createGate({ engine, store, audit: createMemoryAuditSink() }),
    sampledOut: createGate({ engine, store, audit: createMemoryAuditSink(), observer: spanObserver(sampledOut.getTracer('plangate')) }),
    sampledIn: createGate({ engine, store, audit: createMemoryAuditSink(), observer: spanObserver(sampledIn.getTracer('plangate')) }),
  };
  const calls: Call[] = Array.from({ length: 64 }, (_, i) => ({ agent: `0xA${i}`, tool: i % 2 ? 'github.merge_pull_request' : 'fs.read_file', args: { path: `f${i}` } }));
  const op = (gate: (typeof gates)['off']) => (i: number) => gate.decide(calls[i % calls.length]!);
  const samples = await interleave(N, 2_000, 20, { off: op(gates.off), sampledOut: op(gates.sampledOut), sampledIn: op(gates.sampledIn) });
  const s = { off: summarize(samples.off), sampledOut: summarize(samples.sampledOut), sampledIn: summarize(samples.sampledIn) };
  exported.reset();
  console.log(`machine: ${os.cpus()[0]?.model} ×${os.cpus().length}, node ${process.version}; n=${N} decisions each, interleaved`);
  console.log('variant        p50 µs   p99 µs   mean µs   vs off (mean)');
  for (const [k, v] of Object.entries(s)) {
    console.log(`${k.padEnd(13)} ${String(v.p50).padStart(7)} ${String(v.p99).padStart(8)} ${String(v.mean).padStart(9)}   ${(v.mean / s.off.mean).toFixed(3)}×`);
  }
  console.log(`sampled in: ${(s.sampledIn.mean - s.off.mean).toFixed(1)} µs a decision for three spans recorded and exported to memory`);
}

await main();
