/**
 * The flow over stdio: the SDK's Client starts `plangate mcp --agent SEAT`
 * as a child process, which starts the real filesystem server over stdio.
 */
import { afterEach, describe, it } from 'vitest';
import { holdAndReadGuardFlow, planRequiredFlow } from './flow.js';
import { makeWorld, stdioHarness, type Harness } from './support.js';

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
});
