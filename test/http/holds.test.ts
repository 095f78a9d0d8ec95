/**
 * Planning holds over HTTP: the operator's routes (place, push back,
 * release, unblock, list), the agent's own route for its plan, and the
 * reviewer-channel tool through POST /mcp/call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, serve, TOKENS, type Served } from './support.js';

let s: Served;
beforeAll(async () => {
  s = await serve();
  // desk ← trading (0xWORKER, whose crew picks the "careful" profile: the gate is on). 0xMGR sits in desk: the gate is off.
  for (const [path, body] of [
    ['/v1/org/crews/desk', {}],
    ['/v1/org/crews/trading', { parent: 'desk' }],
    ['/v1/org/agents/0xWORKER', { crew: 'trading' }],
    ['/v1/org/agents/0xMGR', { crew: 'desk' }],
  ] as const) {
    expect((await call(s.url, 'PUT', path, { token: TOKENS.operator, json: body })).status).toBe(200);
  }
});
afterAll(async () => {
  await s?.close();
});

const op = (json?: unknown) => ({ token: TOKENS.operator, ...(json !== undefined ? { json } : {}) });

describe('planning holds over HTTP', () => {
  it('the whole flow: place → refused at /mcp/call → plan (route and reviewer-channel tool) → push-back → release', async () => {
    const placed = await call(s.url, 'POST', '/v1/holds/0xMGR', op({ task: 'Refactor the auth middleware' }));
    expect(placed.status).toBe(201);
    expect(placed.json.hold).toMatchObject({ agent: '0xMGR', kind: 'on_demand', placedBy: 'ops', task: 'Refactor the auth middleware', state: 'active' });

    const refused = await call(s.url, 'POST', '/mcp/call', { token: TOKENS.mgr, json: { name: 'github.merge_pull_request' } });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ allowed: false, check: 'planning_hold', code: 'planning_hold:github.merge_pull_request' });
    expect(refused.json.message).toContain('plangate_submit_plan');
    expect(s.upstream.received).toHaveLength(0);

    const planned = await call(s.url, 'POST', '/v1/holds/0xMGR/plan', { token: TOKENS.mgr, json: { body: 'Add an API-key branch.' } });
    expect(planned.status).toBe(201);
    expect(planned.json).toMatchObject({ hold: { plans: 1 }, message: { thread: 'agent:0xMGR', kind: 'plan' } });

    const viaTool = await call(s.url, 'POST', '/mcp/call', { token: TOKENS.mgr, json: { name: 'plangate_submit_plan', arguments: { plan: 'Second plan: two callers change.' } } });
    expect(viaTool.status).toBe(200);
    expect(viaTool.headers.get('x-plangate-reviewer-channel')).toBe('plan-recorded');
    expect(viaTool.json.structuredContent).toMatchObject({ holdId: placed.json.hold.id, plans: 2 });
    expect(viaTool.json.content[0].text).toMatch(/^Plan #\d+ sent to the reviewer/);
    expect(s.upstream.received).toHaveLength(0);

    const pushed = await call(s.url, 'POST', '/v1/holds/0xMGR/push-back', op({ body: 'Which callers?', by: 'reviewer' }));
    expect(pushed.status).toBe(201);
    expect(pushed.json.hold).toMatchObject({ pushBacks: 1, state: 'active' });

    const agentView = await call(s.url, 'GET', '/v1/holds/0xMGR', { token: TOKENS.mgr });
    expect(agentView.json.hold).toMatchObject({ plans: 2, pushBacks: 1 });

    const unnamed = await call(s.url, 'POST', '/v1/holds/0xMGR/release', op({ by: 'reviewer' }));
    expect([unnamed.status, unnamed.json.error.code]).toEqual([400, 'invalid_input']);
    const newest = /0xMGR's newest plan: #(\d+)/.exec(unnamed.json.error.message)?.[1];
    expect(newest, unnamed.json.error.message).toBeDefined();
    const released = await call(s.url, 'POST', '/v1/holds/0xMGR/release', op({ by: 'reviewer', lastPlanId: newest }));
    expect(released.status).toBe(200);
    expect(released.json.hold).toMatchObject({ state: 'released', releasedBy: 'reviewer' });
    expect((await call(s.url, 'GET', '/v1/holds/0xMGR', op())).status).toBe(404);

    const history = await call(s.url, 'GET', '/v1/holds?all=true&agent=0xMGR', op());
    expect(history.json.holds.map((h: { state: string }) => h.state)).toEqual(['released']);
    const types = s.audit().map((e) => e['type']);
    expect(types).toEqual(expect.arrayContaining(['HoldPlaced', 'PlanningHoldBlocked', 'HoldPlanSubmitted', 'HoldPushedBack', 'HoldReleased']));
    expect(JSON.stringify(s.audit())).not.toMatch(/API-key|two callers|Which callers/);
  });

  it('answers the domain refusals: 409 already_held and planning_gate_off, 404 not_held', async () => {
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER', op({ kind: 'reviewer', by: 'reviewer' }))).status).toBe(201);
    const again = await call(s.url, 'POST', '/v1/holds/0xWORKER', op());
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('already_held');
    expect(again.json.error.message).toMatch(/clear it first with unblock/);
    const unblocked = await call(s.url, 'POST', '/v1/holds/0xWORKER/unblock', op());
    expect(unblocked.json.hold).toMatchObject({ state: 'cleared', clearedBy: 'ops' });
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER', op())).status).toBe(201);
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER/unblock', op())).status).toBe(200);

    const off = await call(s.url, 'POST', '/v1/holds/0xMGR', op({ kind: 'reviewer' }));
    expect(off.status).toBe(409);
    expect(off.json.error.code).toBe('planning_gate_off');

    for (const action of ['release', 'unblock']) {
      const r = await call(s.url, 'POST', `/v1/holds/0xBOT/${action}`, op());
      expect(r.status).toBe(404);
      expect(r.json.error.code).toBe('not_held');
    }
    const notHeldTool = await call(s.url, 'POST', '/mcp/call', { token: TOKENS.bot, json: { name: 'plangate_submit_plan', arguments: { plan: 'p' } } });
    expect(notHeldTool.status).toBe(404);
    expect(notHeldTool.json.error.code).toBe('not_held');
  });

  it('binds the plan to the agent\'s own token, and the rest to operators', async () => {
    await call(s.url, 'POST', '/v1/holds/0xBOT', op());
    const other = await call(s.url, 'POST', '/v1/holds/0xBOT/plan', { token: TOKENS.worker, json: { body: 'not mine' } });
    expect(other.status).toBe(403);
    expect(other.json.error.code).toBe('seat_mismatch');
    expect((await call(s.url, 'POST', '/v1/holds/0xBOT/plan', op({ body: 'x' }))).status).toBe(403);
    for (const [method, path, json] of [
      ['POST', '/v1/holds/0xBOT', {}],
      ['POST', '/v1/holds/0xBOT/push-back', { body: 'x' }],
      ['POST', '/v1/holds/0xBOT/release', {}],
      ['POST', '/v1/holds/0xBOT/unblock', {}],
      ['GET', '/v1/holds', undefined],
    ] as const) {
      const r = await call(s.url, method, path, { token: TOKENS.bot, ...(json !== undefined ? { json } : {}) });
      expect([path, r.status]).toEqual([path, 403]);
    }
    expect((await call(s.url, 'GET', '/v1/holds/0xWORKER', { token: TOKENS.bot })).status).toBe(403);
    const bad = await call(s.url, 'POST', '/v1/holds/0xBOT', op({ kind: 'whim', extra: 1 }));
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('invalid_input');
    const noPlan = await call(s.url, 'POST', '/mcp/call', { token: TOKENS.bot, json: { name: 'plangate_submit_plan', arguments: {} } });
    expect(noPlan.status).toBe(400);
    const listed = await call(s.url, 'GET', '/v1/holds', op());
    expect(listed.json.holds.map((h: { agent: string }) => h.agent)).toEqual(['0xBOT']);
    expect((await call(s.url, 'GET', '/v1/holds?limit=abc', op())).status).toBe(400);
    const id = listed.json.holds[0].id as string;
    expect((await call(s.url, 'GET', `/v1/holds?before=${id}`, op())).json.holds).toEqual([]);
    expect((await call(s.url, 'GET', `/v1/holds?all=true&before=${Number(id) + 1}`, op())).json.holds.map((h: { id: string }) => h.id)).toContain(id);
    const badBefore = await call(s.url, 'GET', '/v1/holds?before=abc', op());
    expect([badBefore.status, badBefore.json.error.code]).toEqual([400, 'invalid_input']);
  });
  it('a reviewer acts on a reviewer hold only, even when an operator replaced it after the reviewer\'s check', async () => {
    await call(s.url, 'POST', '/v1/holds/0xBOT', op({ task: 'on demand' }));
    const onDemand = await s.pg.gate.holds.get('0xBOT');
    // The reviewer's check read the hold before an operator swapped a reviewer hold for this one.
    const get = s.pg.gate.holds.get;
    s.pg.gate.holds.get = async () => ({ ...(onDemand as NonNullable<typeof onDemand>), kind: 'reviewer' });
    try {
      const reviewer = (json: unknown) => ({ token: TOKENS.reviewer, json });
      const pushed = await call(s.url, 'POST', '/v1/holds/0xBOT/push-back', reviewer({ body: 'not yours' }));
      const released = await call(s.url, 'POST', '/v1/holds/0xBOT/release', reviewer({ lastPlanId: null }));
      expect([pushed.status, pushed.json.error.code, released.status, released.json.error.code]).toEqual([404, 'not_held', 404, 'not_held']);
    } finally {
      s.pg.gate.holds.get = get;
    }
    expect(await s.pg.gate.holds.get('0xBOT')).toMatchObject({ kind: 'on_demand', state: 'active', pushBacks: 0 });
  });
  it('acts only on the hold and the newest plan the caller names: 409 conflict for a stale view, and nothing changes', async () => {
    await call(s.url, 'POST', '/v1/holds/0xBOT/unblock', op()); // a hold an earlier case left
    const placed = await call(s.url, 'POST', '/v1/holds/0xBOT', op({ task: 'look first' }));
    expect(placed.status).toBe(201);
    const holdId = placed.json.hold.id as string;
    const plan = await call(s.url, 'POST', '/v1/holds/0xBOT/plan', { token: TOKENS.bot, json: { body: 'the plan' } });
    expect(plan.status).toBe(201);
    // The reviewer's page still showed no plan, or another hold: conflict.
    const unread = await call(s.url, 'POST', '/v1/holds/0xBOT/release', op({ holdId, lastPlanId: null }));
    const replaced = await call(s.url, 'POST', '/v1/holds/0xBOT/push-back', op({ body: 'why?', holdId: String(Number(holdId) + 99), lastPlanId: plan.json.message.id }));
    expect([unread.status, unread.json.error.code, replaced.status, replaced.json.error.code]).toEqual([409, 'conflict', 409, 'conflict']);
    expect(unread.json.error.message).toMatch(/has sent a plan since/);
    expect(await s.pg.gate.holds.get('0xBOT')).toMatchObject({ id: holdId, state: 'active', pushBacks: 0 });
    // As seen: done.
    const released = await call(s.url, 'POST', '/v1/holds/0xBOT/release', op({ holdId, lastPlanId: plan.json.message.id }));
    expect([released.status, released.json.hold.state]).toEqual([200, 'released']);
    const bad = await call(s.url, 'POST', '/v1/holds/0xBOT/unblock', op({ holdId: 'seven' }));
    expect(bad.status).toBe(400);
  });
});
