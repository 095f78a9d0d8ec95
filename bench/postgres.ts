/**
 * The PostgreSQL benchmark (part of `npm run bench` when a database is given;
 * alone: `node --expose-gc --import tsx bench/postgres.ts`). Needs
 * `PLANGATE_BENCH_POSTGRES` (or `PLANGATE_TEST_POSTGRES`): a `postgres://`
 * URL whose role may create a schema; the bench works in a fresh one and
 * drops it at the end.
 *
 * In one run, the same world (10,000 agents, 1,000,000 messages) in SQLite
 * and in PostgreSQL:
 *   1. decide() in-process against each, the same calls, interleaved rounds:
 *      p50/p99 (target: PostgreSQL p99 <= 2 ms on loopback), and that both
 *      decide every call alike;
 *   2. `POST /v1/decide` over HTTP with one `plangate serve` replica and
 *      with two on the same database, driven by the same client
 *      (autocannon, in this process): decisions/s and p99, with the CPU each
 *      process used, to say what saturated.
 * Writes bench/results/postgres.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createMemoryAuditSink } from '../src/audit/memory.js';
import type { Call, Decision } from '../src/core/types.js';
import { Engine } from '../src/engine/policy.js';
import { createPool } from '../src/facts/postgres/pool.js';
import { openPostgresStore } from '../src/facts/postgres/store.js';
import { DECISION_FACTS_SQL } from '../src/facts/postgres/schema.js';
import type { DecisionFactsQuery } from '../src/facts/port.js';
import { openSqliteStore } from '../src/facts/sqlite/store.js';
import { createGate } from '../src/gate/gate.js';
import { freshSchemaUrl } from '../test/support/postgres.js';
import { httpRun, mergeRuns, postmasterOf, startReplica, type HttpRun } from './replicas.js';
import { interleave, round, summarize, type Summary } from './stats.js';
import { AGENTS, benchRules, buildOrg, bulkConnection, insertMessages, insertOrg, makeCalls, messageStream, NOW } from './world.js';

const ROOT = join(import.meta.dirname, '..');
const MESSAGES = 1_000_000;
const CALLS = 10_000;
const WARMUP = 1_000;
const ROUNDS = 10;
const TARGET_P99_US = 2000;
const HTTP_SEATS = 64;
const SERVER_SAMPLES = 2_000;
const log = (s: string): void => void process.stderr.write(`${s}\n`);

/** The database the bench uses, or undefined (then the bench says so and is skipped). */
export function benchPostgresUrl(): string | undefined {
  return process.env['PLANGATE_BENCH_POSTGRES'] || process.env['PLANGATE_TEST_POSTGRES'] || undefined;
}

function outcome(d: Decision): string {
  if (!d.gated) return 'ungated';
  return d.allowed ? 'allowed' : `refused:${d.reason}`;
}

/** Copies the SQLite world into PostgreSQL in batches (same message ids, same order). */
async function copyToPostgres(file: string, pool: pg.Pool): Promise<void> {
  const db = new Database(file, { readonly: true });
  try {
    const crews = db.prepare('SELECT id, parent FROM crews').all() as Array<{ id: string; parent: string | null }>;
    // Parents first: insert without parents, then set them.
    await pool.query('INSERT INTO crews (id, parent) SELECT unnest($1::text[]), NULL', [crews.map((c) => c.id)]);
    await pool.query('UPDATE crews SET parent = p.parent FROM unnest($1::text[], $2::text[]) AS p(id, parent) WHERE crews.id = p.id', [crews.map((c) => c.id), crews.map((c) => c.parent)]);
    const agents = db.prepare('SELECT id, crew FROM agents').all() as Array<{ id: string; crew: string }>;
    await pool.query('INSERT INTO agents (id, crew) SELECT * FROM unnest($1::text[], $2::text[])', [agents.map((a) => a.id), agents.map((a) => a.crew)]);
    const rows = db.prepare('SELECT thread, author, author_kind, kind, body, at, run_id FROM messages ORDER BY id').raw().iterate() as IterableIterator<unknown[]>;
    let batch: unknown[][] = [[], [], [], [], [], [], []];
    const flush = async () => {
      await pool.query(
        `INSERT INTO messages (thread, author, author_kind, kind, body, at, run_id)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[])`,
        batch,
      );
      batch = [[], [], [], [], [], [], []];
    };
    for (const r of rows) {
      for (let i = 0; i < 7; i++) (batch[i] as unknown[]).push(r[i]);
      if ((batch[0] as unknown[]).length === 20_000) await flush();
    }
    if ((batch[0] as unknown[]).length > 0) await flush();
  } finally {
    db.close();
  }
  await pool.query('VACUUM ANALYZE');
}

export interface PostgresBenchResult {
  machine: { cpu: string; cores: number; node: string; loadAvgAtStart: number[]; loadAvgAtEnd: number[] };
  world: { agents: number; messages: number; seedSeconds: { sqlite: number; postgres: number } };
  facts: { lookups: Summary; oneStatement: Summary };
  decide: { calls: number; sqlite: Summary; postgres: Summary; ratioP50: number; ratioP99: number; sameOutcomes: boolean; outcomes: Record<string, number> };
  /** The decision facts statement's execution time inside PostgreSQL (EXPLAIN ANALYZE), µs. */
  factsInServerUs: { n: number; p50: number; p99: number };
  targets: { postgresP99Us: { target: number; value: number; met: boolean } };
  http: { seconds: number; connections: number; one: HttpRun; two: HttpRun; twoOverOne: number };
}

export async function runPostgresBench(url: string, o: { httpSeconds?: number; connections?: number } = {}): Promise<PostgresBenchResult> {
  const cpus = os.cpus();
  const machine = { cpu: cpus[0]?.model.trim() ?? 'unknown', cores: cpus.length, node: process.version, loadAvgAtStart: os.loadavg().map((x) => round(x, 2)), loadAvgAtEnd: [] as number[] };
  const dir = mkdtempSync(join(os.tmpdir(), 'plangate-pgbench-'));
  const schema = await freshSchemaUrl('bench', url);
  try {
    const org = buildOrg();
    const file = join(dir, 'bench.db');
    await openSqliteStore(file).close();
    const stream = messageStream(org, 1);
    let t0 = performance.now();
    const db = bulkConnection(file);
    insertOrg(db, org);
    insertMessages(db, MESSAGES, stream.next);
    db.close();
    const sqliteSeed = round((performance.now() - t0) / 1000, 1);
    log(`  seeded SQLite: ${MESSAGES} messages in ${sqliteSeed} s`);

    const pgStore = await openPostgresStore(schema.url);
    t0 = performance.now();
    const bulk = createPool(schema.url, { statementTimeoutMs: 600_000 });
    await copyToPostgres(file, bulk);
    await bulk.end();
    const pgSeed = round((performance.now() - t0) / 1000, 1);
    log(`  seeded PostgreSQL: ${MESSAGES} messages in ${pgSeed} s`);

    const engine = await Engine.load({ data: benchRules(org), rulesRevision: 'bench' });
    const clock = () => NOW;
    const sqlite = openSqliteStore(file);
    const gs = createGate({ engine, store: sqlite, audit: createMemoryAuditSink(), clock });
    // The fact queries of the first calls, kept to time them inside the server afterwards.
    const seen: DecisionFactsQuery[] = [];
    const recording = { ...pgStore, decisionFacts: (q: DecisionFactsQuery) => { if (seen.length < SERVER_SAMPLES) seen.push(q); return pgStore.decisionFacts(q); } };
    const gp = createGate({ engine, store: recording, audit: createMemoryAuditSink(), clock });
    const calls = makeCalls(org, org.agents.map((a) => a.id), CALLS, 11, stream.runPlanOf);
    const outS: string[] = [];
    const outP: string[] = [];
    log('  decide() on SQLite and PostgreSQL, interleaved …');
    const factsQuery = (c: Call) => ({ agent: c.agent, delegatedBy: c.delegatedBy ?? [], now: NOW, ...(c.runId !== undefined ? { runId: c.runId } : {}) });
    const samples = await interleave(CALLS, WARMUP, ROUNDS, {
      sqlite: async (i) => { outS[i] = outcome(await gs.decide(calls[i] as Call)); },
      postgres: async (i) => { outP[i] = outcome(await gp.decide(calls[i] as Call)); },
      // The facts alone: lookup by lookup as the gate gathers them (two round trips), and in one statement.
      factsLookups: (i) => gp.inputFor(calls[i] as Call),
      factsOneStatement: (i) => pgStore.decisionFacts(factsQuery(calls[i] as Call)),
    });
    await sqlite.close();
    // What the database itself spends on a decision's facts (EXPLAIN ANALYZE), apart from round trips and scheduling.
    const serverMs: number[] = [];
    for (const q of seen) {
      const params = [[q.agent, ...q.delegatedBy], q.now, q.runId ?? null, q.context ?? 0];
      const { rows } = await pgStore.pool.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${DECISION_FACTS_SQL}`, params);
      serverMs.push((rows[0]['QUERY PLAN'] as Array<{ 'Execution Time': number }>)[0]!['Execution Time']);
    }
    serverMs.sort((x, y) => x - y);
    const serverUs = { n: serverMs.length, p50: round(1000 * (serverMs[Math.floor(serverMs.length * 0.5)] ?? NaN), 1), p99: round(1000 * (serverMs[Math.floor(serverMs.length * 0.99)] ?? NaN), 1) };
    const s = summarize(samples.sqlite);
    const p = summarize(samples.postgres);
    const outcomes: Record<string, number> = {};
    for (const x of outP) outcomes[x] = (outcomes[x] ?? 0) + 1;

    // HTTP: rules as a file, tokens for HTTP_SEATS seats of the org.
    const rules = join(dir, 'rules');
    mkdirSync(rules);
    writeFileSync(join(rules, 'bench.yaml'), 'planRequired:\n  workspace: { mode: side_effects, windowMin: 60 }\ntools:\n  default: effect\n');
    const seats = org.agents.filter((_, i) => i % Math.floor(AGENTS / HTTP_SEATS) === 0).slice(0, HTTP_SEATS).map((a) => a.id);
    const tokens = seats.map((seat, i) => ({ seat, token: `bench-${i}-token-0123456789abcdef` }));
    const tokenEnv = tokens.map((t) => `agent:${t.seat}=${t.token}`).join(' ');
    const secs = o.httpSeconds ?? 10;
    const conns = o.connections ?? 32;
    const a = await startReplica(schema.url, rules, tokenEnv);
    const b = await startReplica(schema.url, rules, tokenEnv);
    try {
      const ts = tokens.map((t) => t.token);
      const postmaster = await postmasterOf(pgStore.pool);
      log('  HTTP warm-up …');
      await httpRun([a.url, b.url], [a.child.pid, b.child.pid], ts, 3, conns, postmaster);
      // Rounds in the order one, two, two, one, so that a machine getting busier or quieter affects both alike.
      const ones: HttpRun[] = [];
      const twos: HttpRun[] = [];
      for (const n of [1, 2, 2, 1]) {
        log(`  HTTP: ${n} replica(s), ${secs} s …`);
        if (n === 1) ones.push(await httpRun([a.url], [a.child.pid], ts, secs, conns, postmaster));
        else twos.push(await httpRun([a.url, b.url], [a.child.pid, b.child.pid], ts, secs, conns, postmaster));
      }
      const one = mergeRuns(ones);
      const two = mergeRuns(twos);
      machine.loadAvgAtEnd = os.loadavg().map((x) => round(x, 2));
      await pgStore.close();
      return {
        machine,
        world: { agents: AGENTS, messages: MESSAGES, seedSeconds: { sqlite: sqliteSeed, postgres: pgSeed } },
        decide: { calls: CALLS, sqlite: s, postgres: p, ratioP50: round(p.p50 / s.p50, 2), ratioP99: round(p.p99 / s.p99, 2), sameOutcomes: outS.every((x, i) => x === outP[i]), outcomes },
        factsInServerUs: serverUs,
        facts: { lookups: summarize(samples.factsLookups), oneStatement: summarize(samples.factsOneStatement) },
        targets: { postgresP99Us: { target: TARGET_P99_US, value: p.p99, met: p.p99 <= TARGET_P99_US } },
        http: { seconds: secs, connections: conns, one, two, twoOverOne: round(two.decisionsPerSec / one.decisionsPerSec, 2) },
      };
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  } finally {
    await schema.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatPostgresBench(r: PostgresBenchResult): string {
  const row = (name: string, x: Summary) => `  ${name.padEnd(22)} p50 ${String(x.p50).padStart(8)} µs   p99 ${String(x.p99).padStart(8)} µs   mean ${String(x.mean).padStart(8)} µs   cpu ${x.cpuPct}%`;
  const http = (x: HttpRun) => `  ${x.replicas} replica(s): ${x.decisionsPerSec} decisions/s, p50 ${x.p50Ms} ms, p99 ${x.p99Ms} ms, non-2xx ${x.non2xx}, errors ${x.errors}; cores: replicas ${x.cores.replicas.join(' + ')}, postgres ${x.cores.postgres}, client ${x.cores.client}`;
  return [
    `PostgreSQL vs SQLite — ${r.world.agents} agents, ${r.world.messages} messages (seeded in ${r.world.seedSeconds.sqlite} s / ${r.world.seedSeconds.postgres} s); ${r.machine.cores} cores, load ${r.machine.loadAvgAtStart.join(' ')} → ${r.machine.loadAvgAtEnd.join(' ')}`,
    row('decide() SQLite', r.decide.sqlite),
    row('decide() PostgreSQL', r.decide.postgres),
    `  ratio PostgreSQL/SQLite: p50 ${r.decide.ratioP50}×  p99 ${r.decide.ratioP99}×; same outcomes: ${r.decide.sameOutcomes}; ${JSON.stringify(r.decide.outcomes)}`,
    row('facts, lookups', r.facts.lookups),
    row('facts, one statement', r.facts.oneStatement),
    `  decision facts statement inside PostgreSQL (EXPLAIN ANALYZE, ${r.factsInServerUs.n} calls): p50 ${r.factsInServerUs.p50} µs, p99 ${r.factsInServerUs.p99} µs`,
    `  target PostgreSQL p99 <= ${r.targets.postgresP99Us.target} µs: ${r.targets.postgresP99Us.met ? 'met' : 'NOT met'} (${r.targets.postgresP99Us.value} µs)`,
    `HTTP POST /v1/decide, ${r.http.connections} connections, 2 rounds of ${r.http.seconds} s per configuration (means):`,
    http(r.http.one),
    http(r.http.two),
    `  two / one: ${r.http.twoOverOne}×`,
  ].join('\n');
}

async function main(): Promise<void> {
  const url = benchPostgresUrl();
  if (!url) {
    log('!!! SKIPPED: the PostgreSQL benchmark — set PLANGATE_BENCH_POSTGRES=postgres://… (or PLANGATE_TEST_POSTGRES)');
    return;
  }
  const r = await runPostgresBench(url);
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench', 'results', 'postgres.json'), `${JSON.stringify(r, null, 2)}\n`);
  process.stdout.write(`${formatPostgresBench(r)}\n`);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, '/'))) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  });
}
