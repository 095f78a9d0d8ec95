/**
 * `plangate serve` replicas for the PostgreSQL bench (bench/postgres.ts):
 * started as child processes on one store, driven over HTTP by autocannon
 * in this process, with the CPU each process used over a run (each replica,
 * the PostgreSQL server with its backends, the client) read from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import type pg from 'pg';
import { round } from './stats.js';

const CLI = join(import.meta.dirname, '..', 'test', 'http', 'cli-child.ts');

export interface Replica { child: ChildProcess; url: string; stop(): Promise<void> }

export async function startReplica(store: string, rules: string, tokens: string): Promise<Replica> {
  const env = { PATH: process.env['PATH'], PLANGATE_RULES: rules, PLANGATE_STORE: store, PLANGATE_PORT: '0', PLANGATE_TOKENS: tokens };
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /serving (http:\/\/\S+) /.exec(err);
      if (m) resolve(m[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}:\n${err}`)));
  });
  return {
    child,
    url,
    stop: () => new Promise<void>((r) => {
      if (child.exitCode !== null) return r();
      child.once('exit', () => r());
      child.kill('SIGTERM');
    }),
  };
}

/** CPU seconds (user and system) a live process has used. */
function cpuSeconds(pid: number | undefined): number {
  const f = pid === undefined ? undefined : statFields(pid);
  return f ? (Number(f[11]) + Number(f[12])) / 100 : NaN;
}

/** Fields of /proc/PID/stat after the command name (field 3 is index 0). */
function statFields(pid: string | number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of one PostgreSQL server: its postmaster (with the children it
 * has reaped: backends that ended) and every live child. Each backend's CPU
 * is counted once, live or reaped, so the difference of two readings is the
 * CPU the server used in between.
 */
function postgresCpuSeconds(postmaster: number): number {
  const pm = statFields(postmaster);
  if (!pm) return NaN;
  let total = (Number(pm[11]) + Number(pm[12]) + Number(pm[13]) + Number(pm[14])) / 100;
  for (const pid of readdirPids()) {
    const f = statFields(pid);
    if (f && Number(f[1]) === postmaster) total += (Number(f[11]) + Number(f[12])) / 100;
  }
  return total;
}

/** The postmaster of the server behind `pool`: the parent of our backend. */
export async function postmasterOf(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query('SELECT pg_backend_pid() AS pid');
  return Number(statFields(rows[0].pid as number)?.[1]);
}

function readdirPids(): string[] {
  try {
    return readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
}

export interface HttpRun {
  replicas: number;
  decisionsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  /** CPU used over the run, in cores: each replica, all PostgreSQL processes, the client (this process). */
  cores: { replicas: number[]; postgres: number; client: number };
}

export async function httpRun(urls: string[], pids: Array<number | undefined>, tokens: string[], seconds: number, connections: number, postmaster: number): Promise<HttpRun> {
  const before = pids.map(cpuSeconds);
  const pg0 = postgresCpuSeconds(postmaster);
  const me0 = process.cpuUsage();
  let k = 0;
  const r = await autocannon({
    url: urls.length === 1 ? urls[0] as string : urls,
    connections,
    duration: seconds,
    requests: [{
      method: 'POST',
      path: '/v1/decide',
      setupRequest: (req: Record<string, unknown>) => ({
        ...req,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[k++ % tokens.length]}` },
        body: JSON.stringify({ tool: 'github.merge_pull_request' }),
      }),
    }],
  } as unknown as autocannon.Options);
  const me = process.cpuUsage(me0);
  const wall = r.duration;
  return {
    replicas: urls.length,
    decisionsPerSec: round(r.requests.average, 0),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    cores: {
      replicas: pids.map((p, i) => round((cpuSeconds(p) - (before[i] as number)) / wall, 2)),
      postgres: round((postgresCpuSeconds(postmaster) - pg0) / wall, 2),
      client: round((me.user + me.system) / 1e6 / wall, 2),
    },
  };
}

/** The mean of several runs of one configuration (latencies: the mean of their percentiles). */
export function mergeRuns(runs: HttpRun[]): HttpRun & { rounds: HttpRun[] } {
  const mean = (f: (r: HttpRun) => number) => round(runs.reduce((t, r) => t + f(r), 0) / runs.length, 2);
  const first = runs[0] as HttpRun;
  return {
    replicas: first.replicas,
    decisionsPerSec: Math.round(mean((r) => r.decisionsPerSec)),
    p50Ms: mean((r) => r.p50Ms),
    p99Ms: mean((r) => r.p99Ms),
    non2xx: runs.reduce((t, r) => t + r.non2xx, 0),
    errors: runs.reduce((t, r) => t + r.errors, 0),
    cores: {
      replicas: first.cores.replicas.map((_, i) => mean((r) => r.cores.replicas[i] as number)),
      postgres: mean((r) => r.cores.postgres),
      client: mean((r) => r.cores.client),
    },
    rounds: runs,
  };
}
