/**
 * GET /v1/audit: the audit trail after real refused calls, filtered as the
 * console's refusals page asks, behind the operator's token only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditQueryFrom } from '../../src/adapters/http/routes/audit.js';
import { call, serve, TOKENS, type Served } from './support.js';

let s: Served;
const op = { token: TOKENS.operator };

beforeAll(async () => {
  s = await serve();
  for (const [path, body] of [
    ['/v1/org/crews/desk', {}],
    ['/v1/org/crews/trading', { parent: 'desk' }],
    ['/v1/org/crews/ops', {}],
    ['/v1/org/agents/0xWORKER', { crew: 'desk' }],
    ['/v1/org/agents/0xMGR', { crew: 'trading' }],
    ['/v1/org/agents/0xBOT', { crew: 'ops' }],
  ] as const) {
    expect((await call(s.url, 'PUT', path, { ...op, json: body })).status).toBe(200);
  }
  // 0xBOT: measured first — side_effects in shadow mode.
  expect((await call(s.url, 'PUT', '/v1/rules/plan-required/agents/0xBOT', { ...op, json: { mode: 'side_effects', enforce: false } })).status).toBe(200);
  for (const [token, tool] of [
    [TOKENS.worker, 'github.merge_pull_request'],
    [TOKENS.worker, 'wallet.propose_spend'],
    [TOKENS.mgr, 'github.merge_pull_request'],
    [TOKENS.bot, 'github.merge_pull_request'],
    [TOKENS.bot, 'github.create_release'],
  ] as const) {
    const d = await call(s.url, 'POST', '/v1/decide', { token, json: { tool } });
    expect(d.status).toBe(200);
  }
});
afterAll(async () => {
  await s?.close();
});

describe('GET /v1/audit', () => {
  it('answers the refusals newest first, filtered by crew, each without a message body', async () => {
    const desk = await call(s.url, 'GET', '/v1/audit?crew=desk', op);
    expect(desk.status).toBe(200);
    expect(desk.json.events.map((e: { agent: string; tool: string }) => `${e.agent} ${e.tool}`)).toEqual([
      '0xWORKER wallet.propose_spend',
      '0xWORKER github.merge_pull_request',
    ]);
    expect(desk.json.events[0]).toMatchObject({ type: 'PlanRequiredBlocked', crew: 'desk', code: 'plan_required:wallet.propose_spend:none', rule: { scope: 'agent', id: '0xWORKER' } });
    expect(desk.json.events[0].rule.source).toMatch(/^seats\.yaml:\d+:\d+$/);
    expect(desk.json).toMatchObject({ limit: 100, limitReached: false });
    const trading = await call(s.url, 'GET', '/v1/audit?crew=trading&check=plan_required', op);
    expect(trading.json.events.map((e: { agent: string }) => e.agent)).toEqual(['0xMGR']);
  });

  it('keeps shadow-mode would-be refusals apart', async () => {
    const shadow = await call(s.url, 'GET', '/v1/audit?shadow=true', op);
    expect(shadow.json.events.map((e: { agent: string; tool: string; shadow: boolean }) => [e.agent, e.tool, e.shadow])).toEqual([
      ['0xBOT', 'github.create_release', true],
      ['0xBOT', 'github.merge_pull_request', true],
    ]);
    const real = await call(s.url, 'GET', '/v1/audit?shadow=false&check=plan_required', op);
    expect(real.json.events).toHaveLength(3);
    expect(real.json.events.some((e: { shadow?: boolean }) => e.shadow)).toBe(false);
  });

  it('filters by agent, tool, code, type, a time range and a limit', async () => {
    expect((await call(s.url, 'GET', '/v1/audit?agent=0xMGR', op)).json.events).toHaveLength(1);
    expect((await call(s.url, 'GET', '/v1/audit?tool=wallet.propose_spend', op)).json.events).toHaveLength(1);
    expect((await call(s.url, 'GET', `/v1/audit?code=${encodeURIComponent('plan_required:github.merge_pull_request:none')}&shadow=false`, op)).json.events).toHaveLength(2);
    expect((await call(s.url, 'GET', '/v1/audit?type=HoldPlaced', op)).json.events).toEqual([]);
    expect((await call(s.url, 'GET', '/v1/audit?since=1h', op)).json.events).toHaveLength(5);
    expect((await call(s.url, 'GET', '/v1/audit?until=2020-01-01T00:00:00Z', op)).json.events).toEqual([]);
    const two = await call(s.url, 'GET', '/v1/audit?limit=2', op);
    expect(two.json).toMatchObject({ limit: 2, limitReached: true });
    expect(two.json.events).toHaveLength(2);
  });

  it('refuses bad filters with a 400 naming each, and changes nothing', async () => {
    const bad = await call(s.url, 'GET', '/v1/audit?crew=desk&crew=ops&since=yesterday&shadow=maybe&body=x', op);
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('invalid_input');
    const text = bad.json.error.details.map((d: { message: string }) => d.message).join('\n');
    expect(text).toMatch(/crew is given twice/);
    expect(text).toMatch(/since must be epoch milliseconds, an ISO-8601 time or a duration/);
    expect(text).toMatch(/shadow must be true or false/);
    expect(text).toMatch(/unknown query parameter "body"/);
    expect((await call(s.url, 'GET', '/v1/audit?limit=5000', op)).json.error.message).toMatch(/limit must be an integer from 0 to 1000/);
    expect((await call(s.url, 'GET', '/v1/audit?check=nope', op)).status).toBe(400);
  });

  it('is for operators and reviewers: no token is a 401, an agent, policy or orchestrator token a 403', async () => {
    expect((await call(s.url, 'GET', '/v1/audit?crew=desk', { token: TOKENS.reviewer })).json.events).toHaveLength(2);
    expect((await call(s.url, 'GET', '/v1/audit')).status).toBe(401);
    expect((await call(s.url, 'GET', '/v1/audit', { token: 'wrong-token-0123456789abcdef' })).status).toBe(401);
    for (const token of [TOKENS.worker, TOKENS.policy, TOKENS.orchestrator]) {
      expect((await call(s.url, 'GET', '/v1/audit', { token })).status).toBe(403);
    }
  });

  it("shows a reviewer the refusals only: not the holds' lives (an operator's task among them), not where the host resolved a path", async () => {
    const rev = { token: TOKENS.reviewer };
    expect((await call(s.url, 'POST', '/v1/holds/0xMGR', { ...op, json: { task: 'look into 0xMGR quietly' } })).status).toBe(201);
    expect((await call(s.url, 'POST', '/v1/decide', { token: TOKENS.mgr, json: { tool: 'github.create_issue' } })).json.check).toBe('planning_hold');
    expect((await call(s.url, 'POST', '/v1/decide', { token: TOKENS.worker, json: { tool: 'fs.read_file', args: { path: '/etc/passwd' } } })).json.check).toBe('read_guard');
    const seen = await call(s.url, 'GET', '/v1/audit?since=1h', op);
    expect(seen.json.events.map((e: { type: string }) => e.type).slice(0, 3)).toEqual(['ReadGuardBlocked', 'PlanningHoldBlocked', 'HoldPlaced']);
    expect(seen.json.events[0].resolved).toBe('/etc/passwd');
    const shown = await call(s.url, 'GET', '/v1/audit?since=1h', rev);
    expect(shown.status).toBe(200);
    const types = shown.json.events.map((e: { type: string }) => e.type);
    expect(types).not.toContain('HoldPlaced');
    // The call the operator's hold refused is a refusal like the others: why that agent's work stopped.
    expect(types.slice(0, 2)).toEqual(['ReadGuardBlocked', 'PlanningHoldBlocked']);
    expect(shown.json.events[0]).toMatchObject({ type: 'ReadGuardBlocked', path: '/etc/passwd', resolved: null });
    expect(JSON.stringify(shown.json)).not.toContain('quietly');
    expect((await call(s.url, 'GET', '/v1/audit?type=HoldPlaced', rev)).json).toMatchObject({ events: [], limitReached: false });
    expect((await call(s.url, 'POST', '/v1/holds/0xMGR/unblock', op)).status).toBe(200);
  });

  it('reads durations back from now', () => {
    const now = Date.UTC(2026, 10, 30, 12);
    expect(auditQueryFrom(new URLSearchParams('since=7d&until=30m'), now)).toEqual({ since: now - 7 * 86_400_000, until: now - 30 * 60_000 });
  });
});
