/**
 * npm run bench — decision latency, engine overhead, fact-gathering scaling
 * and memory, in one process so the ratios are comparable.
 *
 *   1. decide() on SQLite (1M messages)              p50/p99/mean, decisions/s
 *   2. decide() on the memory store vs bare evaluate  p50/p99, ratio
 *   3. inputFor() on SQLite at 100k vs 1M messages    p50/p99, ratio
 *      (the 900k added are unrelated to the sampled agents)
 *   2b. the floor (a one-rule policy through the same SDK) and bare
 *      evaluation of the hot and explain entrypoints; opa bench (OPA's Go
 *      evaluator) on the same bundle and inputs (bench/opa.ts)
 *   4. engine.memoryBytes before/after, process RSS; then 1M decisions on
 *      one gate, WASM heap and RSS sampled (bench/memory.ts)
 *   6. hot reload (bench/reload.ts): write → new rule deciding p50/p99;
 *      decide() during back-to-back reloads vs none (bench/results/reload.json)
 *   7. with PLANGATE_BENCH_POSTGRES (bench/postgres.ts): decide() on PostgreSQL
 *      vs SQLite at 1M messages; HTTP with one and two replicas (bench/results/postgres.json)
 *
 * Prints a table and writes bench/results/latest.json.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { createMemoryAuditSink } from '../src/audit/memory.js';
import type { Call, Decision, PolicyInput } from '../src/core/types.js';
import { rawEvaluator } from '../src/engine/abi.js';
import { Engine } from '../src/engine/policy.js';
import { createMemoryStore } from '../src/facts/memory/store.js';
import { SQL } from '../src/facts/sqlite/schema.js';
import { openSqliteStore } from '../src/facts/sqlite/store.js';
import { createGate } from '../src/gate/gate.js';
import { formatHttpBench, runHttpBench } from './http.js';
import { formatMemoryBench, runMemoryBench } from './memory.js';
import { loadFloor, runOpaBench } from './opa.js';
import { benchPostgresUrl, formatPostgresBench, runPostgresBench } from './postgres.js';
import { formatMcpBench, runMcpBench } from './mcp.js';
import { formatReloadBench, runReloadBench } from './reload.js';
import { fixedWork, interleave, measure, round, subset, summarize, type Summary } from './stats.js';
import {
  AGENTS,
  benchRules,
  buildOrg,
  bulkConnection,
  insertMessages,
  insertOrg,
  copyWorld,
  makeCalls,
  messageStream,
  NOW,
  sampleOf,
  unrelatedTo,
} from './world.js';

const PHASE_A = 100_000;
const PHASE_B = 900_000;
const DECIDE_CALLS = 25_000;
const DECIDE_WARMUP = 3_000;
const SAMPLE_CALLS = 2_000;
const GATHER_SAMPLES = 10_000;
const GATHER_WARMUP = 2_000;
const ROUNDS = 20;

const TARGET_P99_US = 1000;
const TARGET_ENGINE_RATIO = 2;
/** decide() on the memory store against the floor (p50), and its p99. */
const TARGET_DECIDE_FLOOR_RATIO = 3;
const TARGET_DECIDE_MEMORY_P99_US = 60;
const TARGET_DECIDE_SQLITE_P99_US = 150;
/** Bare evaluation of the hot entrypoint against the floor (p50). */
const TARGET_HOT_FLOOR_RATIO = 2.5;
const TARGET_OPA_BENCH_MEDIAN_US = 100;
/** SQLite page cache for the 1M-message store (the file is 144 MiB). */
const SQLITE_CACHE_MIB = 256;
const HOT = 'plangate/decide';
const EXPLAIN = 'plangate/decision';

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const mb = (bytes: number): number => round(bytes / 2 ** 20, 1);
const log = (s: string): void => void process.stderr.write(`${s}\n`);

function memorySnapshot(): { rssMB: number; heapUsedMB: number; externalMB: number } {
  gc();
  const m = process.memoryUsage();
  return { rssMB: mb(m.rss), heapUsedMB: mb(m.heapUsed), externalMB: mb(m.external) };
}

async function timed<T>(what: string, fn: () => T | Promise<T>): Promise<{ value: T; seconds: number }> {
  const t0 = performance.now();
  const value = await fn();
  const seconds = round((performance.now() - t0) / 1000, 2);
  log(`  ${what}: ${seconds} s`);
  return { value, seconds };
}

/** 0 ungated, 1 allowed by a plan, 2 refused none, 3 refused stale. */
function outcome(d: Decision): number {
  if (!d.gated) return 0;
  if (d.allowed) return 1;
  return d.reason === 'stale' ? 3 : 2;
}

function outcomeMix(codes: Uint8Array): Record<string, number> {
  const n = [0, 0, 0, 0];
  for (const c of codes) n[c] = (n[c] as number) + 1;
  const pct = (x: number): number => round((100 * x) / codes.length, 1);
  return { ungatedPct: pct(n[0]!), allowedByPlanPct: pct(n[1]!), refusedNonePct: pct(n[2]!), refusedStalePct: pct(n[3]!) };
}

/** Parts 1–4. Everything it builds (the 1M-message memory store above all) is garbage once it returns. */
async function runCoreBench(): Promise<void> {
  const started = new Date();
  const cpus = os.cpus();
  const machine = {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    totalMemGB: round(os.totalmem() / 2 ** 30, 1),
    loadAvgAtStart: os.loadavg().map((x) => round(x, 2)),
    loadAvgAtEnd: [] as number[],
  };
  log(`plangate bench — ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`);
  const memory: Record<string, { rssMB: number; heapUsedMB: number; externalMB: number }> = { start: memorySnapshot() };

  // ---------------------------------------------------------------- world
  const org = buildOrg();
  const rules = benchRules(org);
  const sample = sampleOf(org);
  const dir = mkdtempSync(join(os.tmpdir(), 'plangate-bench-'));
  const dbPath = join(dir, 'store.db');
  const db100kPath = join(dir, 'store-100k.db');
  const audit = createMemoryAuditSink();
  const clock = (): number => NOW;

  // The store creates its schema; then a raw connection bulk-loads phase A.
  await openSqliteStore(dbPath).close();
  const streamA = messageStream(org, 1);
  const seedA = await timed(`seed SQLite: org + ${PHASE_A} messages`, () => {
    const db = bulkConnection(dbPath);
    insertOrg(db, org);
    insertMessages(db, PHASE_A, streamA.next);
    db.close(); // the last connection checkpoints the WAL into the file
  });
  // Keep the 100k world, so that 100k and 1M can be measured side by side.
  copyFileSync(dbPath, db100kPath);

  const engine = await Engine.load({ data: rules, rulesRevision: 'bench' });
  const engineBytes: Record<string, number> = { afterLoad: engine.memoryBytes };

  // Phase B: 900k messages unrelated to the sample (its agents, the managers
  // its calls are delegated by, their threads and crews' threads).
  const sampleCalls = makeCalls(org, sample.agents, SAMPLE_CALLS, 7, streamA.runPlanOf);
  const seats = new Set([...sample.agents, ...sampleCalls.flatMap((c) => c.delegatedBy ?? [])]);
  const streamB = messageStream(org, 2, unrelatedTo(org, seats));
  const seedB = await timed(`seed SQLite: +${PHASE_B} unrelated messages`, () => {
    const db = bulkConnection(dbPath);
    insertMessages(db, PHASE_B, streamB.next);
    db.close();
  });
  const dbBytes = statSync(dbPath).size;
  const db100kBytes = statSync(db100kPath).size;

  // ------------------------------------------ 3. fact gathering, 100k vs 1M
  log('  inputFor() on the sample, 100k vs 1M, interleaved …');
  const s100k = openSqliteStore(db100kPath);
  const s1m = openSqliteStore(dbPath);
  const g100k = createGate({ engine, store: s100k, audit, clock });
  const g1m = createGate({ engine, store: s1m, audit, clock });
  const gather = await interleave(GATHER_SAMPLES, GATHER_WARMUP, ROUNDS, {
    at100k: (i) => g100k.inputFor(sampleCalls[i % SAMPLE_CALLS] as Call),
    at1M: (i) => g1m.inputFor(sampleCalls[i % SAMPLE_CALLS] as Call),
  });
  let sameFacts = true;
  let sampleFacts = 0;
  for (const c of sampleCalls) {
    const a = await g100k.inputFor(c);
    const b = await g1m.inputFor(c);
    sampleFacts += a.messages.length;
    if (!isDeepStrictEqual(a, b)) sameFacts = false;
  }
  await s100k.close();
  await s1m.close();
  rmSync(db100kPath, { force: true });
  const gather100k = summarize(gather.at100k);
  const gather1m = summarize(gather.at1M);
  memory.afterSqliteSeed = memorySnapshot();

  // ------------------------------------------------ 1. decide() on SQLite
  const runPlanOf = new Map([...streamA.runPlanOf, ...streamB.runPlanOf]);
  const agentIds = org.agents.map((a) => a.id);
  const calls = makeCalls(org, agentIds, DECIDE_CALLS, 11, runPlanOf);
  const sqlite = openSqliteStore(dbPath, { cacheSizeMiB: SQLITE_CACHE_MIB });
  const sqliteGate = createGate({ engine, store: sqlite, audit, clock });
  const sqliteOutcomes = new Uint8Array(DECIDE_CALLS);
  log('  decide() and inputFor() on SQLite, interleaved …');
  const exp1 = await interleave(DECIDE_CALLS, DECIDE_WARMUP, ROUNDS, {
    decideSqlite: async (i) => {
      sqliteOutcomes[i] = outcome(await sqliteGate.decide(calls[i] as Call));
    },
    inputForSqlite: (i) => sqliteGate.inputFor(calls[i] as Call),
  });
  const decideSqlite = summarize(exp1.decideSqlite);
  const inputForSqlite = summarize(exp1.inputForSqlite);
  engineBytes.afterSqliteDecide = engine.memoryBytes;
  audit.clear();
  const sqliteInputs: PolicyInput[] = [];
  for (const c of calls) sqliteInputs.push(await sqliteGate.inputFor(c));
  const factsPerInput = round(sqliteInputs.reduce((s, x) => s + x.messages.length, 0) / sqliteInputs.length, 2);
  await sqlite.close();
  // How the candidate lookups are planned on the 1M-message file (the product runs no ANALYZE).
  const queryPlans = (() => {
    const db = bulkConnection(dbPath);
    const plan = (sql: string, args: unknown[]): string =>
      db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args).map((r) => (r as { detail: string }).detail).join(' | ');
    const out = {
      newestPlan: plan(SQL.newestPlan, ['0xA00001', 'org', NOW]),
      newestRunPlan: plan(SQL.newestRunPlan, ['0xA00001', 'org', 'run-1', NOW]),
    };
    db.close();
    return out;
  })();

  // ------------------------------- 2. memory store and the bare evaluation
  const mem = createMemoryStore();
  const loadMem = await timed(`load memory store through its API: org + ${PHASE_A + PHASE_B} messages read back from SQLite`, () => copyWorld(dbPath, mem));
  if (loadMem.value !== PHASE_A + PHASE_B) throw new Error(`copied ${loadMem.value} messages, expected ${PHASE_A + PHASE_B}`);
  memory.afterMemoryStoreLoad = memorySnapshot();
  const memGate = createGate({ engine, store: mem, audit, clock });
  const memInputs: PolicyInput[] = [];
  for (const c of calls) memInputs.push(await memGate.inputFor(c));
  const memOutcomes = new Uint8Array(DECIDE_CALLS);
  const floorPolicy = await loadFloor();
  // The floor is evaluated through the same input path as plangate's engine (src/engine/abi.ts).
  const floor = floorPolicy ? { run: rawEvaluator(floorPolicy) } : null;
  if (!floor) log('  no opa binary: the floor is not measured');
  // A fixed piece of work as long as decide() on the memory store takes at p50: its spread is the machine's own.
  const decidePrepass = summarize(await measure(2_000, 500, async (i) => memGate.decide(calls[i % DECIDE_CALLS] as Call)));
  const machineWork = fixedWork(decidePrepass.p50);
  log('  decide() on the memory store vs bare evaluate (hot, explain) vs the floor, interleaved …');
  const group2: Record<string, (i: number) => unknown> = {
    fixedWork: machineWork,
    decideMemory: async (i) => {
      memOutcomes[i] = outcome(await memGate.decide(calls[i] as Call));
    },
    bareHot: (i) => engine.evaluate(HOT, memInputs[i] as PolicyInput),
    bare: (i) => engine.evaluate(EXPLAIN, memInputs[i] as PolicyInput),
    inputForMemory: (i) => memGate.inputFor(calls[i] as Call),
    // The same SDK and the same inputs, a one-rule policy: the floor of this design.
    ...(floor ? { floor: (i: number) => floor.run(memInputs[i] as PolicyInput, 'floor/allow') } : {}),
  };
  const exp2 = await interleave(DECIDE_CALLS, DECIDE_WARMUP, ROUNDS, group2);
  audit.clear();
  engineBytes.afterAll = engine.memoryBytes;
  const decideMemory = summarize(exp2.decideMemory!);
  const bare = summarize(exp2.bare!);
  const bareHot = summarize(exp2.bareHot!);
  const floorSummary = exp2.floor ? summarize(exp2.floor) : null;
  const fixedWorkSummary = summarize(exp2.fixedWork!);
  const inputForMemory = summarize(exp2.inputForMemory!);
  const exactTool = (i: number): boolean => (calls[i] as Call).tool in rules.tools.exact;
  const bareExact = summarize(subset(exp2.bareHot!, exactTool));
  const barePattern = summarize(subset(exp2.bareHot!, (i) => !exactTool(i)));

  // OPA's Go evaluator on the same bundle, with an allowed and a refused input of this world.
  const allowedAt = Array.from(memOutcomes).indexOf(1);
  const refusedAt = Array.from(memOutcomes).indexOf(3);
  log('  opa bench on the same bundle and inputs …');
  const opaBench = await runOpaBench(rules, {
    allowed: memInputs[Math.max(0, allowedAt)] as PolicyInput,
    refused: memInputs[Math.max(0, refusedAt)] as PolicyInput,
  }, ['data.plangate.decide', 'data.plangate.decision']);

  // Cross-check: the two stores hold the same world, so they should decide alike.
  const disagreements: Array<{ call: Call; sqlite: number; memory: number; sqliteFacts: number; memoryFacts: number }> = [];
  let factMismatches = 0;
  for (let i = 0; i < DECIDE_CALLS; i++) {
    const a = sqliteInputs[i] as PolicyInput;
    const b = memInputs[i] as PolicyInput;
    if (a.messages.length !== b.messages.length) factMismatches++;
    if (sqliteOutcomes[i] !== memOutcomes[i]) {
      disagreements.push({ call: calls[i] as Call, sqlite: sqliteOutcomes[i]!, memory: memOutcomes[i]!, sqliteFacts: a.messages.length, memoryFacts: b.messages.length });
    }
  }
  await mem.close();
  memory.end = memorySnapshot();
  rmSync(dir, { recursive: true, force: true });

  // ----------------------------------------------------------- the report
  machine.loadAvgAtEnd = os.loadavg().map((x) => round(x, 2));
  // The timed loops' CPU share says whether other processes took the CPU away while they ran.
  const cpuShares = [decideSqlite, inputForSqlite, decideMemory, bare, bareHot, inputForMemory, gather100k, gather1m].map((x) => x.cpuPct);
  const minCpuPct = Math.min(...cpuShares);
  const busy = minCpuPct < 90;
  // decide(SQLite) and decide(memory) each evaluate once per call (warm-up included), bare once more.
  const evaluations = (DECIDE_WARMUP + DECIDE_CALLS) * 4;
  const ratio = (a: number, b: number): number => round(a / b, 2);
  const engineRatio = { p50: ratio(decideMemory.p50, bare.p50), p99: ratio(decideMemory.p99, bare.p99), mean: ratio(decideMemory.mean, bare.mean) };
  const gatherRatio = { p50: ratio(gather1m.p50, gather100k.p50), p99: ratio(gather1m.p99, gather100k.p99), mean: ratio(gather1m.mean, gather100k.mean) };
  const floorRatio = floorSummary ? { decideMemoryP50: ratio(decideMemory.p50, floorSummary.p50), bareHotP50: ratio(bareHot.p50, floorSummary.p50), bareExplainP50: ratio(bare.p50, floorSummary.p50) } : null;
  const hotOpa = opaBench?.results.filter((r) => r.query === 'data.plangate.decide') ?? [];
  const targets = {
    decideMemoryFloor: { target: `decide() memory store p50 ≤ ${TARGET_DECIDE_FLOOR_RATIO}× the floor's p50`, value: floorRatio ? { ratio: floorRatio.decideMemoryP50, decide: decideMemory.p50, floor: floorSummary?.p50 } : null, met: floorRatio ? floorRatio.decideMemoryP50 <= TARGET_DECIDE_FLOOR_RATIO : null },
    decideMemoryP99: { target: `decide() memory store p99 ≤ ${TARGET_DECIDE_MEMORY_P99_US} µs`, value: decideMemory.p99, met: decideMemory.p99 <= TARGET_DECIDE_MEMORY_P99_US },
    decideSqliteP99Fast: { target: `decide() on SQLite, 1M messages, 10k agents, p99 ≤ ${TARGET_DECIDE_SQLITE_P99_US} µs`, value: decideSqlite.p99, met: decideSqlite.p99 <= TARGET_DECIDE_SQLITE_P99_US },
    bareHotFloor: { target: `bare evaluate of the hot entrypoint p50 ≤ ${TARGET_HOT_FLOOR_RATIO}× the floor's p50`, value: floorRatio ? { ratio: floorRatio.bareHotP50, hot: bareHot.p50, floor: floorSummary?.p50 } : null, met: floorRatio ? floorRatio.bareHotP50 <= TARGET_HOT_FLOOR_RATIO : null },
    opaBenchMedian: { target: `opa bench median of data.plangate.decide ≤ ${TARGET_OPA_BENCH_MEDIAN_US} µs (each input)`, value: hotOpa.map((r) => ({ input: r.input, medianUs: r.medianUs })), met: opaBench ? hotOpa.every((r) => r.medianUs <= TARGET_OPA_BENCH_MEDIAN_US) : null },
    decideSqliteP99: { target: `decide() on SQLite, p99 ≤ ${TARGET_P99_US} µs`, value: decideSqlite.p99, met: decideSqlite.p99 <= TARGET_P99_US },
    engineOverhead: { target: `decide(memory)/bare evaluate ≤ ${TARGET_ENGINE_RATIO}× (p50 and p99)`, value: engineRatio, met: engineRatio.p50 <= TARGET_ENGINE_RATIO && engineRatio.p99 <= TARGET_ENGINE_RATIO },
    gatherIndependent: { target: 'inputFor() 1M/100k ≈ 1 (p50 within 0.8–1.25), same facts', value: { ...gatherRatio, sameFacts }, met: gatherRatio.p50 >= 0.8 && gatherRatio.p50 <= 1.25 && sameFacts },
    wasmHeapFlat: { target: 'engine.memoryBytes flat across evaluations', value: engineBytes, met: engineBytes.afterAll === engineBytes.afterSqliteDecide && engineBytes.afterAll === engineBytes.afterLoad },
  };

  const results = {
    date: started.toISOString(),
    command: 'npm run bench',
    machine: { ...machine, lowestLoopCpuPct: minCpuPct, busy },
    world: {
      agents: AGENTS,
      crews: org.crews.length,
      crewDepth: Math.max(...org.crews.map((c) => c.depth)),
      messages: PHASE_A + PHASE_B,
      phaseA: { messages: PHASE_A, mix: streamA.mix },
      phaseB: { messages: PHASE_B, mix: streamB.mix, note: 'never by a sample seat, never in a sample seat\'s own or crew-lineage thread; org allowed' },
      sample: { agents: sample.agents.length, seatsIncludingDelegators: seats.size, crews: sample.crews, calls: SAMPLE_CALLS, factsPerInput: round(sampleFacts / SAMPLE_CALLS, 2) },
      sqliteFileMB: { at100k: mb(db100kBytes), at1M: mb(dbBytes) },
      seedSeconds: { sqlitePhaseA: seedA.seconds, sqlitePhaseB: seedB.seconds, memoryStoreViaApi: loadMem.seconds },
      rules: {
        crewRules: Object.keys(rules.planRequired.crews).length,
        agentRules: Object.keys(rules.planRequired.agents).length,
        exactTools: Object.keys(rules.tools.exact).length,
        patterns: rules.tools.patterns.length,
      },
    },
    calls: { n: DECIDE_CALLS, warmup: DECIDE_WARMUP, rounds: ROUNDS, factsPerInput, outcomes: outcomeMix(sqliteOutcomes) },
    latencyUs: {
      decideSqlite,
      decideMemory,
      bareEvaluate: bare,
      bareEvaluateHot: bareHot,
      floor: floorSummary,
      fixedWork: fixedWorkSummary,
      bareEvaluateExactNameTools: bareExact,
      bareEvaluatePatternOrDefaultTools: barePattern,
      inputForSqlite,
      inputForMemory,
      inputForSqliteSampleAt100k: gather100k,
      inputForSqliteSampleAt1M: gather1m,
    },
    ratios: {
      overFloor: floorRatio,
      decideMemoryOverBare: engineRatio,
      decideSqliteOverBare: { p50: ratio(decideSqlite.p50, bare.p50), p99: ratio(decideSqlite.p99, bare.p99) },
      gather1MOver100k: gatherRatio,
      sameFactsAt100kAnd1M: sameFacts,
      bareEvaluatePatternOverExact: { p50: ratio(barePattern.p50, bareExact.p50), mean: ratio(barePattern.mean, bareExact.mean) },
    },
    memory: { engineBytes, evaluations, process: memory },
    storeCrossCheck: {
      calls: DECIDE_CALLS,
      outcomeDisagreements: disagreements.length,
      inputsWithDifferentFactCount: factMismatches,
      examples: disagreements.slice(0, 3),
    },
    queryPlans,
    opaBench,
    targets,
  };

  const outDir = new URL('./results/', import.meta.url);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(new URL('latest.json', outDir), `${JSON.stringify(results, null, 2)}\n`);

  // The table, on stdout.
  const rows: Array<[string, Summary]> = [
    ['1 decide()    SQLite', decideSqlite],
    ['  inputFor()  SQLite', inputForSqlite],
    ['2 decide()    memory', decideMemory],
    ['  bare evaluate, hot (decide)', bareHot],
    ['    exact-name tools', bareExact],
    ['    pattern/default tools', barePattern],
    ['  bare evaluate, explain', bare],
    ...(floorSummary ? [['  the floor (one-rule policy)', floorSummary] as [string, Summary]] : []),
    ['  fixed work, as long as decide(memory)', fixedWorkSummary],
    ['  inputFor()  memory', inputForMemory],
    ['3 inputFor()  sample @100k', gather100k],
    ['  inputFor()  sample @1M', gather1m],
  ];
  const pad = (s: string | number, n: number): string => String(s).padStart(n);
  const out: string[] = [];
  out.push('');
  out.push(`plangate bench  ${results.date}`);
  out.push(`machine: ${machine.cpu} · ${machine.cores} cores · Node ${machine.node} · ${machine.platform} · ${machine.totalMemGB} GiB RAM`);
  out.push(`load:    1-min load average ${machine.loadAvgAtStart[0]} at start, ${machine.loadAvgAtEnd[0]} at end; lowest CPU share of a timed loop ${minCpuPct}%${busy ? '  ← BUSY: other processes took the CPU during timing; compare ratios, not absolutes' : ''}`);
  out.push(`world:   ${AGENTS} agents, ${org.crews.length} crews ${results.world.crewDepth} deep, ${PHASE_A + PHASE_B} messages (SQLite ${results.world.sqliteFileMB.at1M} MiB)`);
  out.push(`calls:   ${DECIDE_CALLS} random agents × gated tools, ${DECIDE_WARMUP} warm-up; ${factsPerInput} facts/input; outcomes ${JSON.stringify(results.calls.outcomes)}`);
  out.push(`sample:  ${sample.agents.length} agents (${seats.size} seats with delegators), ${SAMPLE_CALLS} calls, ${GATHER_SAMPLES} timed per world, interleaved in ${ROUNDS} rounds`);
  out.push('');
  out.push(`${'latency (µs)'.padEnd(30)}${pad('n', 7)}${pad('p50', 9)}${pad('p90', 9)}${pad('p99', 9)}${pad('max', 10)}${pad('mean', 9)}${pad('ops/s', 9)}${pad('GCs', 6)}${pad('GC ms', 9)}${pad('cpu%', 6)}`);
  for (const [name, s] of rows) {
    out.push(`${name.padEnd(30)}${pad(s.n, 7)}${pad(s.p50, 9)}${pad(s.p90, 9)}${pad(s.p99, 9)}${pad(s.max, 10)}${pad(s.mean, 9)}${pad(s.perSec, 9)}${pad(s.gc.count, 6)}${pad(s.gc.ms, 9)}${pad(Number.isNaN(s.cpuPct) ? '' : s.cpuPct, 6)}`);
  }
  out.push('');
  const fw = fixedWorkSummary;
  out.push(`the machine's own spread: fixed work of ${fw.p50} µs at p50 took ${fw.p99} µs at p99 (${round(fw.p99 / fw.p50, 2)}×), in the same loops`);
  if (floorRatio) out.push(`ratio over the floor (p50):       decide(memory) ${floorRatio.decideMemoryP50}×  bare hot ${floorRatio.bareHotP50}×  bare explain ${floorRatio.bareExplainP50}×`);
  if (opaBench) for (const r of opaBench.results) out.push(`opa bench ${opaBench.version} ${r.query.padEnd(22)} ${r.input.padEnd(8)} median ${r.medianUs} µs  p90 ${r.p90Us} µs  p99 ${r.p99Us} µs  (${r.n} runs, ${r.allocsPerOp} allocs/op)`);
  else out.push('opa bench: SKIPPED, no opa binary (.tools/bin/opa or opa on PATH)');
  out.push(`ratio decide(memory)/bare:        p50 ${engineRatio.p50}×  p99 ${engineRatio.p99}×  mean ${engineRatio.mean}×`);
  out.push(`ratio inputFor() 1M/100k sample:  p50 ${gatherRatio.p50}×  p99 ${gatherRatio.p99}×  mean ${gatherRatio.mean}×  (identical facts: ${sameFacts})`);
  out.push(`ratio bare pattern/exact tools:   p50 ${results.ratios.bareEvaluatePatternOverExact.p50}×  mean ${results.ratios.bareEvaluatePatternOverExact.mean}×`);
  out.push(`engine.memoryBytes: ${Object.entries(engineBytes).map(([k, v]) => `${k} ${v}`).join(', ')} (${evaluations} evaluations)`);
  out.push(`process RSS MiB:    ${Object.entries(memory).map(([k, v]) => `${k} ${v.rssMB}`).join(', ')}`);
  out.push(`store cross-check:  ${disagreements.length} of ${DECIDE_CALLS} decisions differ between SQLite and memory; ${factMismatches} inputs differ in fact count`);
  out.push(`seeding:            SQLite ${seedA.seconds} s (100k) + ${seedB.seconds} s (900k); memory store via its API ${loadMem.seconds} s`);
  out.push('');
  out.push('targets:');
  for (const [name, t] of Object.entries(targets)) out.push(`  ${t.met === null ? 'SKIPPED' : t.met ? 'MET    ' : 'NOT MET'}  ${name}: ${t.target} → ${JSON.stringify(t.value)}`);
  out.push('');
  out.push('written: bench/results/latest.json');
  process.stdout.write(`${out.join('\n')}\n`);
}

async function main(): Promise<void> {
  await runCoreBench();
  // BENCH_ONLY_CORE=1: parts 1–4 only (decide, the floor, opa bench), for a quick comparison.
  if (process.env.BENCH_ONLY_CORE === '1') return;
  gc(); // so the next parts do not pay for collecting the core bench's world

  // 4b. Memory over 1M decisions on one gate (bench/memory.ts).
  const decisions = process.env.BENCH_MEMORY_DECISIONS ? Number(process.env.BENCH_MEMORY_DECISIONS) : undefined;
  const memoryBench = await runMemoryBench({ log, ...(decisions ? { decisions } : {}) });
  writeFileSync(new URL('./results/memory.json', import.meta.url), `${JSON.stringify(memoryBench, null, 2)}\n`);
  process.stdout.write(formatMemoryBench(memoryBench));
  gc();

  // 5. The HTTP service against opa run -s, and POST /mcp/call's overhead (bench/http.ts).
  process.stdout.write(formatHttpBench(await runHttpBench({ log })));

  // 6. Hot reload: write → new rule deciding, and decide() during reloads (bench/reload.ts).
  process.stdout.write(formatReloadBench(await runReloadBench({ log })));

  // 7. PostgreSQL vs SQLite, and one vs two replicas over HTTP (bench/postgres.ts), when a database is given.
  const pgUrl = benchPostgresUrl();
  if (pgUrl) {
    gc();
    const r = await runPostgresBench(pgUrl);
    writeFileSync(join(import.meta.dirname, 'results', 'postgres.json'), `${JSON.stringify(r, null, 2)}\n`);
    process.stdout.write(`${formatPostgresBench(r)}\n`);
  } else {
    log('!!! SKIPPED: 7. the PostgreSQL benchmark — set PLANGATE_BENCH_POSTGRES=postgres://… (or PLANGATE_TEST_POSTGRES)');
  }
  // 8. The MCP gateway: added latency per tools/call, stdio and Streamable HTTP; 32 sessions (bench/mcp.ts).
  process.stdout.write(formatMcpBench(await runMcpBench({ log })));
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
