/**
 * npm run bench:telemetry — what tracing costs a decision, in one process and
 * one run. Three variants of decide() on the memory store, timed in
 * interleaved rounds (each round runs a slice of every variant, the order
 * rotating), so the machine's drift hits every variant alike:
 *
 * - off: no observer (no OTLP endpoint configured);
 * - sampledOut: plangate's own telemetry as `serve` starts it (the SDK for
 *   Node, its context manager, an OTLP exporter) with
 *   OTEL_TRACES_SAMPLER=parentbased_always_off, and no incoming trace: every
 *   decision is sampled out;
 * - sampledIn: every decision sampled, its three spans exported to memory
 *   (the SDK's own cost per decision, without a network).
 *
 * The target: sampled out within 5 % of off (mean). Ratios are printed for
 * the means, the medians, and as the median of the per-round ratios of the
 * means (the least moved by load that comes and goes).
 */
import os from 'node:os';
import { AlwaysOnSampler, InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createMemoryAuditSink } from '../src/audit/memory.js';
import type { Call } from '../src/core/types.js';
import { Engine } from '../src/engine/policy.js';
import { createMemoryStore } from '../src/facts/memory/store.js';
import { createGate } from '../src/gate/gate.js';
import { spanObserver } from '../src/main/telemetry/observer.js';
import { startTelemetry } from '../src/main/telemetry/start.js';
import { checkRules } from '../src/rules/load.js';
import { interleave, summarize, type Samples } from './stats.js';

const N = Number(process.env['BENCH_N'] ?? 40_000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 40);
const TARGET = 1.05;
const RULES = 'planRequired:\n  workspace: { mode: side_effects, windowMin: 30 }\n';

/** Mean of each round's slice of the samples (the slices interleave() timed together). */
function roundMeans(s: Samples): number[] {
  const size = Math.ceil(s.ns.length / ROUNDS);
  const out: number[] = [];
  for (let from = 0; from < s.ns.length; from += size) {
    const slice = s.ns.subarray(from, Math.min(s.ns.length, from + size));
    out.push(slice.reduce((a, b) => a + b, 0) / slice.length);
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function main(): Promise<void> {
  const rules = checkRules([{ file: 'rules.yaml', text: RULES }]);
  if (!rules.data) throw new Error(JSON.stringify(rules.problems));
  const engine = await Engine.load({ data: rules.data, rulesRevision: 'bench' });
  const store = createMemoryStore();

  // plangate's telemetry as a deployment configures it; the endpoint is never reached, as nothing is sampled.
  Object.assign(process.env, {
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_TRACES_SAMPLER: 'parentbased_always_off',
    OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none',
  });
  const telemetry = await startTelemetry(process.env);
  if (!telemetry) throw new Error('telemetry did not start');
  const exported = new InMemorySpanExporter();
  const sampledIn = new TracerProvider({ sampler: new AlwaysOnSampler(), spanProcessors: [new SimpleSpanProcessor({ exporter: exported })] });

  const gates = {
    off: createGate({ engine, store, audit: createMemoryAuditSink() }),
    sampledOut: createGate({ engine, store, audit: createMemoryAuditSink(), observer: telemetry.observer }),
    sampledIn: createGate({ engine, store, audit: createMemoryAuditSink(), observer: spanObserver(sampledIn.getTracer('plangate')) }),
  };
  const calls: Call[] = Array.from({ length: 64 }, (_, i) => ({ agent: `0xA${i}`, tool: i % 2 ? 'github.merge_pull_request' : 'fs.read_file', args: { path: `f${i}` } }));
  const op = (gate: (typeof gates)['off']) => (i: number) => {
    if (i % 4096 === 0) exported.reset(); // keep the exported spans from piling up
    return gate.decide(calls[i % calls.length]!);
  };
  const samples = await interleave(N, 4_000, ROUNDS, { off: op(gates.off), sampledOut: op(gates.sampledOut), sampledIn: op(gates.sampledIn) });
  await telemetry.release();

  const offRounds = roundMeans(samples.off);
  const load = os.loadavg()[0]!.toFixed(2);
  console.log(`machine: ${os.cpus()[0]?.model} ×${os.cpus().length}, node ${process.version}, 1-minute load ${load}; n=${N} decisions each, ${ROUNDS} interleaved rounds`);
  console.log('variant        p50 µs   p99 µs   mean µs   mean/off   p50/off   median of round ratios');
  const s = { off: summarize(samples.off), sampledOut: summarize(samples.sampledOut), sampledIn: summarize(samples.sampledIn) };
  const ratio: Record<string, number> = {};
  for (const k of Object.keys(s) as Array<keyof typeof s>) {
    const v = s[k];
    const perRound = roundMeans(samples[k]).map((m, r) => m / offRounds[r]!);
    ratio[k] = v.mean / s.off.mean;
    console.log(
      `${k.padEnd(13)} ${String(v.p50).padStart(7)} ${String(v.p99).padStart(8)} ${String(v.mean).padStart(9)}`
      + `   ${ratio[k]!.toFixed(3)}×   ${(v.p50 / s.off.p50).toFixed(3)}×    ${median(perRound).toFixed(3)}×`,
    );
  }
  const met = ratio['sampledOut']! <= TARGET;
  console.log(`target, sampled out within 5 % of off (mean): ${met ? 'MET' : 'NOT MET'} ${ratio['sampledOut']!.toFixed(3)}×`);
  console.log(`sampled in: ${(s.sampledIn.mean - s.off.mean).toFixed(1)} µs a decision for three spans recorded and exported to memory`);
}

await main();
