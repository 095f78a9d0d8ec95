/**
 * npm run bench:telemetry — what tracing costs a decision, in one process and
 * one run. Four variants of decide() on the memory store, timed in many
 * short interleaved rounds (each round runs a slice of every variant, the
 * order rotating), so the machine's drift, other processes and the JIT hit
 * every variant alike:
 *
 * - off: no observer (no OTLP endpoint configured);
 * - sampledOut: plangate's own telemetry as `serve` starts it (the SDK for
 *   Node, its context manager, an OTLP exporter) with
 *   OTEL_TRACES_SAMPLER=parentbased_always_off, and no incoming trace: every
 *   decision is sampled out;
 * - sdkIds: sampled out by the same sampler, in a tracer that makes its ids
 *   with the SDK's own generator instead of plangate's (src/main/telemetry/
 *   ids.ts): what that generator saves;
 * - sampledIn: every decision sampled, its three spans exported to memory
 *   (the SDK's own cost per decision, without a network), with the ids
 *   plangate's telemetry makes.
 *
 * A slice is short (100 decisions, about 2 ms), so a round a burst of load
 * hits is one round of a thousand. The target (sampled out within 5 % of off)
 * is judged by the median over rounds of (the variant's mean latency in the
 * round / off's mean latency in the same round), printed with the rounds'
 * interquartile range and a bootstrap 95 % interval of that median. Beside
 * it, as a cross-check: the process CPU time of all the variant's rounds over
 * off's (every thread, so garbage collection the variant causes counts;
 * helper-thread work lands in whichever round is running, so this one moves
 * by a few per cent between runs under load).
 *
 * The mean and p50 over all decisions are printed too; under load the mean
 * is moved by whichever variant a preemption lands in.
 */
import os from 'node:os';
import {
  AlwaysOffSampler, AlwaysOnSampler, InMemorySpanExporter, ParentBasedSampler, RandomIdGenerator, SimpleSpanProcessor, TracerProvider,
} from '@opentelemetry/sdk-trace';
import { createMemoryAuditSink } from '../src/audit/memory.js';
import type { Call } from '../src/core/types.js';
import { Engine } from '../src/engine/policy.js';
import { createMemoryStore } from '../src/facts/memory/store.js';
import { createGate } from '../src/gate/gate.js';
import { pooledIdGenerator } from '../src/main/telemetry/ids.js';
import { spanObserver } from '../src/main/telemetry/observer.js';
import { startTelemetry } from '../src/main/telemetry/start.js';
import { checkRules } from '../src/rules/load.js';
import { interleave, summarize, type Samples } from './stats.js';

const N = Number(process.env['BENCH_N'] ?? 100_000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 1_000);
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

/** The q-quantile (0..1) of xs, interpolated. */
function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (at - lo);
}

/** A bootstrap 95 % interval of the median of xs (rounds resampled with replacement; a fixed seed, so a run repeats). */
function medianInterval(xs: readonly number[], resamples = 2_000): [number, number] {
  let seed = 0x2545f491;
  const next = () => { seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0; return seed / 2 ** 32; };
  const medians: number[] = [];
  const pick = new Array<number>(xs.length);
  for (let b = 0; b < resamples; b++) {
    for (let i = 0; i < xs.length; i++) pick[i] = xs[Math.floor(next() * xs.length)]!;
    medians.push(quantile(pick, 0.5));
  }
  return [quantile(medians, 0.025), quantile(medians, 0.975)];
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

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
  const sampledIn = new TracerProvider({ sampler: new AlwaysOnSampler(), idGenerator: pooledIdGenerator(), spanProcessors: [new SimpleSpanProcessor({ exporter: exported })] });

  const sdkIds = new TracerProvider({ sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }), idGenerator: new RandomIdGenerator() });

  const gates = {
    off: createGate({ engine, store, audit: createMemoryAuditSink() }),
    sampledOut: createGate({ engine, store, audit: createMemoryAuditSink(), observer: telemetry.observer }),
    sdkIds: createGate({ engine, store, audit: createMemoryAuditSink(), observer: spanObserver(sdkIds.getTracer('plangate')) }),
    sampledIn: createGate({ engine, store, audit: createMemoryAuditSink(), observer: spanObserver(sampledIn.getTracer('plangate')) }),
  };
  const calls: Call[] = Array.from({ length: 64 }, (_, i) => ({ agent: `0xA${i}`, tool: i % 2 ? 'github.merge_pull_request' : 'fs.read_file', args: { path: `f${i}` } }));
  const op = (gate: (typeof gates)['off']) => (i: number) => {
    if (i % 4096 === 0) exported.reset(); // keep the exported spans from piling up
    return gate.decide(calls[i % calls.length]!);
  };
  const samples = await interleave(N, 4_000, ROUNDS, { off: op(gates.off), sampledOut: op(gates.sampledOut), sdkIds: op(gates.sdkIds), sampledIn: op(gates.sampledIn) });
  await telemetry.release();

  const load = os.loadavg()[0]!.toFixed(2);
  console.log(`machine: ${os.cpus()[0]?.model} ×${os.cpus().length}, node ${process.version}, 1-minute load ${load}; n=${N} decisions each, ${ROUNDS} interleaved rounds of ${Math.ceil(N / ROUNDS)}`);
  const offRounds = roundMeans(samples.off);
  const offCpu = samples.off.roundCpuNs!;
  const s = { off: summarize(samples.off), sampledOut: summarize(samples.sampledOut), sdkIds: summarize(samples.sdkIds), sampledIn: summarize(samples.sampledIn) };
  console.log('variant        p50 µs   p99 µs   mean µs  CPU µs   mean/off  p50/off  CPU/off   wall/off, median of rounds [IQR] (95 % interval)');
  const verdict: Record<string, { wall: number; cpu: number }> = {};
  for (const k of Object.keys(s) as Array<keyof typeof s>) {
    const v = s[k];
    const perRound = roundMeans(samples[k]).map((m, r) => m / offRounds[r]!);
    const wall = quantile(perRound, 0.5);
    const [lo, hi] = medianInterval(perRound);
    const cpuUs = sum(samples[k].roundCpuNs!) / N / 1000;
    const cpu = sum(samples[k].roundCpuNs!) / sum(offCpu);
    verdict[k] = { wall, cpu };
    console.log(
      `${k.padEnd(13)} ${String(v.p50).padStart(7)} ${String(v.p99).padStart(8)} ${String(v.mean).padStart(8)} ${cpuUs.toFixed(1).padStart(7)}`
      + `   ${(v.mean / s.off.mean).toFixed(3)}×   ${(v.p50 / s.off.p50).toFixed(3)}×  ${cpu.toFixed(3)}×   ${wall.toFixed(3)}× [${quantile(perRound, 0.25).toFixed(3)}–${quantile(perRound, 0.75).toFixed(3)}] (${lo.toFixed(3)}–${hi.toFixed(3)})`,
    );
  }
  const out = verdict['sampledOut']!;
  console.log(`target, sampled out within 5 % of off (median of round ratios): ${out.wall <= TARGET ? 'MET' : 'NOT MET'} ${out.wall.toFixed(3)}×; CPU time ${out.cpu.toFixed(3)}× (cross-check)`);
  const offCpuUs = sum(offCpu) / N / 1000;
  console.log(`sampled in: ${(s.sampledIn.p50 - s.off.p50).toFixed(1)} µs a decision at p50, ${(sum(samples.sampledIn.roundCpuNs!) / N / 1000 - offCpuUs).toFixed(1)} µs of CPU, for three spans recorded and exported to memory`);
}

await main();
