/**
 * The flow over stdio: the SDK's Client starts `plangate mcp --agent SEAT`
 * as a child process, which starts the real filesystem server over stdio.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/adapters/cli/main.js';
import { holdAndReadGuardFlow, planRequiredFlow } from './flow.js';
import { call, makeWorld, stdioHarness, type Harness } from './support.js';

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
});
