/**
 * The HTTP benchmark (part of `npm run bench`; alone: `node --import tsx bench/http.ts`).
 *
 * In one run, with the same client (autocannon, in this process) and the same
 * decision input:
 *   1. `plangate serve` and `opa run -s` loaded with the bundle from
 *      `plangate compile`, both asked `POST /v1/data/plangate/decide` (the
 *      hot entrypoint) and `POST /v1/data/plangate/decision` (explain):
 *      requests/s and p50/p99 latency (target: plangate's throughput at least
 *      1.2× OPA's, p99 no worse);
 *   2. plangate's own route `POST /v1/decide` (facts gathered from SQLite),
 *      with the server's CPU per request (target ≤ 150 µs);
 *   3. the latency `POST /mcp/call` adds over calling the executor directly
 *      (one connection, so no queueing).
 * Each server runs in its own process; the rounds alternate the order.
 * Writes bench/results/http.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { findOpa, startOpaServer, waitFor } from '../test/http/opa-server.js';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'test', 'http', 'cli-child.ts');
const EXAMPLES = join(ROOT, 'examples', 'rules');

const POLICY_TOKEN = 'bench-policy-token-0123456789';
const WORKER_TOKEN = 'bench-worker-token-0123456789';
const NOW = Date.now();
const SEAT = { id: '0xWORKER', known: true, crews: ['trading', 'desk'] };
/** The decision both servers are asked: 0xWORKER merges a PR with a fresh plan in its crew's thread among a few other messages. */
const INPUT = {
  now: NOW,
  call: { agent: '0xWORKER', tool: 'github.merge_pull_request', runId: 'run-bench', delegatedBy: [] as string[] },
  agent: SEAT,
  upstream: [] as unknown[],
  messages: [
    { id: '3', thread: 'crew:trading', author: '0xWORKER', authorKind: 'agent', kind: 'plan', at: NOW - 2 * 60_000 },
    { id: '2', thread: 'agent:0xWORKER', author: '0xWORKER', authorKind: 'agent', kind: 'note', at: NOW - 5 * 60_000 },
    { id: '1', thread: 'org', author: '0xMGR', authorKind: 'agent', kind: 'plan', at: NOW - 20 * 60_000, runId: 'run-bench' },
  ],
};

export interface HttpBenchOptions {
  /** Seconds per measured run (default 10). */
  durationSec?: number;
  /** Seconds of warm-up per server, not measured (default 3). */
  warmupSec?: number;
  /** Concurrent connections for the throughput runs (default 32). */
  connections?: number;
  /** Alternating rounds (default 2). */
  rounds?: number;
  log?: (line: string) => void;
}

export interface Run {
  target: string;
  reqPerSec: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
  mean: number;
  max: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** CPU the server process used during the run, in cores (1.0 = one core busy); CPU per request = serverCores / reqPerSec. */
  serverCores: number | null;
}

export interface HttpBenchResult {
  date: string;
  machine: { cpu: string; cores: number; node: string; loadAvgAtStart: number[]; loadAvgAtEnd: number[] };
  settings: { durationSec: number; warmupSec: number; connections: number; rounds: number; client: string };
  opa: { version: string } | { skipped: string };
  rounds: Run[][];
  summary: Record<string, Omit<Run, 'target'>>;
  /** One connection, sequential requests: the executor called directly, through POST /mcp/call, and the difference. */
  mcpLatencyUs: { direct: LatencyUs; viaPlangate: LatencyUs; added: { p50: number; p99: number; mean: number } };
  targets: Record<string, { target: string; value: unknown; met: boolean | null }>;
}

/** Sequential requests per latency run, and warm-up requests. */
const LATENCY_REQUESTS = 5000;
const LATENCY_WARMUP = 1000;

/** Latency of sequential requests, µs. */
export interface LatencyUs {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  non2xx: number;
}

/** Target names, so the summary can be looked up by them. */
const OPA_HOT = 'opa run -s  /v1/data/plangate/decide';
const PG_HOT = 'plangate    /v1/data/plangate/decide';
const OPA_EXPLAIN = 'opa run -s  /v1/data/plangate/decision';
const PG_EXPLAIN = 'plangate    /v1/data/plangate/decision';
const PG_DECIDE = 'plangate    /v1/decide (SQLite facts)';
const TARGET_THROUGHPUT_RATIO = 1.2;
const TARGET_DECIDE_CPU_US = 150;

const round = (x: number, d = 2): number => Math.round(x * 10 ** d) / 10 ** d;

/** utime + stime of a process, in seconds (Linux /proc), or null. */
function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

async function measure(
  target: string,
  url: string,
  body: string,
  headers: Record<string, string>,
  o: { durationSec: number; connections: number },
  pid?: number,
): Promise<Run> {
  const cpu0 = cpuSeconds(pid);
  const r = await autocannon({ url, method: 'POST', body, headers: { 'content-type': 'application/json', ...headers }, connections: o.connections, duration: o.durationSec, pipelining: 1 });
  const cpu1 = cpuSeconds(pid);
  return {
    target,
    reqPerSec: round(r.requests.average, 0),
    p50: r.latency.p50,
    p99: r.latency.p99,
    mean: round(r.latency.mean, 3),
    max: r.latency.max,
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    serverCores: cpu0 !== null && cpu1 !== null ? round((cpu1 - cpu0) / r.duration, 2) : null,
  };
}

/** `n` requests one after another on one keep-alive connection, each timed with hrtime. */
async function sequential(url: string, body: string, headers: Record<string, string>, n: number): Promise<LatencyUs> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples = new Float64Array(n);
  let non2xx = 0;
  const payload = Buffer.from(body);
  try {
    for (let i = 0; i < n; i++) {
      const t0 = process.hrtime.bigint();
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': String(payload.length), ...headers } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(payload);
      });
      samples[i] = Number(process.hrtime.bigint() - t0) / 1000;
      if (status < 200 || status > 299) non2xx++;
    }
  } finally {
    agent.destroy();
  }
  samples.sort();
  const at = (p: number): number => samples[Math.min(n - 1, Math.ceil((p / 100) * n) - 1)] as number;
  return { n, p50: round(at(50), 1), p99: round(at(99), 1), mean: round(samples.reduce((a, x) => a + x, 0) / n, 1), non2xx };
}

function spawnLogged(cmd: string, args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => { output += c.toString(); });
  child.stderr!.on('data', (c: Buffer) => { output += c.toString(); });
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

/** An executor that answers every POST with a small JSON body, in its own process. */
const UPSTREAM = `
const http = require('node:http');
const s = http.createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"ok":true}'); }); });
s.listen(0, '127.0.0.1', () => process.stdout.write('PORT ' + s.address().port + '\\n'));
process.on('SIGTERM', () => s.close(() => process.exit(0)));
`;

async function portFrom(output: () => string, pattern: RegExp, what: string): Promise<string> {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const m = pattern.exec(output());
    if (m) return m[1] as string;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not start:\n${output()}`);
}

function mean(runs: Run[]): Omit<Run, 'target'> {
  const avg = (f: (r: Run) => number): number => round(runs.reduce((s, r) => s + f(r), 0) / runs.length, 2);
  const cores = runs.every((r) => r.serverCores !== null) ? avg((r) => r.serverCores as number) : null;
  return {
    reqPerSec: avg((r) => r.reqPerSec),
    p50: avg((r) => r.p50),
    p99: avg((r) => r.p99),
    mean: avg((r) => r.mean),
    max: Math.max(...runs.map((r) => r.max)),
    requests: runs.reduce((s, r) => s + r.requests, 0),
    non2xx: runs.reduce((s, r) => s + r.non2xx, 0),
    errors: runs.reduce((s, r) => s + r.errors, 0),
    serverCores: cores,
  };
}

/**
 * Runs the HTTP benchmark and writes bench/results/http.json.
 *
 * @example
 * const result = await runHttpBench({ durationSec: 10 });
 * console.log(formatHttpBench(result));
 */
export async function runHttpBench(options: HttpBenchOptions = {}): Promise<HttpBenchResult> {
  const durationSec = options.durationSec ?? 10;
  const warmupSec = options.warmupSec ?? 3;
  const connections = options.connections ?? 32;
  const rounds = options.rounds ?? 2;
  const log = options.log ?? ((s: string) => void process.stderr.write(`${s}\n`));
  const cpus = os.cpus();
  const machine = { cpu: cpus[0]?.model.trim() ?? 'unknown', cores: cpus.length, node: process.version, loadAvgAtStart: os.loadavg().map((x) => round(x)), loadAvgAtEnd: [] as number[] };
  const dir = mkdtempSync(join(os.tmpdir(), 'plangate-bench-http-'));
  const rules = join(dir, 'rules');
  cpSync(EXAMPLES, rules, { recursive: true });
  const children: ChildProcess[] = [];
  const opaBin = findOpa();
  let opaServer: Awaited<ReturnType<typeof startOpaServer>> | undefined;
  try {
    log('http bench: starting the executor, plangate serve and opa run -s …');
    const upstream = spawnLogged(process.execPath, ['-e', UPSTREAM], {});
    children.push(upstream.child);
    const upstreamUrl = `http://127.0.0.1:${await portFrom(upstream.output, /PORT (\d+)/, 'the executor')}`;
    writeFileSync(join(dir, 'executors.json'), JSON.stringify({ tools: { 'github.*': `${upstreamUrl}/github` } }));

    const pg = spawnLogged(process.execPath, ['--import', 'tsx', CLI, 'serve', '--port', '0', '--executors', join(dir, 'executors.json')], {
      PLANGATE_RULES: rules,
      PLANGATE_STORE: join(dir, 'store.db'),
      PLANGATE_AUDIT: join(dir, 'audit.jsonl'),
      PLANGATE_TOKENS: `policy=${POLICY_TOKEN} agent:0xWORKER=${WORKER_TOKEN}`,
    });
    children.push(pg.child);
    const pgUrl = await portFrom(pg.output, /serving (http:\/\/\S+) /, 'plangate serve');
    await waitFor(`${pgUrl}/health`);
    // The plan /v1/decide and /mcp/call find (tagged with the run: it counts however long the bench takes).
    const said = await fetch(`${pgUrl}/v1/say`, {
      method: 'POST',
      headers: { authorization: `Bearer ${WORKER_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ thread: 'agent:0xWORKER', kind: 'plan', body: 'merge PR 12 once CI is green', runId: 'run-bench' }),
    });
    if (said.status !== 201) throw new Error(`say failed: ${said.status}`);
    if (opaBin) opaServer = await startOpaServer(opaBin, rules);

    const dataBody = JSON.stringify({ input: INPUT });
    const decideBody = JSON.stringify({ tool: 'github.merge_pull_request', runId: 'run-bench' });
    const mcpBody = JSON.stringify({ name: 'github.merge_pull_request', arguments: { pr: 12 }, runId: 'run-bench' });
    const directBody = JSON.stringify({ name: 'github.merge_pull_request', arguments: { pr: 12 }, agent: '0xWORKER', runId: 'run-bench' });
    const policyAuth = { authorization: `Bearer ${POLICY_TOKEN}` };
    const workerAuth = { authorization: `Bearer ${WORKER_TOKEN}` };

    // Same answer from both before measuring anything.
    const ask = async (url: string, headers: Record<string, string>) =>
      (await (await fetch(url, { method: 'POST', body: dataBody, headers: { 'content-type': 'application/json', ...headers } })).json()) as { result?: { allowed?: boolean } };
    const mine = await ask(`${pgUrl}/v1/data/plangate/decision`, policyAuth);
    if (mine.result?.allowed !== true) throw new Error(`unexpected plangate answer: ${JSON.stringify(mine).slice(0, 200)}`);
    const decided = (await (await fetch(`${pgUrl}/v1/decide`, { method: 'POST', body: decideBody, headers: { 'content-type': 'application/json', ...workerAuth } })).json()) as { allowed?: boolean };
    if (decided.allowed !== true) throw new Error(`unexpected /v1/decide answer: ${JSON.stringify(decided).slice(0, 200)}`);
    const executed = await fetch(`${pgUrl}/mcp/call`, { method: 'POST', body: mcpBody, headers: { 'content-type': 'application/json', ...workerAuth } });
    if (executed.status !== 200) throw new Error(`unexpected /mcp/call answer: ${executed.status} ${(await executed.text()).slice(0, 200)}`);
    if (opaServer) {
      for (const path of ['plangate/decision', 'plangate/decide']) {
        const theirs = await ask(`${opaServer.url}/v1/data/${path}`, {});
        const ours = await ask(`${pgUrl}/v1/data/${path}`, policyAuth);
        if (JSON.stringify(sortKeys(theirs)) !== JSON.stringify(sortKeys(ours))) throw new Error(`plangate and opa answer the bench decision differently on ${path}`);
      }
    }

    type Target = { name: string; url: string; body: string; headers: Record<string, string>; pid: number | undefined };
    const targets: Target[] = [
      ...(opaServer ? [{ name: OPA_HOT, url: `${opaServer.url}/v1/data/plangate/decide`, body: dataBody, headers: {}, pid: opaServer.process.pid }] : []),
      { name: PG_HOT, url: `${pgUrl}/v1/data/plangate/decide`, body: dataBody, headers: policyAuth, pid: pg.child.pid },
      ...(opaServer ? [{ name: OPA_EXPLAIN, url: `${opaServer.url}/v1/data/plangate/decision`, body: dataBody, headers: {}, pid: opaServer.process.pid }] : []),
      { name: PG_EXPLAIN, url: `${pgUrl}/v1/data/plangate/decision`, body: dataBody, headers: policyAuth, pid: pg.child.pid },
      { name: PG_DECIDE, url: `${pgUrl}/v1/decide`, body: decideBody, headers: workerAuth, pid: pg.child.pid },
    ];
    for (const t of targets) {
      log(`  warm-up ${warmupSec} s: ${t.name}`);
      await measure(t.name, t.url, t.body, t.headers, { durationSec: warmupSec, connections });
    }
    const roundsRuns: Run[][] = [];
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 === 0 ? targets : [...targets].reverse();
      const runs: Run[] = [];
      for (const t of order) {
        log(`  round ${i + 1}/${rounds}: ${t.name}, ${connections} connections, ${durationSec} s`);
        runs.push(await measure(t.name, t.url, t.body, t.headers, { durationSec, connections }, t.pid));
      }
      roundsRuns.push(runs);
    }

    // /mcp/call over a direct call to the executor: one keep-alive connection, one request at a time, timed in µs.
    const direct = { name: 'executor directly', url: `${upstreamUrl}/github`, body: directBody, headers: {} };
    const via = { name: 'plangate /mcp/call', url: `${pgUrl}/mcp/call`, body: mcpBody, headers: workerAuth };
    const latency: Record<string, LatencyUs[]> = { [direct.name]: [], [via.name]: [] };
    for (const t of [direct, via]) await sequential(t.url, t.body, t.headers, LATENCY_WARMUP);
    for (let i = 0; i < 4; i++) {
      const t = i % 2 === 0 ? direct : via;
      log(`  ${t.name}: ${LATENCY_REQUESTS} sequential requests on one connection`);
      latency[t.name]!.push(await sequential(t.url, t.body, t.headers, LATENCY_REQUESTS));
    }

    const byTarget = new Map<string, Run[]>();
    for (const run of roundsRuns.flat()) byTarget.set(run.target, [...(byTarget.get(run.target) ?? []), run]);
    const summary = Object.fromEntries([...byTarget].map(([k, v]) => [k, mean(v)]));
    const avgUs = (xs: LatencyUs[]): LatencyUs => ({
      n: xs.reduce((a, x) => a + x.n, 0),
      p50: round(xs.reduce((a, x) => a + x.p50, 0) / xs.length, 1),
      p99: round(xs.reduce((a, x) => a + x.p99, 0) / xs.length, 1),
      mean: round(xs.reduce((a, x) => a + x.mean, 0) / xs.length, 1),
      non2xx: xs.reduce((a, x) => a + x.non2xx, 0),
    });
    const d = avgUs(latency[direct.name]!);
    const v = avgUs(latency[via.name]!);
    const mcpLatencyUs = { direct: d, viaPlangate: v, added: { p50: round(v.p50 - d.p50, 1), p99: round(v.p99 - d.p99, 1), mean: round(v.mean - d.mean, 1) } };
    const o = opaServer ? summary[OPA_HOT] : undefined;
    const p = summary[PG_HOT]!;
    const oe = opaServer ? summary[OPA_EXPLAIN] : undefined;
    const pe = summary[PG_EXPLAIN]!;
    const cpuUs = (x: Omit<Run, 'target'>): number | null => (x.serverCores === null ? null : Math.round((x.serverCores * 1e6) / x.reqPerSec));
    const decideCpu = cpuUs(summary[PG_DECIDE]!);
    machine.loadAvgAtEnd = os.loadavg().map((x) => round(x));
    const result: HttpBenchResult = {
      date: new Date().toISOString(),
      machine,
      settings: { durationSec, warmupSec, connections, rounds, client: `autocannon ${readVersion('autocannon')} (in the bench process)` },
      opa: opaBin ? { version: opaBin.version } : { skipped: 'no opa binary found (.tools/bin/opa or opa on PATH)' },
      rounds: roundsRuns,
      summary,
      mcpLatencyUs,
      targets: {
        throughput: { target: `plangate req/s ≥ ${TARGET_THROUGHPUT_RATIO}× opa run -s req/s (data API, hot entrypoint plangate/decide, same decision)`, value: o ? { plangate: p.reqPerSec, opa: o.reqPerSec, ratio: round(p.reqPerSec / o.reqPerSec) } : null, met: o ? p.reqPerSec >= TARGET_THROUGHPUT_RATIO * o.reqPerSec : null },
        p99: { target: 'plangate p99 ≤ opa run -s p99 (data API, hot entrypoint)', value: o ? { plangate: p.p99, opa: o.p99 } : null, met: o ? p.p99 <= o.p99 : null },
        throughputExplain: { target: `plangate req/s ≥ ${TARGET_THROUGHPUT_RATIO}× opa run -s req/s (data API, explain entrypoint plangate/decision)`, value: oe ? { plangate: pe.reqPerSec, opa: oe.reqPerSec, ratio: round(pe.reqPerSec / oe.reqPerSec) } : null, met: oe ? pe.reqPerSec >= TARGET_THROUGHPUT_RATIO * oe.reqPerSec : null },
        decideCpu: { target: `POST /v1/decide server CPU ≤ ${TARGET_DECIDE_CPU_US} µs per request`, value: decideCpu, met: decideCpu === null ? null : decideCpu <= TARGET_DECIDE_CPU_US },
      },
    };
    const out = new URL('./results/', import.meta.url);
    mkdirSync(out, { recursive: true });
    writeFileSync(new URL('http.json', out), `${JSON.stringify(result, null, 2)}\n`);
    return result;
  } finally {
    await opaServer?.close();
    for (const c of children) await stop(c);
    rmSync(dir, { recursive: true, force: true });
  }
}

function readVersion(pkg: string): string {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]));
  return value;
}

/** The result as a table for people. */
export function formatHttpBench(r: HttpBenchResult): string {
  const pad = (s: string | number, n: number): string => String(s).padStart(n);
  const lines = [
    '',
    `plangate HTTP bench  ${r.date}`,
    `machine: ${r.machine.cpu} · ${r.machine.cores} cores · Node ${r.machine.node} · load ${r.machine.loadAvgAtStart[0]} → ${r.machine.loadAvgAtEnd[0]}`,
    `client:  ${r.settings.client}; ${r.settings.connections} connections × ${r.settings.durationSec} s per run, ${r.settings.rounds} alternating rounds, ${r.settings.warmupSec} s warm-up; opa ${'version' in r.opa ? r.opa.version : r.opa.skipped}`,
    '',
    `${'mean over runs'.padEnd(42)}${pad('req/s', 9)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('mean ms', 9)}${pad('max ms', 9)}${pad('non2xx', 8)}${pad('cores', 7)}${pad('CPU µs/req', 12)}`,
    ...Object.entries(r.summary).map(([k, s]) => `${k.padEnd(42)}${pad(s.reqPerSec, 9)}${pad(s.p50, 9)}${pad(s.p99, 9)}${pad(s.mean, 9)}${pad(s.max, 9)}${pad(s.non2xx, 8)}${pad(s.serverCores ?? '-', 7)}${pad(s.serverCores === null ? '-' : Math.round((s.serverCores * 1e6) / s.reqPerSec), 12)}`),
    '',
    `one connection, sequential (µs)          ${pad('n', 7)}${pad('p50', 9)}${pad('p99', 9)}${pad('mean', 9)}${pad('non2xx', 8)}`,
    ...([['executor directly', r.mcpLatencyUs.direct], ['plangate POST /mcp/call', r.mcpLatencyUs.viaPlangate]] as const).map(([k, x]) => `${k.padEnd(41)}${pad(x.n, 7)}${pad(x.p50, 9)}${pad(x.p99, 9)}${pad(x.mean, 9)}${pad(x.non2xx, 8)}`),
    `POST /mcp/call adds over calling the executor directly: p50 ${r.mcpLatencyUs.added.p50} µs, p99 ${r.mcpLatencyUs.added.p99} µs, mean ${r.mcpLatencyUs.added.mean} µs`,
    'targets:',
    ...Object.entries(r.targets).map(([k, t]) => `  ${t.met === null ? 'SKIPPED' : t.met ? 'MET    ' : 'NOT MET'}  ${k}: ${t.target} → ${JSON.stringify(t.value)}`),
    'written: bench/results/http.json',
  ];
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const num = (name: string): number | undefined => (process.env[name] ? Number(process.env[name]) : undefined);
  runHttpBench({
    ...(num('BENCH_HTTP_SECONDS') !== undefined ? { durationSec: num('BENCH_HTTP_SECONDS') as number } : {}),
    ...(num('BENCH_HTTP_CONNECTIONS') !== undefined ? { connections: num('BENCH_HTTP_CONNECTIONS') as number } : {}),
  }).then(
    (r) => process.stdout.write(formatHttpBench(r)),
    (error: unknown) => {
      process.stderr.write(`http bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
}
