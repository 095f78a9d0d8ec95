/**
 * npm run bench:bounded — a decision's work does not grow with what one
 * agent wrote. In one run, four stores with the same org and plans:
 * SQLite and PostgreSQL, each clean and each flooded by one agent W with
 * 1,000,000 delegations (as manager, to X: bound to a run that never
 * starts, expired, revoked, run-bound and expiring), 1,000,000 messages (its
 * own thread and the org's) and 1,000,000 runs of its own seat.
 *
 * The same calls are decided in-process on each store, in interleaved
 * rounds: W's claim of a 16-link chain through its flooded link (the
 * attack), X claiming W, W in one of its runs, and uninvolved agents.
 * Target: p99 on each flooded store within 2× of the clean one. The flood
 * must change no decision but W's own (its plans and runs count for it), and
 * none may fail open. Needs PLANGATE_BENCH_POSTGRES
 * (or PLANGATE_TEST_POSTGRES) for the PostgreSQL half; a fresh schema each,
 * dropped at the end. Writes bench/results/bounded.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Call, Decision, RulesData } from '../src/core/types.js';
import { Engine } from '../src/engine/policy.js';
import type { Store } from '../src/facts/port.js';
import { openPostgresStore } from '../src/facts/postgres/store.js';
import { openSqliteStore } from '../src/facts/sqlite/store.js';
import { createGate } from '../src/gate/gate.js';
import { freshSchemaUrl } from '../test/support/postgres.js';
import { interleave, round, subset, summarize, type Summary } from './stats.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const MIN = 60_000;
const FLOOD = 1_000_000;
const AGENTS = 200;
const CALLS = 4_000;
const WARMUP = 400;
const ROUNDS = 8;
const TARGET_RATIO = 2;
const W = '0xW';
const X = '0xX';
const log = (s: string): void => void process.stderr.write(`${s}\n`);

const RULES: RulesData = {
  planRequired: {
    workspace: { mode: 'side_effects', windowMin: 60, acceptUpstream: true, source: 'rules/bench.yaml:2:3' },
    crews: {},
    agents: {},
  },
  tools: { default: 'effect', exact: {}, patterns: [] },
} as unknown as RulesData;

/** The kinds of call, in turn: the attack, X claiming W, W in its run, an uninvolved agent. */
const KINDS = ['chain16', 'claimsW', 'ownRun', 'uninvolved'] as const;
type Kind = (typeof KINDS)[number];

function makeCalls(): Array<{ kind: Kind; call: Call }> {
  const chain = Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? X : W));
  const out: Array<{ kind: Kind; call: Call }> = [];
  for (let i = 0; i < CALLS; i++) {
    const kind = KINDS[i % KINDS.length] as Kind;
    const tool = 'github.merge_pull_request';
    const call: Call = kind === 'chain16' ? { agent: W, tool, delegatedBy: chain }
      : kind === 'claimsW' ? { agent: X, tool, delegatedBy: [W] }
      : kind === 'ownRun' ? { agent: W, tool, runId: `wr-${(i * 7919) % FLOOD}` }
      : { agent: `a${(i * 31) % AGENTS}`, tool, ...(i % 8 === 3 ? { delegatedBy: [`a${(i * 17 + 1) % AGENTS}`] } : {}) };
    out.push({ kind, call });
  }
  return out;
}

/** The org and the ordinary plans, through the store's own API. */
async function seed(store: Store): Promise<void> {
  await store.putCrew({ id: 'desk', parent: null });
  await store.putCrew({ id: 'ops', parent: 'desk' });
  for (const id of [W, X]) await store.putAgent({ id, crew: 'desk' });
  for (let i = 0; i < AGENTS; i++) await store.putAgent({ id: `a${i}`, crew: i % 2 ? 'ops' : 'desk' });
  for (let i = 0; i < AGENTS; i++) {
    // Half the agents planned recently, a quarter long ago, a quarter never.
    if (i % 4 < 2) await store.postMessage({ thread: `agent:a${i}`, author: `a${i}`, authorKind: 'agent', kind: 'plan', body: 'merging the fix', at: NOW - (i % 50) * MIN });
    else if (i % 4 === 2) await store.postMessage({ thread: 'crew:desk', author: `a${i}`, authorKind: 'agent', kind: 'plan', body: 'old plan', at: NOW - 600 * MIN });
    if (i % 10 === 0) await store.delegate({ manager: `a${(i + 1) % AGENTS}`, worker: `a${i}`, createdBy: 'host', createdAt: NOW - 60 * MIN });
  }
}

/** W's flood, as SQL over a row-number series (SQLite's recursive CTE or PostgreSQL's generate_series). */
function floodSql(series: string): string[] {
  const q = (kind: string) => `'${kind}'`;
  return [
    `INSERT INTO delegations (id, manager, worker, run_id, created_at, expires_at, revoked_at, created_by)
      SELECT 'f-' || i, '${W}', '${X}',
        CASE WHEN i % 4 IN (0, 3) THEN 'never-started' END,
        ${NOW} - 1000 - i,
        CASE WHEN i % 4 = 1 THEN ${NOW} - 500 - (i % 1000) WHEN i % 4 = 3 THEN ${NOW} + i END,
        CASE WHEN i % 4 = 2 THEN ${NOW} - 100 END,
        ${q('agent:' + W)} FROM ${series}`,
    `INSERT INTO messages (thread, author, author_kind, kind, body, at, run_id)
      SELECT CASE WHEN i % 2 = 0 THEN 'agent:${W}' ELSE 'org' END, '${W}', 'agent',
        CASE WHEN i % 3 = 0 THEN 'plan' ELSE 'note' END, 'flood ' || i, ${NOW} - 1000 * i, CASE WHEN i % 5 = 0 THEN 'wr-' || i END FROM ${series}`,
    `INSERT INTO runs (id, seat, delegation_id, started_at, expires_at, ended_at, started_by, ended_by)
      SELECT 'wr-' || i, '${W}', NULL, ${NOW} - 3600000 - i, ${NOW} + 3600000, CASE WHEN i % 2 = 0 THEN ${NOW} - 10 END, 'host',
        CASE WHEN i % 2 = 0 THEN 'host' END FROM ${series}`,
  ];
}

interface Side {
  name: string;
  store: Store;
  close(): Promise<void>;
}

async function sqliteSide(dir: string, name: string, flooded: boolean): Promise<Side> {
  const path = join(dir, `${name}.db`);
  const store = openSqliteStore(path);
  await seed(store);
  if (flooded) {
    await store.close();
    const db = new Database(path);
    db.pragma('synchronous = OFF');
    const series = `(WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${FLOOD}) SELECT i FROM n)`;
    for (const sql of floodSql(series)) {
      const t = Date.now();
      db.exec(sql);
      log(`  ${name}: ${sql.split(' ')[2]} +${FLOOD} rows in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    }
    db.exec('ANALYZE');
    db.close();
    const reopened = openSqliteStore(path);
    return { name, store: reopened, close: () => reopened.close() };
  }
  return { name, store, close: () => store.close() };
}

async function postgresSide(base: string, name: string, flooded: boolean): Promise<Side> {
  const f = await freshSchemaUrl(`bench_${name.replace(/\W/g, '_')}`, base);
  const store = await openPostgresStore(f.url, { statementTimeoutMs: 600_000 });
  await seed(store);
  if (flooded) {
    for (const sql of floodSql(`generate_series(1, ${FLOOD}) AS i`)) {
      const t = Date.now();
      await store.pool.query(sql);
      log(`  ${name}: ${sql.split(' ')[2]} +${FLOOD} rows in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    }
  }
  await store.pool.query('ANALYZE');
  await store.close();
  // Served as plangate serves it: the default statement timeout.
  const served = await openPostgresStore(f.url);
  return { name, store: served, close: async () => { await served.close(); await f.drop(); } };
}

function outcome(d: Decision): string {
  return JSON.stringify({ allowed: d.allowed, code: d.code ?? null, failOpen: d.failOpen ?? null, delegation: d.delegation ?? null });
}

export interface BoundedResult {
  driver: string;
  clean: Summary;
  flooded: Summary;
  ratioP99: number;
  byKind: Record<Kind, { clean: Summary; flooded: Summary }>;
  pass: boolean;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(os.tmpdir(), 'plangate-bench-bounded-'));
  const base = process.env['PLANGATE_BENCH_POSTGRES'] || process.env['PLANGATE_TEST_POSTGRES'] || undefined;
  const engine = await Engine.load({ data: RULES });
  const calls = makeCalls();
  log(`seeding: ${AGENTS} agents; flood: W writes ${FLOOD.toLocaleString('en')} delegations, messages and runs`);
  const sides: Side[] = [await sqliteSide(dir, 'sqlite-clean', false), await sqliteSide(dir, 'sqlite-flooded', true)];
  if (base) sides.push(await postgresSide(base, 'postgres-clean', false), await postgresSide(base, 'postgres-flooded', true));
  else log('!!! PostgreSQL skipped: set PLANGATE_BENCH_POSTGRES (or PLANGATE_TEST_POSTGRES)');
  try {
    const gates = Object.fromEntries(sides.map((s) => [s.name, createGate({ engine, store: s.store, clock: () => NOW, onStoreError: () => {} })]));
    const decided: Record<string, string[]> = Object.fromEntries(sides.map((s) => [s.name, new Array<string>(CALLS)]));
    const ops = Object.fromEntries(sides.map((s) => [s.name, async (i: number) => {
      decided[s.name]![i] = outcome(await gates[s.name]!.decide(calls[i]!.call));
    }]));
    const samples = await interleave(CALLS, WARMUP, ROUNDS, ops);
    const results: BoundedResult[] = [];
    for (const driver of ['sqlite', 'postgres']) {
      const clean = samples[`${driver}-clean`];
      const flooded = samples[`${driver}-flooded`];
      if (!clean || !flooded) continue;
      const byKind = Object.fromEntries(KINDS.map((k) => [k, {
        clean: summarize(subset(clean, (i) => calls[i]!.kind === k)),
        flooded: summarize(subset(flooded, (i) => calls[i]!.kind === k)),
      }])) as BoundedResult['byKind'];
      const c = summarize(clean);
      const f = summarize(flooded);
      const ratioP99 = round(f.p99 / c.p99, 2);
      // The flood changes no other agent's decision (W's own change: its plans and runs are in the flooded store only).
      const changed = calls.filter((x, i) => x.call.agent !== W && decided[`${driver}-clean`]![i] !== decided[`${driver}-flooded`]![i]).length;
      const failOpen = [...decided[`${driver}-clean`]!, ...decided[`${driver}-flooded`]!].filter((d) => d.includes('"failOpen":{')).length;
      if (changed > 0 || failOpen > 0) throw new Error(`${driver}: the flood changed ${changed} decisions; ${failOpen} failed open`);
      results.push({ driver, clean: c, flooded: f, ratioP99, byKind, pass: ratioP99 <= TARGET_RATIO });
    }
    const lines = [`decision latency, µs (${CALLS} calls × store, ${ROUNDS} interleaved rounds; target: flooded p99 ≤ ${TARGET_RATIO}× clean)`];
    lines.push('store      kind        clean p50 / p99     flooded p50 / p99');
    for (const r of results) {
      lines.push(`${r.driver.padEnd(10)} all         ${String(r.clean.p50).padStart(8)} / ${String(r.clean.p99).padEnd(8)}  ${String(r.flooded.p50).padStart(8)} / ${r.flooded.p99}   ratio p99 ${r.ratioP99} ${r.pass ? 'PASS' : 'FAIL'}`);
      for (const k of KINDS) {
        const b = r.byKind[k];
        lines.push(`${''.padEnd(10)} ${k.padEnd(11)} ${String(b.clean.p50).padStart(8)} / ${String(b.clean.p99).padEnd(8)}  ${String(b.flooded.p50).padStart(8)} / ${b.flooded.p99}`);
      }
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    const out = join(import.meta.dirname, 'results');
    mkdirSync(out, { recursive: true });
    const machine = { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? '?', node: process.version, platform: `${os.platform()} ${os.release()}`, loadavg: os.loadavg().map((x) => round(x, 2)) };
    writeFileSync(join(out, 'bounded.json'), `${JSON.stringify({ at: new Date().toISOString(), machine, flood: FLOOD, calls: CALLS, results }, null, 2)}\n`);
    if (results.some((r) => !r.pass)) process.exitCode = 1;
  } finally {
    for (const s of sides) await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
