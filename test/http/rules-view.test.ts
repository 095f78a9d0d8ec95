/** GET /v1/rules (every rule in force, with its source) and GET /v1/seats/:agent (what one seat runs under). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, serve, TOKENS, type Served } from './support.js';

let s: Served;
beforeAll(async () => {
  s = await serve();
  for (const [path, body] of [['/v1/org/crews/desk', {}], ['/v1/org/crews/trading', { parent: 'desk' }], ['/v1/org/agents/0xMGR', { crew: 'trading' }]] as const) {
    expect((await call(s.url, 'PUT', path, { token: TOKENS.operator, json: body })).status).toBe(200);
  }
});
afterAll(async () => {
  await s?.close();
});

describe('the rules in force', () => {
  it('answers every rule with its file:line:col, the tool classes, the planning-gate profiles and the revision', async () => {
    const r = await call(s.url, 'GET', '/v1/rules', { token: TOKENS.operator });
    expect(r.status).toBe(200);
    expect(r.json.revision).toMatch(/^[0-9a-f]{64}$/);
    expect(r.json.revision).toBe(s.pg.status().rules.revision);
    expect(r.json.files).toEqual(expect.arrayContaining(['plan-required.yaml', 'seats.yaml']));
    const { planRequired, tools, planningGate, readGuard } = r.json.rules;
    expect(planRequired.workspace).toMatchObject({ mode: 'spends_only', source: expect.stringMatching(/^plan-required\.yaml:\d+:\d+$/) });
    expect(planRequired.crews.desk).toMatchObject({ mode: 'side_effects', windowMin: 15, source: expect.stringMatching(/^plan-required\.yaml:/) });
    expect(planRequired.agents['0xBOT']).toMatchObject({ mode: 'off', source: expect.stringMatching(/^seats\.yaml:/) });
    expect(tools.default).toBe('effect');
    expect(tools.patterns).toEqual(expect.arrayContaining([expect.objectContaining({ pattern: 'github.get_*', class: 'read', source: expect.stringMatching(/^tools\.yaml:/) })]));
    expect(planningGate.profiles.careful).toMatchObject({ enabled: true, readGuardMaxBytes: 262144, source: expect.stringMatching(/^planning\.yaml:/) });
    expect(planningGate.crews.trading).toMatchObject({ profile: 'careful' });
    expect(readGuard.tools['fs.read_file']).toMatchObject({ path: 'path', range: ['limit'], skip: ['offset'] });
  });

  it('is for operators and policy tokens (not reviewers: the rules are not theirs to read)', async () => {
    expect((await call(s.url, 'GET', '/v1/rules', { token: TOKENS.policy })).status).toBe(200);
    for (const token of [TOKENS.worker, TOKENS.reviewer, TOKENS.orchestrator]) {
      expect((await call(s.url, 'GET', '/v1/rules', { token })).status).toBe(403);
      expect((await call(s.url, 'GET', '/v1/seats/0xMGR', { token: token === TOKENS.worker ? TOKENS.bot : token })).status).toBe(403);
    }
    expect((await call(s.url, 'GET', '/v1/rules')).status).toBe(401);
  });
});

describe('as seat', () => {
  it('says what a seat runs under and where each value comes from: plan-required and the planning gate', async () => {
    const r = await call(s.url, 'GET', '/v1/seats/0xMGR', { token: TOKENS.operator });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ agent: '0xMGR', known: true, crews: ['trading', 'desk'] });
    expect(r.json.planRequired.mode).toMatchObject({ value: 'side_effects', scope: 'crew', id: 'trading', source: expect.stringMatching(/^plan-required\.yaml:\d+:\d+$/) });
    expect(r.json.planRequired.acceptUpstream).toMatchObject({ value: true, scope: 'crew', id: 'trading' });
    expect(r.json.planRequired.windowMin).toMatchObject({ value: 15, scope: 'crew', id: 'desk' });
    expect(r.json.planningGate.profile).toMatchObject({ name: 'careful', scope: 'crew', id: 'trading' });
    expect(r.json.planningGate.enabled.value).toBe(true);
    expect(r.json.planningGate.readGuardMaxBytes.value).toBe(262144);
  });

  it('answers an unknown seat under the workspace rule', async () => {
    const r = await call(s.url, 'GET', '/v1/seats/0xNOBODY', { token: TOKENS.operator });
    expect(r.json).toMatchObject({ agent: '0xNOBODY', known: false, crews: [], planRequired: { mode: { value: 'spends_only', scope: 'workspace' } } });
  });

  it('lets an agent read only its own seat, and refuses a malformed id', async () => {
    expect((await call(s.url, 'GET', '/v1/seats/0xMGR', { token: TOKENS.mgr })).status).toBe(200);
    const other = await call(s.url, 'GET', '/v1/seats/0xWORKER', { token: TOKENS.mgr });
    expect(other.status).toBe(403);
    expect(other.json.error.code).toBe('seat_mismatch');
    expect((await call(s.url, 'GET', `/v1/seats/${encodeURIComponent('bad id!')}`, { token: TOKENS.operator })).status).toBe(400);
  });
});

describe('GET /v1/whoami', () => {
  it('names the role and the name of the token presented, never the token', async () => {
    const op = await call(s.url, 'GET', '/v1/whoami', { token: TOKENS.operator });
    expect(op.json).toEqual({ role: 'operator', name: 'ops' });
    expect(op.text).not.toContain(TOKENS.operator);
    expect((await call(s.url, 'GET', '/v1/whoami', { token: TOKENS.worker })).json).toEqual({ role: 'agent', seat: '0xWORKER', name: 'agent:0xWORKER' });
    expect((await call(s.url, 'GET', '/v1/whoami', { token: TOKENS.reviewer })).json).toEqual({ role: 'reviewer', name: 'rev-ann' });
    expect((await call(s.url, 'GET', '/v1/whoami', { token: 'wrong-token-0123456789abcdef' })).status).toBe(401);
  });
});
