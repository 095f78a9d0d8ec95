/**
 * `plangate mcp` over stdio as a process: how it ends. The client is a
 * child-process pipe speaking JSON-RPC lines; the upstream is a real MCP
 * server process (fake-server.ts) that misbehaves as a test asks.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_CHILD, makeWorld, RAW_INIT, type World } from './support.js';

const FAKE = resolve(import.meta.dirname, 'fake-server.ts');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(what: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (what()) return true;
    await sleep(50);
  }
  return what();
}

interface Gateway {
  child: ChildProcessWithoutNullStreams;
  out: () => string;
  err: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  send(message: object): void;
}

/** An operator's token: the status listener's tool-named metrics are for it. */
const OPERATOR = 'operator-token-0123456789abcdef';

function gateway(w: World, upstream: object, options: string[] = []): Gateway {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI_CHILD, 'mcp', '--agent', '0xWORKER', ...options,
    '--rules', w.rules, '--store', w.store, '--audit', w.audit, '--', process.execPath, '--import', 'tsx', FAKE, JSON.stringify(upstream)],
  { env: { ...process.env, PLANGATE_TOKENS: `operator=${OPERATOR}` } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  spawned.push(child);
  return { child, out: () => out, err: () => err, exited, send: (m) => child.stdin.write(`${JSON.stringify(m)}\n`) };
}

const spawned: ChildProcessWithoutNullStreams[] = [];
const upstreamPids: number[] = [];
afterEach(() => {
  for (const c of spawned.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  for (const pid of upstreamPids.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

describe('plangate mcp over stdio, ending', () => {
  for (const how of ['stdin closes', 'SIGTERM'] as const) {
    it(`ends at once and stops an upstream that never answers initialize when ${how}`, async () => {
      const w = makeWorld();
      const pidFile = join(w.root, 'upstream.pid');
      const g = gateway(w, { hangInitialize: true, pidFile });
      g.send(RAW_INIT);
      g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      expect(await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '', 20_000)).toBe(true);
      const pid = Number(readFileSync(pidFile, 'utf8'));
      upstreamPids.push(pid);
      await sleep(200);
      if (how === 'stdin closes') g.child.stdin.end();
      else g.child.kill('SIGTERM');
      const t0 = Date.now();
      const exit = await Promise.race([g.exited, sleep(15_000).then(() => 'still running' as const)]);
      expect(exit, g.err()).toEqual({ code: 0, signal: null });
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(await until(() => !alive(pid), 5_000), 'the upstream is still running').toBe(true);
    }, 60_000);
  }

  it('answers the calls in flight before it ends when the client closes stdin after sending them', async () => {
    const w = makeWorld();
    const g = gateway(w, { callMs: 3000, tools: [{ name: 'peek', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }] });
    g.send(RAW_INIT);
    g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    g.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(await until(() => g.out().includes('"peek"'), 20_000), g.out()).toBe(true);
    g.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'peek', arguments: {} } });
    g.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'plangate_say', arguments: { body: 'look at it' } } });
    g.child.stdin.end();
    expect(await Promise.race([g.exited, sleep(15_000).then(() => 'still running' as const)]), g.err()).toEqual({ code: 0, signal: null });
    const answers = g.out().trim().split('\n').map((l) => JSON.parse(l) as { id?: number; result?: { content: { text: string }[] } });
    expect(answers.find((a) => a.id === 3)?.result?.content[0]?.text).toBe('peek ran');
    expect(answers.find((a) => a.id === 4)?.result).toBeDefined();
  }, 60_000);
  it('answers busy to a request over the session\'s bound of calls in flight, frees a place when a call is cancelled, and still ends when stdin closes', async () => {
    const w = makeWorld();
    const g = gateway(w, { callMs: 1500, tools: [{ name: 'peek', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }] }, ['--max-calls-per-session', '2', '--status-listen', '127.0.0.1:0']);
    g.send(RAW_INIT);
    g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    g.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(await until(() => g.out().includes('"peek"'), 20_000), g.out()).toBe(true);
    for (const id of [3, 4, 5]) g.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'peek', arguments: {} } });
    type Answer = { id?: number; result?: { content: { text: string }[] }; error?: { code: number; message: string } };
    const answers = (): Answer[] => g.out().trim().split('\n').map((l) => JSON.parse(l) as Answer);
    expect(await until(() => answers().some((a) => a.id === 5), 10_000), g.out()).toBe(true);
    // The third is answered at once, before the two in flight: nothing of it went upstream. A list is bounded too.
    g.send({ jsonrpc: '2.0', id: 10, method: 'resources/list' });
    expect(await until(() => answers().some((a) => a.id === 10), 10_000), g.out()).toBe(true);
    expect(answers().filter((a) => a.id === 3 || a.id === 4)).toEqual([]);
    expect(answers().find((a) => a.id === 5)?.error).toEqual({ code: -32031, message: expect.stringMatching(/already has 2 calls in flight/) });
    expect(answers().find((a) => a.id === 10)?.error?.code).toBe(-32031);
    // A cancelled call gives its place back at once: the next one is served while 4 is still in flight.
    g.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'not needed' } });
    await sleep(200);
    expect(answers().some((a) => a.id === 4)).toBe(false);
    g.send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'peek', arguments: {} } });
    expect(await until(() => answers().some((a) => a.id === 6), 10_000), g.out()).toBe(true);
    expect(answers().filter((a) => [4, 6].includes(a.id ?? 0)).map((a) => a.result?.content[0]?.text)).toEqual(['peek ran', 'peek ran']);
    expect(answers().some((a) => a.id === 3)).toBe(false);
    // Counted as busy, under the tool's name (a name the session does not route would be "(unlisted)").
    g.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'peek', arguments: {} } });
    g.send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'peek', arguments: {} } });
    g.send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'made-up', arguments: {} } });
    expect(await until(() => answers().some((a) => a.id === 9), 10_000), g.out()).toBe(true);
    const status = /\/health and \/metrics at (http:\S+)/.exec(g.err())?.[1];
    const metrics = await (await fetch(`${status}/metrics`, { headers: { authorization: `Bearer ${OPERATOR}` } })).text();
    expect(metrics).toMatch(/plangate_mcp_tool_calls_total\{tool="peek",outcome="busy"\} 1/);
    expect(metrics).toMatch(/plangate_mcp_tool_calls_total\{tool="\(unlisted\)",outcome="busy"\} 1/);
    expect(metrics).not.toContain('made-up');
    expect(await until(() => answers().some((a) => a.id === 8), 10_000), g.out()).toBe(true);
    g.child.stdin.end();
    expect((await g.exited).code).toBe(0);
  }, 60_000);

  it('reopens the audit log on SIGHUP (log rotation) and keeps serving, as plangate serve does', async () => {
    const w = makeWorld();
    const g = gateway(w, { tools: [{ name: 'peek', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }] });
    g.send(RAW_INIT);
    g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    g.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(await until(() => g.out().includes('"peek"'), 20_000), g.out()).toBe(true);
    g.child.kill('SIGHUP');
    expect(await until(() => /SIGHUP: audit log .* reopened/.test(g.err()), 10_000), g.err()).toBe(true);
    g.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'peek', arguments: {} } });
    expect(await until(() => g.out().includes('peek ran'), 10_000), g.out()).toBe(true);
    expect(g.child.exitCode).toBeNull();
    g.child.stdin.end();
    expect(await g.exited).toEqual({ code: 0, signal: null });
  }, 60_000);
});

describe('plangate mcp over stdio, starting', () => {
  it('says on stderr when the seat is never refused for want of a plan, and not when it is gated', async () => {
    const off = makeWorld('planRequired:\n  agents:\n    0xWORKER: { mode: off }\n');
    const g = gateway(off, { tools: [] });
    g.send(RAW_INIT);
    expect(await until(() => g.err().includes('over stdio'), 20_000), g.err()).toBe(true);
    expect(g.err()).toMatch(/plangate mcp: warning: 0xWORKER runs under mode off \(the agent rule for 0xWORKER, rules\.yaml:\d+:\d+\): none of its calls is refused for want of a plan/);
    g.child.stdin.end();
    await g.exited;

    const gated = gateway(makeWorld(), { tools: [] });
    gated.send(RAW_INIT);
    expect(await until(() => gated.err().includes('over stdio'), 20_000), gated.err()).toBe(true);
    expect(gated.err()).not.toContain('warning');
    gated.child.stdin.end();
    await gated.exited;
  }, 60_000);
});
