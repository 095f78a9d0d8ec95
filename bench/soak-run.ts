/**
 * The soak: a simulated stretch of days in compressed time, the clock
 * injected (`openPlangate({ clock })`), on a real store with the shipped
 * policy. Agents post plans, start and end runs, are delegated to, decide
 * calls and are held and released, and retention prunes on its schedule
 * (`pruneOnce`, as `plangate serve` runs it, every `pruneEveryMin` of
 * simulated time). Each simulated day ends with the store's size, its row
 * counts and the day's decision latency.
 *
 * Along the way a fixed set of probe calls is decided just before and just
 * after each prune, at the prune's time: the answers must be equal (what
 * retention deletes could no longer count). Used by `npm run bench:soak`
 * (bench/soak.ts) and, at a tiny scale, by test/retention/soak.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Call, Decision } from '../src/core/types.js';
import type { PostgresStore } from '../src/facts/postgres/store.js';
import type { RetentionSettings } from '../src/facts/retention.js';
import { openPlangate, type Plangate } from '../src/main/open.js';
import { pruneOnce, type PruneResult } from '../src/main/retention.js';
import { freshSchemaUrl } from '../test/support/postgres.js';
import { prng } from '../test/support/rng.js';

const MIN = 60_000;
const DAY = 1440 * MIN;
/** The simulated week starts here (a Monday, midnight UTC). */
export const SOAK_START = Date.UTC(2026, 5, 1);
const TOOL = 'github.merge_pull_request';
const TABLES = ['messages', 'runs', 'delegations', 'holds', 'hold_messages'] as const;
const KINDS = ['messages', 'runs', 'delegations', 'holds', 'audit'] as const;
export type PruneKind = (typeof KINDS)[number];

export interface SoakOptions {
  driver: 'sqlite' | 'postgres';
  /** A `postgres://` URL for the PostgreSQL driver (a fresh schema is made in it and dropped). */
  postgres?: string;
  agents: number;
  days: number;
  /** Work sessions per agent per simulated day (each: a plan, a run, decisions, maybe a delegation). */
  sessionsPerDay: number;
  /** The simulated clock's step, in minutes (divides a day). */
  tickMin: number;
  /** Retention's period, in simulated minutes (a multiple of the tick). */
  pruneEveryMin: number;
  retention: RetentionSettings;
  /** The rules: the plan window and the longest run (what a decision may still need). */
  windowMin: number;
  maxRunMin: number;
  /** Share of sessions in which the agent is placed on hold by an operator. */
  holdShare: number;
  /** Share of sessions that open a long run (the longest the rules allow): the agent works in it, on its first plan alone, until it ends. */
  longRunShare: number;
  /** Agents whose calls are probed around each prune. */
  probeAgents: number;
  seed?: number;
  log?: (line: string) => void;
}

export interface SoakDay {
  day: number;
  /** SQLite: the database file and its WAL; PostgreSQL: pg_total_relation_size of the schema's tables. */
  bytes: number;
  rows: Record<string, number>;
  decisions: number;
  /** Decision latency this day, µs (wall time of `gate.decide`). */
  p50: number;
  p99: number;
  /** Rows retention deleted this day, per kind. */
  pruned: Record<PruneKind, number>;
  /** Wall time this simulated day took, s. */
  wallS: number;
}

export interface SoakResult {
  driver: SoakOptions['driver'];
  days: SoakDay[];
  prunes: number;
  /** The first day on which a prune deleted rows of each kind. */
  firstPruned: Partial<Record<PruneKind, number>>;
  probes: { checked: number; allowed: number; refused: number; mismatches: string[] };
  /** Decisions that failed open (must be none: the store never failed). */
  failedOpen: number;
}

interface Sim {
  now: number;
  lastRun: Map<string, string>;
  lastDelegated: Map<string, string>;
  lastLongRun: Map<string, string>;
  /** Agents busy in a long run, until it expires (epoch ms). */
  busyUntil: Map<string, number>;
  held: Set<string>;
  pending: Map<number, Array<() => Promise<unknown>>>;
  /** Decision latencies of the day under way, ns. */
  lat: number[];
}

/**
 * What a decision says. Two wordings change when retention deletes what no
 * longer counts (docs/guides/retention-and-quotas.md): a plan too old to
 * count reads `stale` while stored and `none` once deleted, and a run over
 * (`ended`, `expired`) reads `unknown` once deleted; both are read as one
 * here. An open run read as unknown would still differ.
 */
export function verdict(d: Decision): string {
  const reason = d.reason === 'stale' ? 'none' : d.reason;
  const code = d.code?.replace(/:stale$/, ':none');
  const run = d.run && ['ended', 'expired', 'unknown'].includes(d.run.status) ? { id: d.run.id, status: 'over or unknown' } : d.run;
  return JSON.stringify({ allowed: d.allowed, code, reason, check: d.check, plan: d.plan, run, delegation: d.delegation, failOpen: d.failOpen });
}

const manager = (i: number, n: number): string => `a${i % 2 === 0 ? (i + 1) % n : i - 1}`;
const BODY = 'merge the fix for the flaky checkout test into main once CI is green; the vendor invoice (4,200 EUR) waits for it';

function pctUs(ns: number[], p: number): number {
  if (ns.length === 0) return 0;
  const s = [...ns].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]! / 100) / 10;
}

/** Runs one soak and returns its days; the store is deleted at the end. */
export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const ticksPerDay = 1440 / o.tickMin;
  const pruneTicks = o.pruneEveryMin / o.tickMin;
  if (!Number.isInteger(ticksPerDay) || !Number.isInteger(pruneTicks) || pruneTicks < 1) throw new Error('tickMin must divide a day and the prune period');
  const log = o.log ?? (() => {});
  const dir = mkdtempSync(join(os.tmpdir(), 'plangate-soak-'));
  const rules = join(dir, 'rules');
  mkdirSync(rules);
  writeFileSync(join(rules, 'rules.yaml'), `planRequired:\n  workspace: { mode: side_effects, windowMin: ${o.windowMin}, acceptUpstream: true }\nruns: { maxMinutes: ${o.maxRunMin} }\n`);
  const schema = o.driver === 'postgres' ? await freshSchemaUrl('soak', o.postgres) : undefined;
  const dbPath = join(dir, 'soak.db');
  const sim: Sim = { now: SOAK_START, lastRun: new Map(), lastDelegated: new Map(), lastLongRun: new Map(), busyUntil: new Map(), held: new Set(), pending: new Map(), lat: [] };
  const pg = await openPlangate({
    rules, env: {}, clock: () => sim.now, log: () => {},
    store: schema ? schema.url : dbPath,
    // PostgreSQL keeps the audit in its own table (pruned by its setting); SQLite's JSONL file is the operator's to rotate.
    audit: schema ? schema.url : join(dir, 'audit.jsonl'),
  });
  const reader = schema ? undefined : new Database(dbPath, { readonly: true });
  const result: SoakResult = { driver: o.driver, days: [], prunes: 0, firstPruned: {}, probes: { checked: 0, allowed: 0, refused: 0, mismatches: [] }, failedOpen: 0 };
  try {
    const rnd = prng(o.seed ?? 7);
    await seedOrg(pg, o.agents);
    const buckets = sessionBuckets(o.agents, o.sessionsPerDay, ticksPerDay);
    for (let day = 1; day <= o.days; day++) {
      const t0 = Date.now();
      const lat: number[] = [];
      sim.lat = lat;
      const pruned: Record<PruneKind, number> = { messages: 0, runs: 0, delegations: 0, holds: 0, audit: 0 };
      for (let t = 0; t < ticksPerDay; t++) {
        const tick = (day - 1) * ticksPerDay + t;
        sim.now = SOAK_START + tick * o.tickMin * MIN;
        for (const step of sim.pending.get(tick) ?? []) await step();
        sim.pending.delete(tick);
        for (const i of buckets[t]!) await session(pg, sim, o, i, tick, rnd, result);
        if (tick > 0 && tick % pruneTicks === 0) {
          const r = await pruneWithProbes(pg, sim, o, result);
          for (const k of KINDS) {
            const n = r[k] ?? 0;
            pruned[k] += n;
            if (n > 0) result.firstPruned[k] ??= day;
          }
        }
      }
      sim.now = SOAK_START + day * DAY;
      const d: SoakDay = {
        day, bytes: await sizeOf(pg, reader), rows: await rowsOf(pg, reader), decisions: lat.length,
        p50: pctUs(lat, 50), p99: pctUs(lat, 99), pruned, wallS: Math.round((Date.now() - t0) / 100) / 10,
      };
      result.days.push(d);
      log(`${o.driver} day ${day}: ${(d.bytes / 2 ** 20).toFixed(2)} MiB, ${TABLES.map((k) => `${k} ${d.rows[k]}`).join(', ')}${d.rows['audit_events'] !== undefined ? `, audit_events ${d.rows['audit_events']}` : ''}; ${d.decisions} decisions p50 ${d.p50} µs p99 ${d.p99} µs; pruned ${KINDS.map((k) => `${pruned[k]} ${k}`).join(', ')}; ${d.wallS} s`);
    }
  } finally {
    reader?.close();
    await pg.close();
    await schema?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}

/** Crews of 50 agents under one org crew. */
async function seedOrg(pg: Plangate, agents: number): Promise<void> {
  await pg.store.putCrew({ id: 'org-desk', parent: null });
  for (let c = 0; c * 50 < agents; c++) await pg.store.putCrew({ id: `crew${c}`, parent: 'org-desk' });
  for (let i = 0; i < agents; i++) await pg.store.putAgent({ id: `a${i}`, crew: `crew${Math.floor(i / 50)}` });
}

/** Which agents start a session at each tick of the day: spread evenly, each agent `perDay` times. */
function sessionBuckets(agents: number, perDay: number, ticksPerDay: number): number[][] {
  const out: number[][] = Array.from({ length: ticksPerDay }, () => []);
  for (let i = 0; i < agents; i++) {
    for (let s = 0; s < perDay; s++) out[(Math.floor((i * ticksPerDay) / agents) + Math.floor((s * ticksPerDay) / perDay)) % ticksPerDay]!.push(i);
  }
  return out;
}

function later(sim: Sim, tick: number, step: () => Promise<unknown>): void {
  const list = sim.pending.get(tick) ?? [];
  list.push(step);
  sim.pending.set(tick, list);
}

async function timedDecide(pg: Plangate, sim: Sim, call: Call, result: SoakResult): Promise<void> {
  const t = process.hrtime.bigint();
  const d = await pg.gate.decide(call);
  sim.lat.push(Number(process.hrtime.bigint() - t));
  if (d.failOpen) result.failedOpen++;
}

/** One work session of agent `i`: a plan, a run, maybe a delegation from its manager, three decisions; the run ends later. */
async function session(pg: Plangate, sim: Sim, o: SoakOptions, i: number, tick: number, rnd: () => number, result: SoakResult): Promise<void> {
  const a = `a${i}`;
  const m = manager(i, o.agents);
  if (!sim.held.has(a) && rnd() < o.holdShare) {
    // An operator holds the agent; it sends its plan through the reviewer channel; the reviewer releases it later.
    sim.held.add(a);
    await pg.gate.holds.place(a, { by: 'ops' });
    later(sim, tick + 1, () => pg.gate.holds.submitPlan(a, { body: BODY }));
    later(sim, tick + 3, async () => {
      await pg.gate.holds.unblock(a, { by: 'ops' });
      sim.held.delete(a);
    });
  }
  const busyIn = sim.lastLongRun.get(a);
  if (busyIn && (sim.busyUntil.get(a) ?? 0) > sim.now) {
    // Still in its long run: decided on the run's plan alone, long after the window.
    if (rnd() < 0.5) await pg.gate.sayAsAgent({ thread: `agent:${a}`, author: a, kind: 'note', body: BODY, runId: busyIn });
    await timedDecide(pg, sim, { agent: a, tool: TOOL, runId: busyIn }, result);
    return;
  }
  if (rnd() < 0.85) await pg.gate.sayAsAgent({ thread: `agent:${a}`, author: a, kind: 'plan', body: BODY });
  if (rnd() < 0.3) await pg.gate.sayAsAgent({ thread: `crew:crew${Math.floor(i / 50)}`, author: a, kind: 'note', body: BODY });
  const long = rnd() < o.longRunShare;
  const run = await pg.gate.runs.start({ seat: a, by: 'host', ttlMs: (long ? o.maxRunMin : 120) * MIN });
  sim.lastRun.set(a, run.id);
  if (long || rnd() < 0.7) await pg.gate.sayAsAgent({ thread: `agent:${a}`, author: a, kind: 'plan', body: BODY, runId: run.id });
  if (long) {
    sim.lastLongRun.set(a, run.id);
    sim.busyUntil.set(a, run.expiresAt);
  }
  const delegated = o.agents > 1 && rnd() < 0.5;
  if (delegated) {
    const del = await pg.gate.delegations.record({ manager: m, worker: a, by: 'host', runId: run.id, ttlMs: 180 * MIN });
    sim.lastDelegated.set(a, run.id);
    if (rnd() < 0.3) later(sim, tick + 2, () => pg.gate.delegations.revoke(del.id));
  }
  await timedDecide(pg, sim, { agent: a, tool: TOOL }, result);
  await timedDecide(pg, sim, { agent: a, tool: TOOL, runId: run.id }, result);
  await timedDecide(pg, sim, { agent: a, tool: TOOL, runId: run.id, ...(delegated ? { delegatedBy: [m] } : {}) }, result);
  // Most runs end within the hour; the rest expire.
  if (!long && rnd() < 0.9) later(sim, tick + 1 + Math.floor(rnd() * 6), () => pg.gate.runs.end(run.id, { by: 'host' }));
}

/**
 * The probe calls: agents spread over the population (so some have just
 * worked at any hour), each plainly, in its latest run and its latest long
 * run, and claiming its manager for the latest run it was delegated.
 */
function probeCalls(sim: Sim, o: SoakOptions): Call[] {
  const calls: Call[] = [];
  const n = Math.min(o.probeAgents, o.agents);
  for (let k = 0; k < n; k++) {
    const i = Math.floor((k * o.agents) / n);
    const a = `a${i}`;
    calls.push({ agent: a, tool: TOOL });
    const run = sim.lastRun.get(a);
    if (run) calls.push({ agent: a, tool: TOOL, runId: run });
    const longRun = sim.lastLongRun.get(a);
    if (longRun && longRun !== run) calls.push({ agent: a, tool: TOOL, runId: longRun });
    const del = sim.lastDelegated.get(a);
    if (del) calls.push({ agent: a, tool: TOOL, runId: del, delegatedBy: [manager(i, o.agents)] });
  }
  return calls;
}

/** One scheduled prune, with the probe calls decided before and after it at the same time. */
async function pruneWithProbes(pg: Plangate, sim: Sim, o: SoakOptions, result: SoakResult): Promise<PruneResult> {
  const calls = probeCalls(sim, o);
  const before = await Promise.all(calls.map(async (c) => verdict(await pg.gate.decide(c))));
  const r = await pruneOnce(pg, o.retention, { now: sim.now });
  result.prunes++;
  if (r.messages + r.runs + r.delegations + r.holds + (r.audit ?? 0) > 0 && 'pool' in pg.store) {
    // Autovacuum's stand-in: it wakes every minute of real time, which the compressed clock makes
    // thousands of times rarer than in a deployment; between two hourly prunes it would have run.
    await (pg.store as PostgresStore).pool.query(`VACUUM ${[...TABLES, 'audit_events'].join(', ')}`);
  }
  for (const [k, c] of calls.entries()) {
    const after = verdict(await pg.gate.decide(c));
    result.probes.checked++;
    if (JSON.parse(before[k]!).allowed) result.probes.allowed++;
    else result.probes.refused++;
    if (after !== before[k]) result.probes.mismatches.push(`${new Date(sim.now).toISOString()} ${JSON.stringify(c)}: ${before[k]} → ${after}`);
  }
  return r;
}

/**
 * SQLite: the database file's size as a checkpoint leaves it (its pages, those
 * still in the WAL included; the WAL file itself stays at most ~4 MiB by
 * SQLite's default checkpoint and is not counted). PostgreSQL: the schema's
 * tables with their indexes and TOAST.
 */
async function sizeOf(pg: Plangate, reader: Database.Database | undefined): Promise<number> {
  if (reader) return Number(reader.pragma('page_count', { simple: true })) * Number(reader.pragma('page_size', { simple: true }));
  const r = await (pg.store as PostgresStore).pool.query<{ bytes: string }>(
    `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'`,
  );
  return Number(r.rows[0]!.bytes);
}

async function rowsOf(pg: Plangate, reader: Database.Database | undefined): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of reader ? TABLES : [...TABLES, 'audit_events']) {
    const sql = `SELECT count(*) AS n FROM ${t}`;
    out[t] = reader ? Number((reader.prepare(sql).get() as { n: number }).n) : Number((await (pg.store as PostgresStore).pool.query<{ n: string }>(sql)).rows[0]!.n);
  }
  return out;
}
