/**
 * npm run bench:hook — what an agent host's pre-tool hook costs per tool
 * call, three ways, on the same Claude Code payloads (a refused Write and an
 * allowed read):
 *
 * - `POST /v1/hooks/claude-code` to a running `plangate serve`, from a
 *   client on the same machine (a keep-alive connection, as Claude Code's
 *   `type: "http"` hook holds one): target p99 ≤ 5 ms;
 * - `bin/plangate-hook-forward claude-code`, the sh + curl command for
 *   command-only hosts, one process per call: target p99 ≤ 30 ms;
 * - `plangate hook --format claude-code`, one Node process per call (start,
 *   open the rules, the policy and the SQLite store, decide, answer),
 *   against Node's own start (`node -e 0`): target p50 ≤ Node's + 60 ms.
 *
 * Runs the built CLI (bin/plangate.js over dist/), as a host does: `npm run
 * build` first. BENCH_HOOK_RUNS (default 40) sets the process runs,
 * BENCH_HOOK_FORWARD_RUNS (default 200) the forwarder's, BENCH_HOOK_HTTP_RUNS
 * (default 4000) the requests.
 *
 * The process forms run in turn (node, hook, node, hook, …), so that a
 * machine whose load drifts slows each alike, and the hook's cost over
 * Node's start is also given as the median of each pair's difference.
 * BENCH_HOOK_COMPARE=<another built plangate checkout> times that
 * checkout's forwarder and hook in the same turns, for a before/after in
 * one run (against this checkout's service).
 *
 * @example
 * npm run build && npm run bench:hook
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { percentile, round } from './stats.js';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'plangate.js');
const RUNS = Number(process.env['BENCH_HOOK_RUNS'] ?? 40);
const FORWARD_RUNS = Number(process.env['BENCH_HOOK_FORWARD_RUNS'] ?? 200);
const HTTP_RUNS = Number(process.env['BENCH_HOOK_HTTP_RUNS'] ?? 4000);
const TOKEN = 'bench-hook-worker-token-0123456789';

function payload(tool: string, input: object): string {
  return JSON.stringify({
    session_id: 'bench', transcript_path: '/tmp/transcript', cwd: '/tmp', permission_mode: 'default',
    hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: 'tool-1',
  });
}

/** The payloads every form is timed on, alternately, with how to tell its answer. */
const CALLS = [
  { stdin: payload('Write', { file_path: '/tmp/x', content: 'hi' }), ok: (out: string) => out.includes('"deny"') },
  { stdin: payload('github.get_issue', { number: 1 }), ok: (out: string) => out.startsWith('{') && !out.includes('"deny"') },
];

/** A process form: its command line, environment and the calls it is given (each in turn on stdin). */
interface Form { command: string; args: string[]; env: NodeJS.ProcessEnv; calls?: typeof CALLS }

/** Wall time in ms of one run of a form with its `i`-th call; checks the answer. */
function runOnce(form: Form, i: number): number {
  const calls = form.calls ?? CALLS;
  const call = calls[i % calls.length]!;
  const t0 = process.hrtime.bigint();
  const r = spawnSync(form.command, form.args, { input: call.stdin, encoding: 'utf8', env: form.env });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 || !call.ok(r.stdout)) throw new Error(`${form.command} ${form.args.join(' ')} answered ${r.status}: ${r.stdout}${r.stderr}`);
  return ms;
}

/** Wall times in ms of `n` runs of each form, the forms in turn (A B C A B C …), unsorted (pairs line up). */
function timeInTurn(n: number, forms: Form[]): Float64Array[] {
  const out = forms.map(() => new Float64Array(n));
  for (let i = 0; i < n; i++) forms.forEach((form, f) => { out[f]![i] = runOnce(form, i); });
  return out;
}

const sorted = (ms: Float64Array): Float64Array => Float64Array.from(ms).sort();

/** The median of the pairwise differences a[i] − b[i]. */
function pairedMedian(a: Float64Array, b: Float64Array): number {
  return percentile(sorted(a.map((v, i) => v - (b[i] as number))), 50);
}

/** Wall times in ms of `n` hook requests over one keep-alive connection, after a warm-up. */
async function timeHttp(n: number, url: string): Promise<Float64Array> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const post = (body: string) => new Promise<string>((resolve, reject) => {
    const req = http.request(`${url}/v1/hooks/claude-code`, { method: 'POST', agent, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`HTTP ${res.statusCode}: ${text}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
  for (let i = 0; i < 200; i++) await post(CALLS[i % CALLS.length]!.stdin);
  const ms = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const call = CALLS[i % CALLS.length]!;
    const t0 = process.hrtime.bigint();
    const out = await post(call.stdin);
    ms[i] = Number(process.hrtime.bigint() - t0) / 1e6;
    if (!call.ok(out)) throw new Error(`POST /v1/hooks/claude-code answered ${out}`);
  }
  agent.destroy();
  return ms.sort();
}

/** Starts the built `plangate serve` on a free loopback port; its URL and a stop. */
async function startServe(env: NodeJS.ProcessEnv): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /serving (http:\/\/\S+) /.exec(err);
      if (m) resolve(m[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`plangate serve exited ${code}: ${err}`)));
  });
  return { url, stop: () => void child.kill('SIGTERM') };
}

function row(name: string, ms: Float64Array): string {
  const cell = (v: number) => String(round(v, 1)).padStart(8);
  return `${name.padEnd(46)}${String(ms.length).padStart(6)}${cell(percentile(ms, 50))}${cell(percentile(ms, 90))}${cell(percentile(ms, 99))}${cell(ms[ms.length - 1] as number)}`;
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist', 'adapters', 'cli', 'main.js'))) throw new Error('bench:hook runs the built CLI: npm run build first');
  const dir = mkdtempSync(join(os.tmpdir(), 'plangate-bench-hook-'));
  cpSync(join(ROOT, 'examples', 'rules'), join(dir, 'rules'), { recursive: true });
  const paths = { PLANGATE_RULES: join(dir, 'rules'), PLANGATE_STORE: join(dir, 'store.db'), PLANGATE_AUDIT: join(dir, 'audit.jsonl') };
  const serve = await startServe({ PATH: process.env['PATH'], ...paths, PLANGATE_PORT: '0', PLANGATE_TOKENS: `agent:0xWORKER=${TOKEN}` });
  try {
    const viaHttp = await timeHttp(HTTP_RUNS, serve.url);
    const other = process.env['BENCH_HOOK_COMPARE'];
    const roots = other ? [ROOT, other] : [ROOT];
    const forwardEnv = { PATH: process.env['PATH'], PLANGATE_URL: serve.url, PLANGATE_TOKEN: TOKEN };
    const forwarded = timeInTurn(FORWARD_RUNS, roots.map((root) => ({ command: 'sh', args: [join(root, 'bin', 'plangate-hook-forward'), 'claude-code'], env: forwardEnv })));
    const hookArgs = ['hook', '--agent', '0xWORKER', '--format', 'claude-code'];
    const [node, ...hooks] = timeInTurn(RUNS, [
      { command: process.execPath, args: ['-e', '0'], env: process.env, calls: [{ stdin: '', ok: () => true }] },
      ...roots.map((root) => ({ command: process.execPath, args: [join(root, 'bin', 'plangate.js'), ...hookArgs], env: { ...process.env, ...paths } })),
    ]) as [Float64Array, ...Float64Array[]];
    const label = (name: string, i: number) => (other ? `${name}${i === 0 ? '' : ' (compared)'}` : name);
    const lines = [
      `${'per tool call, ms'.padEnd(46)}${'runs'.padStart(6)}${'p50'.padStart(8)}${'p90'.padStart(8)}${'p99'.padStart(8)}${'max'.padStart(8)}`,
      row('POST /v1/hooks/claude-code (keep-alive)', viaHttp),
      ...forwarded.map((ms, i) => row(label('plangate-hook-forward claude-code', i), sorted(ms))),
      row('node -e 0 (Node starting)', sorted(node)),
      ...hooks.map((ms, i) => row(label('plangate hook --format claude-code', i), sorted(ms))),
      '',
      `POST /v1/hooks p99 ${round(percentile(viaHttp, 99), 2)} ms (target ≤ 5): ${percentile(viaHttp, 99) <= 5 ? 'met' : 'MISSED'}`,
      ...forwarded.map((ms, i) => `${label('forwarder', i)} p99 ${round(percentile(sorted(ms), 99), 1)} ms (target ≤ 30): ${percentile(sorted(ms), 99) <= 30 ? 'met' : 'MISSED'}`),
      ...hooks.map((ms, i) => {
        const over = percentile(sorted(ms), 50) - percentile(sorted(node), 50);
        return `${label('plangate hook', i)} p50 − node p50 = ${round(over, 1)} ms, median of the paired differences ${round(pairedMedian(ms, node), 1)} ms (target ≤ 60): ${over <= 60 ? 'met' : 'MISSED'}`;
      }),
      `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, load ${os.loadavg().map((l) => round(l, 2)).join(' ')}, Node ${process.version}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    serve.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
