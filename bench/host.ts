/**
 * npm run bench:host — the host's share of a decision, quickly: decide()
 * and inputFor() on the memory store (and, with BENCH_HOST_SQLITE=N, on an
 * SQLite store of N messages with a 256 MiB page cache) interleaved with
 * the bare hot evaluation and the floor, in one process, the same way
 * `npm run bench` part 2 measures them but on a smaller world (the memory
 * store's lookups do not grow with its size). Not a substitute for the
 * full bench: a quick before/after for changes to the host side.
 *
 *   BENCH_HOST_MESSAGES   messages in the memory store (default 100000)
 *   BENCH_HOST_CALLS      timed calls per operation (default 25000)
 *   BENCH_HOST_SQLITE     messages in an SQLite store (default 0: not measured)
 *   BENCH_HOST_LOOP=op    only run `op` (decide, inputFor, bareHot) in a loop
 *                         of BENCH_HOST_CALLS × 20, for --cpu-prof / --trace-gc
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { createMemoryAuditSink } from '../src/audit/memory.js';
import type { Call, PolicyInput } from '../src/core/types.js';
import { rawEvaluator } from '../src/engine/abi.js';
import { Engine } from '../src/engine/policy.js';
import { createMemoryStore } from '../src/facts/memory/store.js';
import { openSqliteStore } from '../src/facts/sqlite/store.js';
import { createGate } from '../src/gate/gate.js';
import { loadFloor } from './opa.js';
import { interleave, summarize, type Summary } from './stats.js';
import { benchRules, buildOrg, bulkConnection, insertMessages, insertOrg, makeCalls, messageStream, NOW } from './world.js';

const num = (name: string, fallback: number): number => (process.env[name] ? Number(process.env[name]) : fallback);
const MESSAGES = num('BENCH_HOST_MESSAGES', 100_000);
const CALLS = num('BENCH_HOST_CALLS', 25_000);
const SQLITE = num('BENCH_HOST_SQLITE', 0);
const LOOP = process.env.BENCH_HOST_LOOP;
const log = (s: string): void => void process.stderr.write(`${s}\n`);

async function main(): Promise<void> {
  const org = buildOrg();
  const rules = benchRules(org);
  const engine = await Engine.load({ data: rules, rulesRevision: 'bench-host' });
  const store = createMemoryStore();
  for (const c of [...org.crews].sort((a, b) => a.depth - b.depth)) await store.putCrew({ id: c.id, parent: c.parent });
  for (const a of org.agents) await store.putAgent({ id: a.id, crew: a.crew });
  const stream = messageStream(org, 1);
  const msgs = Array.from({ length: MESSAGES }, () => stream.next()).sort((a, b) => a.at - b.at);
  for (const m of msgs) {
    await store.postMessage({ thread: m.thread, author: m.author, authorKind: m.authorKind, kind: m.kind, body: m.body, at: m.at, ...(m.runId ? { runId: m.runId } : {}) });
  }
  const calls = makeCalls(org, org.agents.map((a) => a.id), CALLS, 11, stream.runPlanOf);
  const audit = createMemoryAuditSink();
  const gate = createGate({ engine, store, audit, clock: () => NOW });
  const inputs: PolicyInput[] = [];
  for (const c of calls) inputs.push(await gate.inputFor(c));
  const call = (i: number): Call => calls[i % CALLS] as Call;

  if (LOOP) {
    const ops: Record<string, (i: number) => unknown> = {
      decide: (i) => gate.decide(call(i)),
      inputFor: (i) => gate.inputFor(call(i)),
      bareHot: (i) => engine.decide(inputs[i % CALLS] as PolicyInput),
    };
    const op = ops[LOOP];
    if (!op) throw new Error(`BENCH_HOST_LOOP: one of ${Object.keys(ops).join(', ')}`);
    const n = CALLS * 20;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const r = op(i);
      if (r instanceof Promise) await r;
      if (i % 1000 === 0) audit.clear();
    }
    log(`${LOOP}: ${n} in ${Math.round(performance.now() - t0)} ms, ${((1000 * (performance.now() - t0)) / n).toFixed(2)} µs mean`);
    return;
  }

  const floorPolicy = await loadFloor();
  const floor = floorPolicy ? rawEvaluator(floorPolicy) : null;
  const ops: Record<string, (i: number) => unknown> = {
    decideMemory: async (i) => {
      await gate.decide(call(i));
      if (i % 1000 === 0) audit.clear();
    },
    inputForMemory: (i) => gate.inputFor(call(i)),
    bareHot: (i) => engine.evaluate('plangate/decide', inputs[i] as PolicyInput),
    ...(floor ? { floor: (i: number) => floor(inputs[i] as PolicyInput, 'floor/allow') } : {}),
  };
  let dir: string | undefined;
  if (SQLITE > 0) {
    dir = mkdtempSync(join(os.tmpdir(), 'plangate-bench-host-'));
    const path = join(dir, 'store.db');
    await openSqliteStore(path).close();
    const db = bulkConnection(path);
    insertOrg(db, org);
    insertMessages(db, SQLITE, messageStream(org, 1).next);
    db.close();
    const sqlite = openSqliteStore(path, { cacheSizeMiB: 256 });
    const sqliteGate = createGate({ engine, store: sqlite, audit, clock: () => NOW });
    ops.decideSqlite = (i) => sqliteGate.decide(call(i));
    ops.inputForSqlite = (i) => sqliteGate.inputFor(call(i));
  }
  log(`bench:host — ${MESSAGES} messages in memory${SQLITE ? `, ${SQLITE} in SQLite` : ''}, ${CALLS} calls, interleaved …`);
  const samples = await interleave(CALLS, 3000, 20, ops);
  const pad = (s: string | number, n: number): string => String(s).padStart(n);
  const out = [`${'µs'.padEnd(18)}${pad('p50', 8)}${pad('p90', 8)}${pad('p99', 8)}${pad('mean', 8)}${pad('GCs', 6)}${pad('GC ms', 8)}${pad('cpu%', 6)}`];
  const sums: Record<string, Summary> = {};
  for (const [k, s] of Object.entries(samples)) {
    const x = (sums[k] = summarize(s));
    out.push(`${k.padEnd(18)}${pad(x.p50, 8)}${pad(x.p90, 8)}${pad(x.p99, 8)}${pad(x.mean, 8)}${pad(x.gc.count, 6)}${pad(x.gc.ms, 8)}${pad(x.cpuPct, 6)}`);
  }
  const d = sums.decideMemory as Summary;
  const b = sums.bareHot as Summary;
  out.push(`host share of decide(memory): p50 ${(d.p50 - b.p50).toFixed(1)} µs, mean ${(d.mean - b.mean).toFixed(1)} µs`);
  if (sums.floor) out.push(`decide(memory)/floor p50 ${(d.p50 / sums.floor.p50).toFixed(2)}×`);
  // Allocation: the JS heap grown by 1,000 decide() calls between two full collections (the young generation holds them all).
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    audit.clear();
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 1000; i++) await gate.decide(call(i));
    const grown = process.memoryUsage().heapUsed - before;
    out.push(`allocated per decide(memory): about ${Math.round(grown / 1000)} bytes (1,000 calls, no collection in between)`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
  if (dir) rmSync(dir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:host failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
