/**
 * The flow over stdio: the SDK's Client starts `plangate mcp --agent SEAT`
 * as a child process, which starts the real filesystem server over stdio.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/adapters/cli/main.js';
import { holdAndReadGuardFlow, planRequiredFlow } from './flow.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { call, CLI_CHILD, FS_SERVER, makeWorld, stdioHarness, type Harness } from './support.js';

describe('plangate mcp over stdio', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('refuses without a plan, allows after one, refuses a stale plan, counts a same-run plan', async () => {
    h = await stdioHarness(makeWorld());
    await planRequiredFlow(h);
  }, 60_000);

  it('applies the read guard and a planning hold to the filesystem tools', async () => {
    h = await stdioHarness(makeWorld());
    await holdAndReadGuardFlow(h);
  }, 60_000);

  it('tags every call with the run it was started for, and refuses a call that names another', async () => {
    h = await stdioHarness(makeWorld());
    // The orchestrator starts the run, then binds the gateway's session to it.
    await h.operator.gate.runs.start({ id: 'run-7', seat: '0xWORKER', by: 'orchestrator' });
    const c = await h.client('0xWORKER', { run: 'run-7' });
    expect((await call(c, 'plangate_say', { body: 'write notes in run 7' })).structuredContent).toMatchObject({ runId: 'run-7' });
    const other = await call(c, 'write_file', { path: `${h.world.files}/n.txt`, content: 'x' }, { 'plangate/runId': 'run-8' });
    expect(other.structuredContent).toEqual({ check: 'run', code: 'run_mismatch', reason: 'run_mismatch' });
    h.travel(120 * 60_000);
    expect((await call(c, 'write_file', { path: `${h.world.files}/n.txt`, content: 'x' })).isError).toBeFalsy();
  }, 60_000);

  it('needs a seat and an upstream', async () => {
    const lines: string[] = [];
    const io = { out: (s: string) => void lines.push(s), err: (s: string) => void lines.push(s), env: {} };
    expect(await main(['mcp', '--', 'node', 'server.js'], io)).toBe(1);
    expect(lines.join('\n')).toContain('needs --agent SEAT');
    expect(await main(['mcp', '--agent', '0xW'], io)).toBe(1);
    expect(lines.join('\n')).toContain('no upstream');
    expect(await main(['mcp', '--agent', '0xW', '--upstream', 'ftp://x', '--', 'node'], io)).toBe(1);
    expect(lines.join('\n')).toContain('not an http(s) URL');
  });

  it('serves /health and /metrics with --status-listen', async () => {
    const w = makeWorld();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', CLI_CHILD, '--rules', w.rules, '--store', w.store, '--audit', w.audit,
        'mcp', '--agent', '0xWORKER', '--status-listen', '127.0.0.1:0', '--name', 'fs', '--', process.execPath, FS_SERVER, w.files],
      stderr: 'pipe',
      env: { ...(process.env as Record<string, string>), PLANGATE_TOKENS: 'operator=operator-token-0123456789abcdef' },
    });
    let err = '';
    const url = new Promise<string>((resolve) => {
      (transport.stderr as unknown as NodeJS.ReadableStream).on('data', (d: Buffer) => {
        err += d.toString();
        const m = /\/health and \/metrics at (http:\S+)/.exec(err);
        if (m) resolve(m[1] as string);
      });
    });
    const c = new Client({ name: 'status-test', version: '1' });
    await c.connect(transport);
    try {
      expect((await call(c, 'write_file', { path: `${w.files}/s.txt`, content: 'x' })).isError).toBe(true);
      const base = await url;
      expect(await (await fetch(`${base}/health`)).json()).toEqual({ status: 'ok' });
      const health = await (await fetch(`${base}/health`, { headers: { authorization: 'Bearer operator-token-0123456789abcdef' } })).json();
      expect(health).toMatchObject({ status: 'ok', sessions: 1, upstreams: [{ name: 'fs', transport: 'stdio', state: 'up', up: 1 }] });
      // The per-tool counts need the operator's token; an anonymous scrape sees no tool name.
      expect(await (await fetch(`${base}/metrics`)).text()).not.toMatch(/write_file|plangate_mcp_tool_calls_total/);
      expect(await (await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer operator-token-0123456789abcdef' } })).text())
        .toMatch(/plangate_mcp_tool_calls_total\{tool="write_file",outcome="refused"\} 1/);
    } finally {
      await c.close();
    }
  }, 60_000);
});
