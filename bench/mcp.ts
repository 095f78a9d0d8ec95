/**
 * The MCP gateway benchmark (part of `npm run bench`; alone: `npm run bench:mcp`).
 *
 * In one run, with the SDK's Client in this process and the same upstream
 * (bench/mcp-upstream.ts, an SDK McpServer with one tool) in its own process:
 *   1. stdio: a `tools/call` straight to the upstream, against the same call
 *      through `plangate mcp --agent … -- <upstream>` (the gateway starts the
 *      upstream as its child) and through the floor (bench/mcp-proxy.ts, the
 *      SDK alone forwarding the call, deciding nothing); in rounds, one call
 *      at a time: each round is one call of each, in an order drawn at random
 *      every round, so all three see the machine as it is at that moment;
 *   2. Streamable HTTP: the same against `plangate mcp --listen` and the
 *      floor in front of the upstream over Streamable HTTP;
 * Added latency is given two ways, both checked against the target: the
 * difference of the percentiles (p99 through the gateway minus p99 direct)
 * and the percentiles of the per-round differences (gateway call minus the
 * direct call of the same round). The same two for the floor against direct
 * say what the SDK's extra hop costs by itself, and the gateway against the
 * floor what plangate adds to it.
 *   3. throughput of the Streamable HTTP gateway with 32 concurrent sessions
 *      (32 seats, each with its own token and client), and of the floor and
 *      the upstream directly with 32 sessions, for scale.
 * With MCP_BENCH_INSTANCES=k, the floor and each gateway run as k processes
 * each, every round calls each of them once, and each way's samples are
 * pooled over its k processes: one process of the same code differs from
 * another by up to 20 µs at p50 over stdio (where its code and heap fall in
 * memory), which the pooled figures average out.
 * The gateway decides every call in full: the tool is an effect under
 * side_effects mode and each seat has a fresh plan in an SQLite store.
 * Writes bench/results/mcp.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isolatedFetch } from './isolated-fetch.js';
import { openPlangate } from '../src/main/open.js';
import { emptyTally, percentile, round, shuffled, summarize, type Samples, type Summary } from './stats.js';
import { prng } from '../test/support/rng.js';

const ROOT = join(import.meta.dirname, '..');
/** The CLI from the sources (as bench/http.ts runs it), so no build is needed. */
const CLI = join(ROOT, 'test', 'http', 'cli-child.ts');
const UPSTREAM = join(import.meta.dirname, 'mcp-upstream.ts');
const PROXY = join(import.meta.dirname, 'mcp-proxy.ts');
const SESSIONS = 32;
const CALLS = Number(process.env['MCP_BENCH_CALLS'] ?? 4000);
const WARMUP = 500;
const THROUGHPUT_MS = Number(process.env['MCP_BENCH_THROUGHPUT_MS'] ?? 10_000);
/** Rounds of the 1 MiB result. */
const BIG_CALLS = Number(process.env['MCP_BENCH_BIG_CALLS'] ?? 200);
/**
 * Another checkout of plangate (e.g. a `git worktree` of main) whose gateway is measured in the
 * same rounds, beside this one's: `MCP_BENCH_BASE=/path/to/checkout`.
 */
const BASE = process.env['MCP_BENCH_BASE'];
const BASE_CLI = BASE ? join(BASE, 'test', 'http', 'cli-child.ts') : undefined;
/** Processes of the floor and of each gateway in the one-call-at-a-time rounds (see the top). */
const INSTANCES = Math.max(1, Number(process.env['MCP_BENCH_INSTANCES'] ?? 1));
/** The seed of the rounds' order (MCP_BENCH_SEED to draw another). */
const ROUND_ORDER_SEED = Number(process.env['MCP_BENCH_SEED'] ?? 27);

const RULES = `
planRequired:
  workspace: { mode: side_effects, windowMin: 60 }
`;

interface Log {
  (text: string): void;
}

function seat(i: number): string {
  return `0xB${String(i).padStart(2, '0')}`;
}

function token(i: number): string {
  return `bench-token-${String(i).padStart(2, '0')}-0123456789abcdef`;
}

async function world(dir: string, open: typeof openPlangate = openPlangate): Promise<{ rules: string; store: string; audit: string }> {
  mkdirSync(dir, { recursive: true });
  const rules = join(dir, 'rules');
  mkdirSync(rules);
  writeFileSync(join(rules, 'rules.yaml'), RULES);
  const paths = { rules, store: join(dir, 'plangate.db'), audit: join(dir, 'audit.jsonl') };
  const pg = await open({ ...paths, log: () => {} });
  for (let i = 0; i < SESSIONS; i++) {
    await pg.gate.say({ thread: `agent:${seat(i)}`, author: seat(i), authorKind: 'agent', kind: 'plan', body: 'echo for the benchmark' });
  }
  await pg.close();
  return paths;
}

function readLine(child: ChildProcess, stream: 'stdout' | 'stderr', pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let text = '';
    const s = child[stream];
    if (!s) return reject(new Error(`no ${stream}`));
    const on = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const m = pattern.exec(text);
      if (m) {
        s.off('data', on);
        resolve(m);
      }
    };
    s.on('data', on);
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${text}`)));
  });
}

async function httpClient(url: string, bearer?: string): Promise<Client> {
  const c = new Client({ name: 'bench', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: isolatedFetch, ...(bearer ? { requestInit: { headers: { authorization: `Bearer ${bearer}` } } } : {}) }));
  return c;
}

async function stdioClient(command: string, args: string[]): Promise<Client> {
  const c = new Client({ name: 'bench', version: '1' });
  await c.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
  return c;
}

async function echo(c: Client, i: number): Promise<void> {
  const r = await c.callTool({ name: 'echo', arguments: { text: `call ${i}` } });
  if (r.isError) throw new Error(`refused: ${JSON.stringify(r.structuredContent)}`);
}

async function big(c: Client): Promise<void> {
  const r = await c.callTool({ name: 'big', arguments: {} });
  if (r.isError) throw new Error(`refused: ${JSON.stringify(r.structuredContent)}`);
  const text = (r.content as Array<{ text?: string }>)[0]?.text;
  if (text?.length !== 1024 * 1024) throw new Error('the 1 MiB result came back cut');
}

type Op = (i: number) => Promise<void>;

/** Samples taken in rounds: `samples[k][i]` of every op k was taken in round i, one call right after the other. */
type Rounds<K extends string> = Record<K, Samples>;

/**
 * `n` rounds after `warmup` untimed ones: in each, one call of every op, one
 * at a time, in an order drawn at random each round (seeded, so a run can be
 * repeated), so that each op is as often first, second and third, follows
 * each other op as often, and all see the machine as it is at that moment.
 * (A rotating order would have each op always follow the same other one,
 * whose processes may still be finishing their work on the shared cores:
 * the same gateway measured in two slots then differed by 1.5× over stdio.)
 */
async function rounds<K extends string>(n: number, warmup: number, ops: Record<K, Op>): Promise<Rounds<K>> {
  const names = Object.keys(ops) as K[];
  for (let i = 0; i < warmup; i++) for (const k of names) await ops[k](i);
  const ns = Object.fromEntries(names.map((k) => [k, new Float64Array(n)])) as Record<K, Float64Array>;
  const cpu0 = process.cpuUsage();
  const start = process.hrtime.bigint();
  const random = prng(ROUND_ORDER_SEED);
  for (let i = 0; i < n; i++) {
    for (const k of shuffled(names, random)) {
      const t0 = process.hrtime.bigint();
      await ops[k](i);
      ns[k][i] = Number(process.hrtime.bigint() - t0);
    }
  }
  const wallNs = Number(process.hrtime.bigint() - start);
  const cpu = process.cpuUsage(cpu0);
  const sum = (a: Float64Array) => a.reduce((x, y) => x + y, 0);
  // The bench process's CPU over the whole loop, shared out by time: how much of a core it got.
  const cpuNs = (cpu.user + cpu.system) * 1000;
  return Object.fromEntries(names.map((k) => [k, { ns: ns[k], wallNs: sum(ns[k]), gc: emptyTally(), cpuNs: (cpuNs * sum(ns[k])) / wallNs }])) as Rounds<K>;
}

type Way = 'direct' | 'floor' | 'gateway' | 'base';

/** The rounds' ops: the direct call once, and each other way once per process (`floor#0`, `gateway#1`, …). */
function echoOps(direct: Client, ways: Partial<Record<Exclude<Way, 'direct'>, Client[]>>): Record<string, Op> {
  const ops: Record<string, Op> = { direct: (i) => echo(direct, i) };
  for (const [way, cs] of Object.entries(ways)) cs.forEach((c, j) => (ops[`${way}#${j}`] = (i) => echo(c, i)));
  return ops;
}

/**
 * Each way's samples pooled over its `k` processes, process by process in
 * the same order for every way, so that the per-round differences still pair
 * calls of the same round (the direct call's samples repeated to match).
 */
function pooled(r: Record<string, Samples>, k: number): Record<Way, Samples> {
  const out = {} as Record<Way, Samples>;
  for (const way of ['direct', 'floor', 'gateway', 'base'] as const) {
    const found = Array.from({ length: k }, (_, j) => r[way === 'direct' ? 'direct' : `${way}#${j}`]);
    if (found.some((p) => p === undefined)) continue;
    const parts = found as Samples[];
    const n = (parts[0] as Samples).ns.length;
    const ns = new Float64Array(n * k);
    let wallNs = 0;
    let cpuNs = 0;
    parts.forEach((p, j) => {
      ns.set(p.ns, j * n);
      wallNs += p.wallNs;
      cpuNs += p.cpuNs;
    });
    out[way] = { ns, wallNs, gc: emptyTally(), cpuNs };
  }
  return out;
}

/** k of the same thing, made one after the other. */
async function times<T>(k: number, make: () => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let j = 0; j < k; j++) out.push(await make());
  return out;
}

/** What `via` adds to `base`, µs: percentile differences, and percentiles of the differences within each round. */
function added(base: Samples, via: Samples) {
  const direct = summarize(base);
  const gateway = summarize(via);
  const sorted = via.ns.map((x, i) => x - (base.ns[i] as number)).sort();
  const us = (p: number) => round(percentile(sorted, p) / 1000);
  return {
    p50Us: round(gateway.p50 - direct.p50),
    p99Us: round(gateway.p99 - direct.p99),
    meanUs: round(gateway.mean - direct.mean),
    rounds: { p50Us: us(50), p90Us: us(90), p99Us: us(99) },
  };
}

/** Calls from `clients` concurrently for `ms`, each client one call at a time. */
async function throughput(clients: Client[], ms: number) {
  const lat: number[] = [];
  const end = Date.now() + ms;
  let calls = 0;
  const start = process.hrtime.bigint();
  await Promise.all(clients.map(async (c, k) => {
    for (let i = 0; Date.now() < end; i++) {
      const t0 = process.hrtime.bigint();
      await echo(c, k * 1_000_000 + i);
      lat.push(Number(process.hrtime.bigint() - t0) / 1000);
      calls++;
    }
  }));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const sorted = Float64Array.from(lat).sort();
  return { sessions: clients.length, calls, seconds: round(seconds), callsPerSec: round(calls / seconds, 0), p50Us: round(percentile(sorted, 50)), p99Us: round(percentile(sorted, 99)) };
}

export async function runMcpBench({ log }: { log: Log }) {
  const dir = mkdtempSync(join(os.tmpdir(), 'plangate-mcp-bench-'));
  const children: ChildProcess[] = [];
  const clients: Client[] = [];
  const loadAtStart = os.loadavg().map((x) => round(x));
  try {
    const w = await world(dir);
    const global = ['--rules', w.rules, '--store', w.store, '--audit', w.audit];
    // The other checkout opens a store of its own: its migrations may be older than this one's.
    const baseOpen = BASE ? ((await import(join(BASE, 'src', 'main', 'open.ts'))) as { openPlangate: typeof openPlangate }).openPlangate : undefined;
    const bw = baseOpen ? await world(join(dir, 'base'), baseOpen) : w;
    const baseGlobal = ['--rules', bw.rules, '--store', bw.store, '--audit', bw.audit];

    log('mcp: stdio, direct vs through plangate mcp');
    const directStdio = await stdioClient(process.execPath, ['--import', 'tsx', UPSTREAM, 'stdio']);
    const gatedStdios = await times(INSTANCES, () => stdioClient(process.execPath, ['--import', 'tsx', CLI, ...global, 'mcp', '--agent', seat(0), '--', process.execPath, '--import', 'tsx', UPSTREAM, 'stdio']));
    const floorStdios = await times(INSTANCES, () => stdioClient(process.execPath, ['--import', 'tsx', PROXY, 'stdio', process.execPath, '--import', 'tsx', UPSTREAM, 'stdio']));
    const baseStdios = BASE_CLI ? await times(INSTANCES, () => stdioClient(process.execPath, ['--import', 'tsx', BASE_CLI, ...baseGlobal, 'mcp', '--agent', seat(1), '--', process.execPath, '--import', 'tsx', UPSTREAM, 'stdio'])) : undefined;
    clients.push(directStdio, ...gatedStdios, ...floorStdios, ...(baseStdios ?? []));
    const [gatedStdio, floorStdio, baseStdio] = [gatedStdios[0] as Client, floorStdios[0] as Client, baseStdios?.[0]];
    const stdio = pooled(await rounds(CALLS, WARMUP, echoOps(directStdio, { floor: floorStdios, gateway: gatedStdios, ...(baseStdios ? { base: baseStdios } : {}) })), INSTANCES);
    log(`mcp: stdio, a 1 MiB result, ${BIG_CALLS} rounds`);
    const stdioBig = await rounds(BIG_CALLS, 20, {
      direct: () => big(directStdio), floor: () => big(floorStdio), gateway: () => big(gatedStdio),
      ...(baseStdio ? { base: () => big(baseStdio) } : {}),
    } as Record<'direct' | 'floor' | 'gateway' | 'base', Op>);

    log('mcp: Streamable HTTP, direct vs through plangate mcp --listen');
    const up = spawn(process.execPath, ['--import', 'tsx', UPSTREAM, 'http'], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(up);
    const upUrl = (await readLine(up, 'stdout', /(http:\S+)\n/))[1] as string;
    const tokens = Array.from({ length: SESSIONS }, (_, i) => `agent:${seat(i)}=${token(i)}`).join(',');
    /** A gateway of `cli` listening in front of the upstream; its URL. */
    const listening = async (cli: string, globalArgs: string[]): Promise<string> => {
      const gw = spawn(process.execPath, ['--import', 'tsx', cli, ...globalArgs, 'mcp', '--listen', '127.0.0.1:0', '--upstream', `bench=${upUrl}`], {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, PLANGATE_TOKENS: tokens },
      });
      children.push(gw);
      return (await readLine(gw, 'stderr', /serving (http:\S+) /))[1] as string;
    };
    /** The floor in front of the upstream; its URL. */
    const proxying = async (): Promise<string> => {
      const px = spawn(process.execPath, ['--import', 'tsx', PROXY, 'http', upUrl], { stdio: ['ignore', 'pipe', 'inherit'] });
      children.push(px);
      return (await readLine(px, 'stdout', /(http:\S+)\n/))[1] as string;
    };
    const gwUrls = await times(INSTANCES, () => listening(CLI, global));
    const pxUrls = await times(INSTANCES, proxying);
    const baseUrls = BASE_CLI ? await times(INSTANCES, () => listening(BASE_CLI, baseGlobal)) : undefined;
    const [gwUrl, pxUrl] = [gwUrls[0] as string, pxUrls[0] as string];
    const directHttp = await httpClient(upUrl);
    const gatedHttps = await Promise.all(gwUrls.map((u) => httpClient(u, token(0))));
    const floorHttps = await Promise.all(pxUrls.map((u) => httpClient(u)));
    const baseHttps = baseUrls ? await Promise.all(baseUrls.map((u) => httpClient(u, token(1)))) : undefined;
    clients.push(directHttp, ...gatedHttps, ...floorHttps, ...(baseHttps ?? []));
    const [gatedHttp, floorHttp, baseHttp] = [gatedHttps[0] as Client, floorHttps[0] as Client, baseHttps?.[0]];
    const http = pooled(await rounds(CALLS, WARMUP, echoOps(directHttp, { floor: floorHttps, gateway: gatedHttps, ...(baseHttps ? { base: baseHttps } : {}) })), INSTANCES);
    log(`mcp: Streamable HTTP, a 1 MiB result, ${BIG_CALLS} rounds`);
    const httpBig = await rounds(BIG_CALLS, 20, {
      direct: () => big(directHttp), floor: () => big(floorHttp), gateway: () => big(gatedHttp),
      ...(baseHttp ? { base: () => big(baseHttp) } : {}),
    } as Record<'direct' | 'floor' | 'gateway' | 'base', Op>);

    log(`mcp: throughput, ${SESSIONS} concurrent sessions, ${THROUGHPUT_MS / 1000} s each`);
    const directMany = await Promise.all(Array.from({ length: SESSIONS }, () => httpClient(upUrl)));
    const gatedMany = await Promise.all(Array.from({ length: SESSIONS }, (_, i) => httpClient(gwUrl, token(i))));
    const floorMany = await Promise.all(Array.from({ length: SESSIONS }, () => httpClient(pxUrl)));
    clients.push(...directMany, ...gatedMany, ...floorMany);
    await throughput(gatedMany, 1000);
    const gatewayTp = await throughput(gatedMany, THROUGHPUT_MS);
    await throughput(directMany, 1000);
    const directTp = await throughput(directMany, THROUGHPUT_MS);
    await throughput(floorMany, 1000);
    const floorTp = await throughput(floorMany, THROUGHPUT_MS);

    const s = {
      stdioDirect: summarize(stdio.direct), stdioFloor: summarize(stdio.floor), stdioGateway: summarize(stdio.gateway),
      httpDirect: summarize(http.direct), httpFloor: summarize(http.floor), httpGateway: summarize(http.gateway),
    };
    const results = {
      at: new Date().toISOString(),
      machine: { cpu: os.cpus()[0]?.model, cores: os.cpus().length, node: process.version, loadAtStart, loadAtEnd: os.loadavg().map((x) => round(x)) },
      calls: CALLS,
      instances: INSTANCES,
      latency: s,
      addedLatency: { stdio: added(stdio.direct, stdio.gateway), http: added(http.direct, http.gateway) },
      /** What the SDK alone adds (the floor against direct), and what plangate adds beyond it (the gateway against the floor). */
      floor: {
        stdio: { sdk: added(stdio.direct, stdio.floor), plangate: added(stdio.floor, stdio.gateway) },
        http: { sdk: added(http.direct, http.floor), plangate: added(http.floor, http.gateway) },
      },
      throughput: { gateway: gatewayTp, floor: floorTp, direct: directTp },
      /** The 1 MiB result: each way's latency, and what the gateway adds beside the floor. */
      big: {
        calls: BIG_CALLS,
        latency: {
          stdioDirect: summarize(stdioBig.direct), stdioFloor: summarize(stdioBig.floor), stdioGateway: summarize(stdioBig.gateway),
          httpDirect: summarize(httpBig.direct), httpFloor: summarize(httpBig.floor), httpGateway: summarize(httpBig.gateway),
        },
        stdio: { sdk: added(stdioBig.direct, stdioBig.floor), plangate: added(stdioBig.floor, stdioBig.gateway), ...(stdioBig.base ? { base: added(stdioBig.floor, stdioBig.base) } : {}) },
        http: { sdk: added(httpBig.direct, httpBig.floor), plangate: added(httpBig.floor, httpBig.gateway), ...(httpBig.base ? { base: added(httpBig.floor, httpBig.base) } : {}) },
      },
      /** The other checkout's gateway (MCP_BENCH_BASE) in the same rounds: what it adds beyond the floor. */
      ...(BASE ? {
        base: {
          checkout: BASE,
          latency: { stdio: summarize(stdio.base), http: summarize(http.base) },
          stdio: added(stdio.floor, stdio.base),
          http: added(http.floor, http.base),
        },
      } : {}),
      targets: {} as Record<string, boolean>,
    };
    for (const [name, a] of [['stdio', results.addedLatency.stdio], ['http', results.addedLatency.http]] as const) {
      results.targets[`${name} added p99 ≤ 1 ms (p99 through the gateway − p99 direct)`] = a.p99Us <= 1000;
      results.targets[`${name} added p99 ≤ 1 ms (p99 of the per-round differences)`] = a.rounds.p99Us <= 1000;
    }
    const outDir = new URL('./results/', import.meta.url);
    mkdirSync(outDir, { recursive: true });
    writeFileSync(new URL('mcp.json', outDir), `${JSON.stringify(results, null, 2)}\n`);
    return results;
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    for (const c of children) c.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

function addedLine(name: string, a: ReturnType<typeof added>): string {
  return `${name}: p50 ${a.p50Us} µs, p99 ${a.p99Us} µs (percentile differences); per-round differences p50 ${a.rounds.p50Us} µs, p90 ${a.rounds.p90Us} µs, p99 ${a.rounds.p99Us} µs`;
}

export function formatMcpBench(r: Awaited<ReturnType<typeof runMcpBench>>): string {
  const row = (name: string, x: Summary) => `${name.padEnd(34)}${String(x.n).padStart(7)}${String(x.p50).padStart(10)}${String(x.p90).padStart(10)}${String(x.p99).padStart(10)}${String(x.mean).padStart(10)}${String(Number.isNaN(x.cpuPct) ? '' : x.cpuPct).padStart(6)}`;
  const tp = (name: string, t: typeof r.throughput.gateway) => `${name.padEnd(34)}${String(t.sessions).padStart(4)} sessions ${String(t.calls).padStart(8)} calls ${String(t.callsPerSec).padStart(8)} calls/s  p50 ${t.p50Us} µs  p99 ${t.p99Us} µs`;
  return [
    '',
    `MCP gateway (µs; ${r.calls} rounds × ${r.instances} processes of each, one call at a time)    n       p50       p90       p99      mean  cpu%`,
    row('stdio, direct', r.latency.stdioDirect),
    row('stdio, the SDK alone (floor)', r.latency.stdioFloor),
    row('stdio, through plangate mcp', r.latency.stdioGateway),
    row('Streamable HTTP, direct', r.latency.httpDirect),
    row('Streamable HTTP, the SDK alone', r.latency.httpFloor),
    row('Streamable HTTP, through the gateway', r.latency.httpGateway),
    ...(['stdio', 'http'] as const).flatMap((k) => [
      addedLine(`added, ${k}, gateway − direct`, r.addedLatency[k]),
      addedLine(`added, ${k}, floor − direct`, r.floor[k].sdk),
      addedLine(`added, ${k}, gateway − floor`, r.floor[k].plangate),
      ...(r.base ? [addedLine(`added, ${k}, base gateway − floor`, r.base[k])] : []),
    ]),
    `1 MiB result (µs; ${r.big.calls} rounds)`,
    row('stdio, direct', r.big.latency.stdioDirect),
    row('stdio, the SDK alone (floor)', r.big.latency.stdioFloor),
    row('stdio, through plangate mcp', r.big.latency.stdioGateway),
    row('Streamable HTTP, direct', r.big.latency.httpDirect),
    row('Streamable HTTP, the SDK alone', r.big.latency.httpFloor),
    row('Streamable HTTP, through the gateway', r.big.latency.httpGateway),
    ...(['stdio', 'http'] as const).flatMap((k) => [
      addedLine(`1 MiB, ${k}, floor − direct`, r.big[k].sdk),
      addedLine(`1 MiB, ${k}, gateway − floor`, r.big[k].plangate),
      ...('base' in r.big[k] && r.big[k].base ? [addedLine(`1 MiB, ${k}, base gateway − floor`, r.big[k].base)] : []),
    ]),
    `load average ${r.machine.loadAtStart.join(' ')} at start, ${r.machine.loadAtEnd.join(' ')} at end`,
    tp('throughput, gateway', r.throughput.gateway),
    tp('throughput, the SDK alone (floor)', r.throughput.floor),
    tp('throughput, upstream directly', r.throughput.direct),
    ...Object.entries(r.targets).map(([k, v]) => `  ${v ? 'MET    ' : 'NOT MET'}  ${k}`),
    'written: bench/results/mcp.json',
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() as string)) {
  const log: Log = (t) => void process.stderr.write(`${t}\n`);
  process.stdout.write(formatMcpBench(await runMcpBench({ log })));
}
