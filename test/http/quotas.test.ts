/**
 * Quotas over HTTP: an agent token over its messages or delegations quota
 * gets 429 quota_exceeded naming the quota, with Retry-After for the rate;
 * it cannot raise its own quota (the rules routes are an operator's), and
 * its writes never count against another seat; the refusal is counted in
 * /metrics.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, serve, TOKENS, type Served } from './support.js';

describe('quotas over HTTP', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve({ prepare: (rules) => writeFileSync(join(rules, 'quotas.yaml'), 'quotas:\n  messages: { rate: 2 }\n  delegations: { rate: 1 }\n') });
  });
  afterAll(() => s.close());

  it('refuses the third message in the window with 429, the quota named and Retry-After', async () => {
    const post = (token: string, seat: string) => call(s.url, 'POST', '/v1/say', { token, json: { thread: `agent:${seat}`, kind: 'plan', body: 'merge #12' } });
    expect((await post(TOKENS.worker, '0xWORKER')).status).toBe(201);
    expect((await post(TOKENS.worker, '0xWORKER')).status).toBe(201);
    const over = await post(TOKENS.worker, '0xWORKER');
    expect(over.status).toBe(429);
    const body = over.json as { error: { code: string; message: string } };
    expect(body.error.code).toBe('quota_exceeded');
    expect(body.error.message).toMatch(/^quota:messages:rate - 0xWORKER has sent 2 messages in the last 60 minutes; its quota is 2 \(quotas\.messages\.rate, the rule at quotas\.yaml:2:3\)/);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(3500);
    // 0xMGR's own count is untouched by 0xWORKER's writes.
    expect((await post(TOKENS.mgr, '0xMGR')).status).toBe(201);
  });

  it('refuses a delegation over the manager\'s rate, and an agent cannot edit the rules to raise it', async () => {
    const rec = (worker: string) => call(s.url, 'POST', '/v1/delegations', { token: TOKENS.bot, json: { worker } });
    expect((await rec('0xWORKER')).status).toBe(201);
    const over = await rec('0xMGR');
    expect(over.status).toBe(429);
    expect((over.json as { error: { message: string } }).error.message).toMatch(/^quota:delegations:rate - 0xBOT/);
    const edit = await call(s.url, 'PUT', '/v1/rules/plan-required/agents/0xBOT', { token: TOKENS.bot, json: { mode: 'off' } });
    expect(edit.status).toBe(403);
    // A manager named in the body is the token's seat or refused: no seat spends another's quota.
    expect((await call(s.url, 'POST', '/v1/delegations', { token: TOKENS.worker, json: { worker: '0xMGR', manager: '0xBOT' } })).status).toBe(403);
  });

  it('counts refusals in /metrics', async () => {
    const m = await call(s.url, 'GET', '/metrics', { token: TOKENS.operator });
    expect(m.text).toMatch(/plangate_quota_refusals_total\{quota="messages",limit="rate"\} 1/);
    expect(m.text).toMatch(/plangate_quota_refusals_total\{quota="delegations",limit="rate"\} 1/);
  });
});
