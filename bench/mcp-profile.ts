/**
 * A CPU profile of one checkout's MCP gateway under a loop of echo
 * `tools/call` (not timed as a target; for finding where a call's time goes):
 *
 *   node --import tsx bench/mcp-profile.ts <checkout> <profile dir> [stdio|http] [calls]
 *
 * The gateway of `<checkout>` (this one, or another worktree such as an older
 * commit) is spawned through its `test/http/cli-child.ts` with
 * `--cpu-prof --cpu-prof-interval 100`, in front of bench/mcp-upstream.ts,
 * deciding every call in full (side_effects mode, a fresh plan); after 500
 * calls of warm-up, `calls` more (default 5000). The `.cpuprofile` is written
 * to `<profile dir>` when the gateway exits; open it in Chrome's DevTools or
 * compare two by self time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isolatedFetch } from './isolated-fetch.js';

const [checkoutArg, outArg, way = 'stdio', callsArg = '5000'] = process.argv.slice(2);
if (!checkoutArg || !outArg || (way !== 'stdio' && way !== 'http')) {
  process.stderr.write('usage: node --import tsx bench/mcp-profile.ts <checkout> <profile dir> [stdio|http] [calls]\n');
  process.exit(2);
}
const checkout = resolve(checkoutArg);
const out = resolve(outArg);
const calls = Number(callsArg);
const UPSTREAM = join(import.meta.dirname, 'mcp-upstream.ts');
const SEAT = '0xB00';
const TOKEN = 'bench-token-00-0123456789abcdef';
const PROFILE = ['--cpu-prof', '--cpu-prof-interval', '100', '--cpu-prof-dir', out];

/** The first match of `pattern` in what `child` writes on `stream`. */
function line(child: ChildProcess, stream: 'stdout' | 'stderr', pattern: RegExp): Promise<string> {
  return new Promise((done, fail) => {
    let text = '';
    child[stream]?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const m = pattern.exec(text);
      if (m) done(m[1] as string);
    });
    child.once('exit', (code) => fail(new Error(`exited ${code}: ${text}`)));
  });
}

const dir = mkdtempSync(join(os.tmpdir(), 'plangate-mcp-profile-'));
const children: ChildProcess[] = [];
try {
  const rules = join(dir, 'rules');
  mkdirSync(rules);
  writeFileSync(join(rules, 'rules.yaml'), 'planRequired:\n  workspace: { mode: side_effects, windowMin: 60 }\n');
  const paths = { rules, store: join(dir, 'plangate.db'), audit: join(dir, 'audit.jsonl') };
  // The checkout's own store and migrations.
  const { openPlangate } = await import(join(checkout, 'src', 'main', 'open.ts')) as typeof import('../src/main/open.js');
  const pg = await openPlangate({ ...paths, log: () => {} });
  await pg.gate.say({ thread: `agent:${SEAT}`, author: SEAT, authorKind: 'agent', kind: 'plan', body: 'echo for the profile' });
  await pg.close();
  const cli = ['--import', 'tsx', join(checkout, 'test', 'http', 'cli-child.ts'), '--rules', rules, '--store', paths.store, '--audit', paths.audit, 'mcp'];
  const client = new Client({ name: 'profile', version: '1' });
  let gateway: ChildProcess | undefined;
  if (way === 'stdio') {
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [...PROFILE, ...cli, '--agent', SEAT, '--', process.execPath, '--import', 'tsx', UPSTREAM, 'stdio'], stderr: 'ignore' }));
  } else {
    const up = spawn(process.execPath, ['--import', 'tsx', UPSTREAM, 'http'], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(up);
    const upUrl = await line(up, 'stdout', /(http:\S+)\n/);
    gateway = spawn(process.execPath, [...PROFILE, ...cli, '--listen', '127.0.0.1:0', '--upstream', `bench=${upUrl}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, PLANGATE_TOKENS: `agent:${SEAT}=${TOKEN}` },
    });
    children.push(gateway);
    const url = await line(gateway, 'stderr', /serving (http:\S+) /);
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: isolatedFetch, requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  }
  const echo = async (i: number) => {
    const r = await client.callTool({ name: 'echo', arguments: { text: `call ${i}` } });
    if (r.isError) throw new Error(`refused: ${JSON.stringify(r.structuredContent)}`);
  };
  for (let i = 0; i < 500; i++) await echo(i);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await echo(i);
  process.stdout.write(`${checkout} (${way}): ${calls} calls, mean ${(Number(process.hrtime.bigint() - t0) / calls / 1000).toFixed(1)} µs; profile in ${out}\n`);
  await client.close();
  if (gateway) {
    // The profile is written when the gateway exits.
    const exited = new Promise((done) => gateway.once('exit', done));
    gateway.kill('SIGTERM');
    await exited;
  }
} finally {
  for (const c of children) c.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
