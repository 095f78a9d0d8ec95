/**
 * Hot-reload figures for `npm run bench` (hooked into bench/run.ts; also
 * runnable alone: `node --expose-gc --import tsx bench/reload.ts`). Writes
 * bench/results/reload.json.
 *
 *  1. Reload latency: from the write of a rule file to the new rule deciding
 *     calls, through the real watcher with its production defaults
 *     (chokidar, 100 ms quiet period, 25 ms settle read). 50 edits, half
 *     saved atomically (temp file + rename), half written in place.
 *     Target: p99 ≤ 250 ms.
 *  2. decide() latency during continuous reloads compared with none, in one
 *     run: interleaved rounds, each with one phase of each kind, the order
 *     rotating. "Continuous": through the watcher, the next edit is written
 *     as soon as the previous one is in force — as fast as file edits can
 *     reload. A harsher stress phase calls reload() back to back (no quiet
 *     period), which file events never do. The decision loop yields to the
 *     event loop after every decision (as a server does between requests),
 *     so the reload's work runs between decisions. Also the event-loop delay
 *     of each phase: how long the reload's synchronous steps hold the loop
 *     (what a request arriving at that moment waits).
 *     Target: p99 during continuous reloads ≤ 1.5 × p99 without.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createMemoryAuditSink } from '../src/audit/memory.js';
import type { Call } from '../src/core/types.js';
import { createMemoryStore } from '../src/facts/memory/store.js';
import { openPlangate, type Plangate } from '../src/main/open.js';
import { emptyTally, round, summarize, type Samples, type Summary } from './stats.js';

export interface ReloadBenchOptions {
  /** Rule-file edits timed for the reload latency (default 50). */
  edits?: number;
  /** Decisions per phase per round (default 8000). */
  decisionsPerPhase?: number;
  /** Rounds (default 10). */
  rounds?: number;
  log?: (line: string) => void;
}

interface Percentiles {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export interface ReloadBenchResults {
  reloadLatencyMs: Percentiles & { atomicSave: Percentiles; inPlaceWrite: Percentiles; debounceMs: number; settleMs: number };
  decisionsDuringReloads: {
    quiet: Summary;
    /** Edits through the watcher, each written once the previous one is in force. */
    reloading: Summary;
    /** reload() back to back: a stress figure, not the target. */
    backToBack: Summary;
    ratio: { p50: number; p99: number; mean: number };
    ratioBackToBack: { p50: number; p99: number; mean: number };
    reloads: { continuous: number; continuousPerSecond: number; backToBack: number; backToBackPerSecond: number };
    eventLoopDelayMs: Record<'quiet' | 'reloading' | 'backToBack', { p50: number; p99: number; max: number }>;
    /** Linear memory of the engine in force at the end (it starts at 1 MiB and grows as evaluations need). */
    engineMemoryBytes: number;
  };
  targets: Record<string, { target: string; value: unknown; met: boolean }>;
}

const CREWS = 20;
const AGENTS = 200;
const NOW = Date.parse('2026-06-01T12:00:00Z');

function rulesText(version: number): string {
  const crews = Array.from({ length: CREWS }, (_, i) => `    c${i}: { mode: ${i % 3 === 0 ? 'spends_only' : 'side_effects'}, windowMin: ${10 + ((i + version) % 50)} }`);
  return [
    `# version ${version}`,
    'planRequired:',
    `  workspace: { mode: side_effects, windowMin: ${1 + (version % 10_000)} }`,
    '  crews:',
    ...crews,
    'tools:',
    '  read: [github.get_*, "*.search"]',
    '  effect: [github.merge_pull_request, social.publish_?]',
    '  spend: [wallet.propose_spend, payments.*]',
    '  say: [plangate.say]',
    '',
  ].join('\n');
}

function percentiles(ms: number[]): Percentiles {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number): number => round(s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN, 1);
  return { n: s.length, p50: at(50), p90: at(90), p99: at(99), max: round(s[s.length - 1] ?? NaN, 1), mean: round(s.reduce((a, b) => a + b, 0) / s.length, 1) };
}

const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

/** The workspace window the engine in force was loaded with (marks the rules version). */
function windowInForce(pg: Plangate): number | undefined {
  const snap = pg.runtime.holder.snapshot();
  return snap.kind === 'enforcing' ? snap.rules.data.planRequired.workspace?.windowMin : undefined;
}

async function world(dir: string): Promise<{ pg: Plangate; calls: Call[] }> {
  const store = createMemoryStore();
  for (let c = 0; c < CREWS; c++) await store.putCrew({ id: `c${c}`, parent: c === 0 ? null : `c${Math.floor((c - 1) / 3)}` });
  const calls: Call[] = [];
  for (let a = 0; a < AGENTS; a++) {
    const id = `0xA${a}`;
    await store.putAgent({ id, crew: `c${a % CREWS}` });
    for (let m = 0; m < 5; m++) {
      await store.postMessage({ thread: `agent:${id}`, author: id, authorKind: 'agent', kind: m % 2 === 0 ? 'plan' : 'note', body: 'x', at: NOW - (a * 7 + m * 13) * 60_000 });
    }
    calls.push({ agent: id, tool: a % 4 === 0 ? 'wallet.propose_spend' : 'github.merge_pull_request', at: NOW });
  }
  // No logging: the bench measures the product, not stderr.
  const pg = await openPlangate({ rules: dir, env: {}, storeInstance: store, auditSink: createMemoryAuditSink(), watch: true, log: () => undefined });
  return { pg, calls };
}

/**
 * Runs the reload measurements in a temporary directory and returns the figures.
 *
 * @example
 * const r = await runReloadBench({ log: console.error });
 * r.reloadLatencyMs.p99 // e.g. 140
 */
export async function runReloadBench(options: ReloadBenchOptions = {}): Promise<ReloadBenchResults> {
  const log = options.log ?? (() => undefined);
  const edits = options.edits ?? 50;
  const perPhase = options.decisionsPerPhase ?? 8000;
  const rounds = options.rounds ?? 10;
  const root = mkdtempSync(join(os.tmpdir(), 'plangate-bench-reload-'));
  const dir = join(root, 'rules');
  mkdirSync(dir);
  const file = join(dir, 'rules.yaml');
  writeFileSync(file, rulesText(1));
  const { pg, calls } = await world(dir);
  try {
    // ------------------------------------------------ 1. reload latency
    log(`  reload latency: ${edits} edits through the watcher …`);
    const atomic: number[] = [];
    const inPlace: number[] = [];
    let version = 1;
    for (let e = 0; e < edits; e++) {
      version += 1;
      const text = rulesText(version);
      const t0 = performance.now();
      if (e % 2 === 0) {
        const tmp = join(dir, `.rules.yaml.${e}.tmp`);
        writeFileSync(tmp, text);
        renameSync(tmp, file);
      } else {
        writeFileSync(file, text);
      }
      const deadline = t0 + 10_000;
      while (windowInForce(pg) !== 1 + (version % 10_000)) {
        if (performance.now() > deadline) throw new Error(`edit ${e} was not loaded within 10 s`);
        await nextTurn();
      }
      const d = await pg.gate.decide(calls[e % calls.length] as Call);
      if (d.settings.mode.scope === 'workspace' && d.settings.windowMin.value !== 1 + (version % 10_000)) throw new Error('decided on old rules');
      (e % 2 === 0 ? atomic : inPlace).push(performance.now() - t0);
      // Let the watcher's follow-up look finish, so edits do not overlap.
      await new Promise((r) => setTimeout(r, 150));
    }
    const all = [...atomic, ...inPlace];

    // ------------------------- 2. decisions with and without reloads
    log(`  decide() with no reloads, continuous reloads and back-to-back reloads, ${rounds} rounds × ${perPhase} …`);
    type Kind = 'quiet' | 'reloading' | 'backToBack';
    const samples = (): Samples => ({ ns: new Float64Array(rounds * perPhase), wallNs: 0, gc: emptyTally(), cpuNs: 0 });
    const into: Record<Kind, Samples> = { quiet: samples(), reloading: samples(), backToBack: samples() };
    /** Event-loop delay per phase, ms: p50, p99 and max of each phase of a kind. */
    const loops: Record<Kind, Array<{ p50: number; p99: number; max: number }>> = { quiet: [], reloading: [], backToBack: [] };
    const reloads = { reloading: 0, backToBack: 0 };
    const reloadingMs = { reloading: 0, backToBack: 0 };
    let currentGc: Samples | undefined;
    const gcObserver = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if (!currentGc) continue;
        currentGc.gc.count += 1;
        currentGc.gc.ms += entry.duration;
        currentGc.gc.maxMs = Math.max(currentGc.gc.maxMs, entry.duration);
      }
    });
    gcObserver.observe({ entryTypes: ['gc'] });

    const write = (): number => {
      version += 1;
      const tmp = join(dir, `.rules.yaml.${version}.tmp`);
      writeFileSync(tmp, rulesText(version));
      renameSync(tmp, file);
      return 1 + (version % 10_000);
    };
    const phase = async (kind: Kind, offset: number): Promise<void> => {
      let on = kind !== 'quiet';
      const reloader = (async () => {
        while (on && kind === 'reloading') {
          const expected = write();
          while (on && windowInForce(pg) !== expected) await new Promise((r) => setTimeout(r, 2));
          if (windowInForce(pg) === expected) reloads.reloading += 1;
        }
        while (on && kind === 'backToBack') {
          write();
          if ((await pg.reload()).outcome === 'loaded') reloads.backToBack += 1;
        }
      })();
      const monitor = monitorEventLoopDelay({ resolution: 1 });
      const samplesOf = into[kind];
      monitor.enable();
      currentGc = samplesOf;
      const cpu0 = process.cpuUsage();
      const start = process.hrtime.bigint();
      for (let i = 0; i < perPhase; i++) {
        const call = calls[(offset + i) % calls.length] as Call;
        const t0 = process.hrtime.bigint();
        await pg.gate.decide(call);
        samplesOf.ns[offset + i] = Number(process.hrtime.bigint() - t0);
        await nextTurn(); // a server handles the next request in a later turn of the event loop
      }
      const wall = Number(process.hrtime.bigint() - start);
      samplesOf.wallNs += wall;
      const cpu = process.cpuUsage(cpu0);
      samplesOf.cpuNs += (cpu.user + cpu.system) * 1000;
      currentGc = undefined;
      monitor.disable();
      loops[kind].push({ p50: monitor.percentile(50) / 1e6, p99: monitor.percentile(99) / 1e6, max: monitor.max / 1e6 });
      on = false;
      await reloader;
      if (kind !== 'quiet') reloadingMs[kind] += wall / 1e6;
      // Let the watcher's follow-up look settle before the next phase.
      await new Promise((r) => setTimeout(r, 200));
    };
    // Warm-up, untimed.
    for (let i = 0; i < 2000; i++) await pg.gate.decide(calls[i % calls.length] as Call);
    (globalThis as { gc?: () => void }).gc?.();
    const order: Kind[] = ['quiet', 'reloading', 'backToBack'];
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < order.length; k++) await phase(order[(r + k) % order.length] as Kind, r * perPhase);
    }
    gcObserver.disconnect();
    const q = summarize(into.quiet);
    const b = summarize(into.reloading);
    const bb = summarize(into.backToBack);
    // Per kind: the median phase's p50, the worst phase's p99 and max.
    const ms = (phases: Array<{ p50: number; p99: number; max: number }>) => {
      const p50s = phases.map((x) => x.p50).sort((a, b) => a - b);
      return { p50: round(p50s[Math.floor(p50s.length / 2)] ?? NaN, 2), p99: round(Math.max(...phases.map((x) => x.p99)), 2), max: round(Math.max(...phases.map((x) => x.max)), 2) };
    };
    const ratioOf = (x: Summary) => ({ p50: round(x.p50 / q.p50, 2), p99: round(x.p99 / q.p99, 2), mean: round(x.mean / q.mean, 2) });
    const ratio = ratioOf(b);
    const snap = pg.runtime.holder.snapshot();
    const latency = { ...percentiles(all), atomicSave: percentiles(atomic), inPlaceWrite: percentiles(inPlace), debounceMs: 100, settleMs: 25 };
    const results: ReloadBenchResults = {
      reloadLatencyMs: latency,
      decisionsDuringReloads: {
        quiet: q,
        reloading: b,
        backToBack: bb,
        ratio,
        ratioBackToBack: ratioOf(bb),
        reloads: {
          continuous: reloads.reloading,
          continuousPerSecond: round(reloads.reloading / (reloadingMs.reloading / 1000), 1),
          backToBack: reloads.backToBack,
          backToBackPerSecond: round(reloads.backToBack / (reloadingMs.backToBack / 1000), 1),
        },
        eventLoopDelayMs: { quiet: ms(loops.quiet), reloading: ms(loops.reloading), backToBack: ms(loops.backToBack) },
        engineMemoryBytes: snap.kind === 'enforcing' ? snap.engine.memoryBytes : 0,
      },
      targets: {
        reloadLatencyP99: { target: 'write of a rule file → new rule deciding, p99 ≤ 250 ms', value: latency.p99, met: latency.p99 <= 250 },
        decideDuringReloads: { target: 'decide() p99 during continuous reloads ≤ 1.5 × p99 without', value: ratio, met: ratio.p99 <= 1.5 },
      },
    };
    const outDir = new URL('./results/', import.meta.url);
    mkdirSync(outDir, { recursive: true });
    writeFileSync(new URL('reload.json', outDir), `${JSON.stringify({ date: new Date().toISOString(), loadAvg: os.loadavg(), ...results }, null, 2)}\n`);
    return results;
  } finally {
    await pg.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** The figures as a table, for the bench's stdout (bench/results/reload.json has them all). */
export function formatReloadBench(r: ReloadBenchResults): string {
  const l = r.reloadLatencyMs;
  const d = r.decisionsDuringReloads;
  const pad = (s: string | number, n: number): string => String(s).padStart(n);
  const row = (name: string, s: Summary): string =>
    `${name.padEnd(30)}${pad(s.n, 7)}${pad(s.p50, 9)}${pad(s.p90, 9)}${pad(s.p99, 9)}${pad(s.max, 10)}${pad(s.mean, 9)}${pad(s.gc.count, 6)}${pad(s.gc.ms, 9)}`;
  return [
    '',
    'hot reload',
    `reload latency (ms), write → new rule deciding, ${l.n} edits (debounce ${l.debounceMs} ms, settle ${l.settleMs} ms):`,
    `  all           p50 ${l.p50}  p90 ${l.p90}  p99 ${l.p99}  max ${l.max}  mean ${l.mean}`,
    `  atomic save   p50 ${l.atomicSave.p50}  p99 ${l.atomicSave.p99}   in-place write  p50 ${l.inPlaceWrite.p50}  p99 ${l.inPlaceWrite.p99}`,
    `${'decide() µs'.padEnd(30)}${pad('n', 7)}${pad('p50', 9)}${pad('p90', 9)}${pad('p99', 9)}${pad('max', 10)}${pad('mean', 9)}${pad('GCs', 6)}${pad('GC ms', 9)}`,
    row('  no reloads', d.quiet),
    row('  continuous reloads (edits)', d.reloading),
    row('  reload() back to back', d.backToBack),
    `  ratio continuous/none:      p50 ${d.ratio.p50}×  p99 ${d.ratio.p99}×  mean ${d.ratio.mean}×   (${d.reloads.continuous} reloads, ${d.reloads.continuousPerSecond}/s)`,
    `  ratio back-to-back/none:    p50 ${d.ratioBackToBack.p50}×  p99 ${d.ratioBackToBack.p99}×  mean ${d.ratioBackToBack.mean}×   (${d.reloads.backToBack} reloads, ${d.reloads.backToBackPerSecond}/s)`,
    `  event-loop delay ms (p99/max): none ${d.eventLoopDelayMs.quiet.p99}/${d.eventLoopDelayMs.quiet.max}; continuous ${d.eventLoopDelayMs.reloading.p99}/${d.eventLoopDelayMs.reloading.max}; back to back ${d.eventLoopDelayMs.backToBack.p99}/${d.eventLoopDelayMs.backToBack.max}`,
    `  engine memory at the end: ${d.engineMemoryBytes} bytes`,
    'targets:',
    ...Object.entries(r.targets).map(([name, t]) => `  ${t.met ? 'MET    ' : 'NOT MET'}  ${name}: ${t.target} → ${JSON.stringify(t.value)}`),
    '',
  ].join('\n');
}

// Run alone: node --expose-gc --import tsx bench/reload.ts
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await runReloadBench({ log: (s) => void process.stderr.write(`${s}\n`) });
  process.stdout.write(formatReloadBench(r));
}
