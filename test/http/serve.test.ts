/**
 * `plangate serve` as a process, the way `npm start` runs it: demo tokens
 * generated once and printed once (only digests on disk), the service on
 * loopback, and a graceful stop on SIGTERM that lets a request in flight
 * finish.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/adapters/http/auth.js';
import { call, EXAMPLES, startUpstream, type Upstream } from './support.js';

const CHILD = join(import.meta.dirname, 'cli-child.ts');

interface Proc {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  url: Promise<string>;
  exited: Promise<number | null>;
}

function start(args: string[], env: NodeJS.ProcessEnv): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, 'serve', ...args], { env: { PATH: process.env['PATH'], ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let resolveUrl: (u: string) => void;
  let rejectUrl: (e: Error) => void;
  const url = new Promise<string>((res, rej) => { resolveUrl = res; rejectUrl = rej; });
  url.catch(() => {}); // a process that is meant to fail never listens
  child.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
    const m = /serving (http:\/\/\S+) /.exec(err);
    if (m) resolveUrl(m[1] as string);
  });
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => {
    rejectUrl(new Error(`serve exited ${code} before listening:\n${err}`));
    res(code);
  }));
  return { child, out: () => out, err: () => err, url, exited };
}

describe('plangate serve', () => {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-serve-'));
  const rules = join(dir, 'rules');
  cpSync(EXAMPLES, rules, { recursive: true });
  const tokensFile = join(dir, 'data', 'tokens.json');
  const env = { PLANGATE_RULES: rules, PLANGATE_STORE: join(dir, 'data', 'plangate.db'), PLANGATE_AUDIT: join(dir, 'data', 'audit.jsonl'), PLANGATE_PORT: '0' };
  let upstream: Upstream;
  const procs: Proc[] = [];
  afterAll(async () => {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await upstream?.close();
  });

  it('generates the demo tokens once, prints them once, stores only digests, serves, and stops gracefully on SIGTERM', async () => {
    upstream = await startUpstream();
    upstream.answer = () => ({ status: 200, body: '{"done":true}', delayMs: 500 });
    const executors = join(dir, 'executors.json');
    writeFileSync(executors, JSON.stringify({ tools: { 'github.*': `${upstream.url}/gh` } }));

    const first = start(['--tokens', tokensFile, '--init-tokens', '--executors', executors], env);
    procs.push(first);
    const url = await first.url;
    const printed = Object.fromEntries([...first.out().matchAll(/^ {2}(\S+)\s+(pg_\S+)$/gm)].map((m) => [m[1], m[2]]));
    expect(Object.keys(printed)).toEqual(['agent:0xWORKER', 'agent:0xMGR', 'operator', 'reviewer', 'orchestrator', 'policy']);
    const stored = readFileSync(tokensFile, 'utf8');
    for (const t of Object.values(printed)) expect(stored).not.toContain(t);

    expect((await call(url, 'GET', '/health')).json.status).toBe('ok');
    expect((await call(url, 'GET', '/v1/org', { token: printed['operator'] })).status).toBe(200);
    expect((await call(url, 'GET', '/v1/review/queue', { token: printed['reviewer'] })).status).toBe(200);
    expect((await call(url, 'GET', '/v1/org', { token: printed['reviewer'] })).status).toBe(403);
    const refused = await call(url, 'POST', '/mcp/call', { token: printed['agent:0xWORKER'], json: { name: 'github.merge_pull_request' } });
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe('plan_required:github.merge_pull_request:none');

    // An ungated call whose executor takes 500 ms is in flight when SIGTERM arrives: it finishes.
    const inFlight = call(url, 'POST', '/mcp/call', { token: printed['agent:0xMGR'], json: { name: 'github.merge_pull_request' } });
    while (upstream.received.length === 0) await new Promise((r) => setTimeout(r, 10)); // the executor has it: in flight
    first.child.kill('SIGTERM');
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(answered.json).toEqual({ done: true });
    expect(await first.exited).toBe(0);
    expect(first.err()).toMatch(/SIGTERM: stopping[\s\S]*stopped/);
    for (const t of Object.values(printed)) expect(first.err()).not.toContain(t);

    // Second start: the tokens file exists, nothing is printed, the old tokens still work.
    const second = start(['--tokens', tokensFile, '--init-tokens'], env);
    procs.push(second);
    const url2 = await second.url;
    expect(second.out()).not.toMatch(/pg_/);
    expect((await call(url2, 'GET', '/v1/org', { token: printed['operator'] })).status).toBe(200);
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  }, 60_000);

  it('refuses to start without tokens, or on a bad port, with exit 1', async () => {
    const none = start([], env);
    procs.push(none);
    expect(await none.exited).toBe(1);
    expect(none.err()).toMatch(/no tokens: give --tokens FILE/);
    const port = start(['--port', '99999'], { ...env, PLANGATE_TOKENS: 'operator=operator-token-0123456789abcdef' });
    procs.push(port);
    expect(await port.exited).toBe(1);
    expect(port.err()).toMatch(/--port must be an integer from 0 to 65535/);
  }, 30_000);

  it('keeps stopping gracefully when SIGHUP (a log rotation) arrives while it stops', async () => {
    upstream ??= await startUpstream();
    upstream.received.length = 0;
    upstream.answer = () => ({ status: 200, body: '{"done":true}', delayMs: 1000 });
    const executors = join(dir, 'executors-hup.json');
    writeFileSync(executors, JSON.stringify({ tools: { 'github.*': `${upstream.url}/gh` } }));
    const p = start(['--executors', executors], { ...env, PLANGATE_TOKENS: 'agent:0xMGR=mgr-token-0123456789abcdef' });
    procs.push(p);
    const url = await p.url;
    const inFlight = call(url, 'POST', '/mcp/call', { token: 'mgr-token-0123456789abcdef', json: { name: 'github.merge_pull_request' } });
    while (upstream.received.length === 0) await new Promise((r) => setTimeout(r, 10));
    p.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    p.child.kill('SIGHUP');
    expect((await inFlight).status).toBe(200);
    expect(await p.exited, p.err()).toBe(0);
    expect(p.err()).toMatch(/stopped/);
  }, 30_000);

  it('survives a SIGHUP (a log rotation) that comes while it is still opening, and reopens the audit once open', async () => {
    // The tokens file is a FIFO: serve stays in its start-up, reading it, until the test writes the tokens.
    const fifo = join(dir, 'tokens.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const p = start(['--tokens', fifo], env);
    procs.push(p);
    // Opening the FIFO for writing completes once serve has opened it to read: it is inside its start-up now.
    const writer = await open(fifo, 'w');
    p.child.kill('SIGHUP');
    await new Promise((r) => setTimeout(r, 300));
    expect(p.child.exitCode, p.err()).toBeNull();
    expect(p.child.signalCode).toBeNull();
    await writer.writeFile(JSON.stringify({ tokens: [{ name: 'ops', role: 'operator', sha256: hashToken('operator-token-0123456789abcdef') }] }));
    await writer.close();
    const url = await p.url;
    expect((await call(url, 'GET', '/health')).status).toBe(200);
    expect(p.err()).toMatch(/SIGHUP: audit log .* reopened/);
    p.child.kill('SIGTERM');
    expect(await p.exited, p.err()).toBe(0);
  }, 30_000);
});
