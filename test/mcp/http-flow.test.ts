/**
 * The flow over Streamable HTTP: the SDK's Client with a bearer token →
 * the gateway (in this process) → the real filesystem server over stdio.
 */
import { afterEach, describe, it } from 'vitest';
import { holdAndReadGuardFlow, planRequiredFlow } from './flow.js';
import { httpHarness, makeWorld, type Harness } from './support.js';

describe('plangate mcp over Streamable HTTP', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('refuses without a plan, allows after one, refuses a stale plan, counts a same-run plan', async () => {
    h = await httpHarness(makeWorld());
    await planRequiredFlow(h);
  }, 60_000);

  it('applies the read guard and a planning hold to the filesystem tools', async () => {
    h = await httpHarness(makeWorld());
    await holdAndReadGuardFlow(h);
  }, 60_000);
});
