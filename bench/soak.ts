/**
 * npm run bench:soak — a simulated week in compressed time (bench/soak-run.ts):
 * 1,000 agents post plans, run, are delegated to, decide and are held and
 * released, and retention prunes every simulated hour, on SQLite and on
 * PostgreSQL (PLANGATE_BENCH_POSTGRES or PLANGATE_TEST_POSTGRES; skipped
 * with one loud line without either).
 *
 * Per simulated day: the store's size, its rows and the decision p50/p99.
 * Target: flat after the first retention cycle, judged as the last day
 * against the day after the first prune (size within 1.10×, p99 within
 * 1.5×, the p99 being the noisier); and every probe decision equal before
 * and after every prune. Scale: SOAK_AGENTS (1000), SOAK_DAYS (7),
 * SOAK_SESSIONS (work sessions per agent per day, 2), SOAK_TICK_MIN (10).
 * Retention: the PLANGATE_RETAIN_* / PLANGATE_PRUNE_* variables as `serve`
 * reads them; here messages default to 0 days (kept only while a decision
 * may need them) and the rest to 1 day.
 * Writes bench/results/soak.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pruneEveryMs, RETENTION_ENV, retentionFromEnv } from '../src/main/retention.js';
import { runSoak, type SoakOptions, type SoakResult } from './soak-run.js';

const SIZE_FLAT = 1.1;
const P99_FLAT = 1.5;
const log = (s: string): void => void process.stderr.write(`${s}\n`);

function whole(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name}: expected a whole number of at least 1, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/**
 * The soak's retention, unless the environment says otherwise: messages only
 * as long as a decision may need them (no floor, the strictest setting),
 * everything else a day after it is over.
 */
function retentionEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { [RETENTION_ENV.messagesDays]: '0' };
  for (const key of ['runsDays', 'delegationsDays', 'holdsDays', 'auditDays'] as const) env[RETENTION_ENV[key]] = '1';
  for (const [k, v] of Object.entries(process.env)) if (k.startsWith('PLANGATE_RETAIN_') || k.startsWith('PLANGATE_PRUNE_')) env[k] = v;
  return env;
}

export interface Flatness {
  referenceDay: number;
  sizeRatio: number;
  p99Ratio: number;
  pass: boolean;
}

/**
 * The last day against the day after the first retention cycle (the first
 * day on which every kind had been pruned); undefined when some kind was
 * never pruned or the soak ends before that day.
 */
export function flatness(r: SoakResult): Flatness | undefined {
  const firsts = (['messages', 'runs', 'delegations', 'holds'] as const).map((k) => r.firstPruned[k]);
  if (r.driver === 'postgres') firsts.push(r.firstPruned.audit);
  if (firsts.some((d) => d === undefined)) return undefined;
  const ref = r.days.find((d) => d.day === Math.max(...(firsts as number[])) + 1);
  const last = r.days.at(-1);
  if (!ref || !last) return undefined;
  const sizeRatio = Math.round((last.bytes / ref.bytes) * 100) / 100;
  const p99Ratio = Math.round((last.p99 / ref.p99) * 100) / 100;
  return { referenceDay: ref.day, sizeRatio, p99Ratio, pass: sizeRatio <= SIZE_FLAT && p99Ratio <= P99_FLAT };
}

function table(r: SoakResult): string {
  const lines = [`${r.driver}: day  size MiB   messages     runs  delegations  holds  hold_msgs${r.driver === 'postgres' ? '   audit' : ''}  decisions  p50 µs  p99 µs  pruned  wall s`];
  for (const d of r.days) {
    lines.push([
      `${''.padEnd(r.driver.length + 1)} ${String(d.day).padStart(4)}`, (d.bytes / 2 ** 20).toFixed(2).padStart(9),
      String(d.rows['messages']).padStart(10), String(d.rows['runs']).padStart(8), String(d.rows['delegations']).padStart(12),
      String(d.rows['holds']).padStart(6), String(d.rows['hold_messages']).padStart(10),
      ...(r.driver === 'postgres' ? [String(d.rows['audit_events']).padStart(7)] : []),
      String(d.decisions).padStart(10), String(d.p50).padStart(7), String(d.p99).padStart(7), String(Object.values(d.pruned).reduce((a, b) => a + b, 0)).padStart(7), String(d.wallS).padStart(7),
    ].join(' '));
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const env = retentionEnv();
  const base = process.env['PLANGATE_BENCH_POSTGRES'] || process.env['PLANGATE_TEST_POSTGRES'] || undefined;
  const common: Omit<SoakOptions, 'driver'> = {
    agents: whole('SOAK_AGENTS', 1000), days: whole('SOAK_DAYS', 7), sessionsPerDay: whole('SOAK_SESSIONS', 2), tickMin: whole('SOAK_TICK_MIN', 10),
    pruneEveryMin: pruneEveryMs(env) / 60_000 || 60, retention: retentionFromEnv(env),
    windowMin: 60, maxRunMin: 480, holdShare: 0.01, longRunShare: 0.1, probeAgents: 16, log,
  };
  log(`soak: ${common.agents} agents × ${common.sessionsPerDay} sessions a day for ${common.days} simulated days, a tick of ${common.tickMin} min, a prune every ${common.pruneEveryMin} min; retention ${JSON.stringify(common.retention)}`);
  const results: SoakResult[] = [await runSoak({ ...common, driver: 'sqlite' })];
  if (base) results.push(await runSoak({ ...common, driver: 'postgres', postgres: base }));
  else log('!!! PostgreSQL skipped: set PLANGATE_BENCH_POSTGRES (or PLANGATE_TEST_POSTGRES)');
  let ok = true;
  const out: string[] = [];
  const summary = results.map((r) => {
    const f = flatness(r);
    out.push(table(r));
    out.push(f
      ? `${r.driver}: last day / day ${f.referenceDay} (the day after the first retention cycle): size ${f.sizeRatio}× (target ≤ ${SIZE_FLAT}), p99 ${f.p99Ratio}× (target ≤ ${P99_FLAT}) ${f.pass ? 'PASS' : 'FAIL'}`
      : `${r.driver}: no day after the first retention cycle to compare (first pruned: ${JSON.stringify(r.firstPruned)}): run more days`);
    out.push(`${r.driver}: ${r.prunes} prunes; probe decisions before and after each: ${r.probes.checked} checked (${r.probes.allowed} allowed, ${r.probes.refused} refused), ${r.probes.mismatches.length} changed; ${r.failedOpen} failed open`);
    for (const m of r.probes.mismatches.slice(0, 5)) out.push(`  changed: ${m}`);
    if (!f?.pass || r.probes.mismatches.length > 0 || r.failedOpen > 0) ok = false;
    return { ...r, flatness: f };
  });
  process.stdout.write(`${out.join('\n')}\n`);
  const dir = join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const machine = { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? '?', node: process.version, platform: `${os.platform()} ${os.release()}`, loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100) };
  writeFileSync(join(dir, 'soak.json'), `${JSON.stringify({ at: new Date().toISOString(), machine, options: { ...common, log: undefined }, results: summary }, null, 2)}\n`);
  if (!ok) process.exitCode = 1;
}

await main();
