/**
 * Latency samples and their summary. Samples are nanoseconds (from
 * process.hrtime.bigint()); summaries are in microseconds.
 */
import { PerformanceObserver } from 'node:perf_hooks';

export interface Summary {
  n: number;
  /** Microseconds. */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  /** Sequential operations per second over the measured loops (wall time, includes loop overhead). */
  perSec: number;
  /** GC pauses during the timed loops: count, total ms, longest ms. */
  gc: GcTally;
  /**
   * Process CPU time (all threads) over wall time during the timed loops, in
   * percent. About 100 on an idle machine; well below 100 means other
   * processes took the CPU away (and the tail latencies show it).
   */
  cpuPct: number;
}

/** Per-operation samples (ns), the wall time (ns) of the loops that took them, and GC pauses in those loops. */
export interface Samples {
  ns: Float64Array;
  wallNs: number;
  gc: GcTally;
  /** Process CPU time (user + system, all threads) during the loops, ns; NaN when not tracked. */
  cpuNs: number;
  /** interleave() only: the process CPU time of each round's slice, ns. */
  roundCpuNs?: number[];
}

export interface GcTally {
  /** Garbage-collection pauses that ended inside the timed loops. */
  count: number;
  /** Their total duration, ms. */
  ms: number;
  /** The longest, ms. */
  maxMs: number;
}

/** GC pauses reported by perf_hooks since the last take(). Delivered asynchronously, hence flush(). */
let pauses: number[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) pauses.push(e.duration);
}).observe({ entryTypes: ['gc'] });

const flush = async (): Promise<void> => {
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
};

async function takePauses(into: GcTally): Promise<void> {
  await flush();
  for (const d of pauses) {
    into.count++;
    into.ms += d;
    into.maxMs = Math.max(into.maxMs, d);
  }
  pauses = [];
}

export function emptyTally(): GcTally {
  return { count: 0, ms: 0, maxMs: 0 };
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
}

export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Summarizes samples: percentiles from the sorted samples, rate from the wall time. */
export function summarize(s: Samples): Summary {
  const sorted = Float64Array.from(s.ns).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  const us = (ns: number): number => round(ns / 1000, 1);
  return {
    n: sorted.length,
    p50: us(percentile(sorted, 50)),
    p90: us(percentile(sorted, 90)),
    p99: us(percentile(sorted, 99)),
    max: us(sorted[sorted.length - 1] ?? NaN),
    mean: us(sum / sorted.length),
    perSec: Math.round(sorted.length / (s.wallNs / 1e9)),
    gc: { count: s.gc.count, ms: round(s.gc.ms, 1), maxMs: round(s.gc.maxMs, 1) },
    cpuPct: round((100 * s.cpuNs) / s.wallNs, 0),
  };
}

/** The samples at the given indexes (e.g. one kind of call). */
export function subset(s: Samples, keep: (i: number) => boolean): Samples {
  const ns: number[] = [];
  let sum = 0;
  for (let i = 0; i < s.ns.length; i++) {
    if (keep(i)) {
      ns.push(s.ns[i] as number);
      sum += s.ns[i] as number;
    }
  }
  // The loop's wall time cannot be split; the rate of a subset is 1 / its mean. GC pauses are not attributed.
  return { ns: Float64Array.from(ns), wallNs: sum, gc: emptyTally(), cpuNs: NaN };
}

type Op = (i: number) => unknown;

/** Calls fn(i) for i in [from, to), timing each call into `into`. Only a promise is awaited. */
async function run(fn: Op, from: number, to: number, into?: Samples): Promise<void> {
  if (into) await takePauses(emptyTally()); // drop pauses from before this loop
  const cpu0 = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = from; i < to; i++) {
    const t0 = process.hrtime.bigint();
    const r = fn(i);
    if (r instanceof Promise) await r;
    if (into) into.ns[i] = Number(process.hrtime.bigint() - t0);
  }
  const wall = Number(process.hrtime.bigint() - start);
  const cpu = process.cpuUsage(cpu0);
  if (into) {
    into.wallNs += wall;
    into.cpuNs += (cpu.user + cpu.system) * 1000;
    await takePauses(into.gc);
  }
}

/**
 * Times `fn(i)` for i in [0, n), sequentially, after `warmup` untimed calls
 * (fn(i % n)). Only a promise result is awaited, so a synchronous fn is
 * timed without an extra microtask hop.
 */
export async function measure(n: number, warmup: number, fn: Op): Promise<Samples> {
  await run((i) => fn(i % n), 0, warmup);
  (globalThis as { gc?: () => void }).gc?.();
  const out: Samples = { ns: new Float64Array(n), wallNs: 0, gc: emptyTally(), cpuNs: 0 };
  await run(fn, 0, n, out);
  return out;
}

/**
 * Times several operations over the same index range in interleaved rounds
 * (round r runs slice r of each operation in turn, the order rotating each
 * round), so that a machine that speeds up or slows down during the run
 * affects every operation alike. Each operation is warmed up first.
 */
export async function interleave<K extends string>(
  n: number,
  warmup: number,
  rounds: number,
  ops: Record<K, Op>,
): Promise<Record<K, Samples>> {
  const names = Object.keys(ops) as K[];
  for (const k of names) await run((i) => ops[k](i % n), 0, warmup);
  const out = {} as Record<K, Samples>;
  for (const k of names) out[k] = { ns: new Float64Array(n), wallNs: 0, gc: emptyTally(), cpuNs: 0, roundCpuNs: [] };
  const size = Math.ceil(n / rounds);
  // One full collection before timing; none forced between rounds, so collections the work causes are in the figures.
  (globalThis as { gc?: () => void }).gc?.();
  for (let r = 0; r < rounds; r++) {
    const from = r * size;
    const to = Math.min(n, from + size);
    for (let j = 0; j < names.length; j++) {
      const k = names[(r + j) % names.length] as K;
      const cpu0 = out[k].cpuNs;
      await run(ops[k], from, to, out[k]);
      out[k].roundCpuNs!.push(out[k].cpuNs - cpu0);
    }
  }
  return out;
}

/** The items in a random order (Fisher–Yates), as a new array. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** A fixed piece of work: the same arithmetic loop on every call. */
function spin(n: number): number {
  let x = 0;
  for (let i = 0; i < n; i++) x = (x * 31 + i) | 0;
  return x;
}

/**
 * An op that does the same fixed piece of work on every call, about `us`
 * microseconds long. Timed beside the real ops, its spread is the machine's
 * own (interrupts, scheduling, the timer): what any work of that length shows
 * at p99 on this machine, whatever it does.
 */
export function fixedWork(us: number): Op {
  let n = 1000;
  for (let round = 0; round < 20; round++) {
    const t0 = process.hrtime.bigint();
    for (let k = 0; k < 200; k++) spin(n);
    const took = Number(process.hrtime.bigint() - t0) / 1000 / 200;
    if (Math.abs(took - us) < us * 0.02) break;
    n = Math.max(1, Math.round((n * us) / Math.max(took, 0.01)));
  }
  let sink = 0;
  return () => {
    sink ^= spin(n);
    if (sink === 0.5) throw new Error('unreachable');
  };
}
