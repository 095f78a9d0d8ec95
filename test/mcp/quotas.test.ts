/**
 * Quotas over MCP, with the SDK's Client through the gateway: a seat over
 * its messages quota gets a tool error naming the quota, and nothing is
 * stored; another seat's plangate_say still works.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { call, httpHarness, makeWorld, RULES, type Harness } from './support.js';

describe('quotas over MCP', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('plangate_say over the seat\'s rate is a tool error naming the quota', async () => {
    h = await httpHarness(makeWorld(`${RULES}\nquotas:\n  messages: { rate: 1 }\n`));
    const worker = await h.client('0xWORKER');
    expect((await call(worker, 'plangate_say', { body: 'write a.txt' })).isError).toBeFalsy();
    const over = await call(worker, 'plangate_say', { body: 'write b.txt' });
    expect(over.isError).toBe(true);
    const text = (over.content as Array<{ type: string; text: string }>)[0]!.text;
    expect(text).toMatch(/^quota:messages:rate - 0xWORKER has sent 1 messages in the last 60 minutes; its quota is 1 \(quotas\.messages\.rate/);
    expect(over.structuredContent).toMatchObject({ code: 'quota_exceeded' });
    const other = await h.client('0xOTHER');
    expect((await call(other, 'plangate_say', { body: 'review a.txt', thread: 'org' })).isError).toBeFalsy();
  }, 60_000);
});
