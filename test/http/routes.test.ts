/**
 * Black-box tests of every route over real HTTP on loopback: each answer
 * code, authentication, the seat binding, and request validation.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, rawRequest, serve, TOKENS, type Served } from './support.js';

let s: Served;
beforeAll(async () => {
  s = await serve();
});
afterAll(async () => {
  await s?.close();
});

const json = (t: string, body: unknown) => ({ token: t, json: body });

describe('authentication', () => {
  it('401 for a missing, malformed or unknown token, with a Bearer challenge', async () => {
    const variants: Array<Record<string, string>> = [{}, { authorization: `Basic ${TOKENS.worker}` }, { authorization: 'Bearer not a token' }, { authorization: 'Bearer unknown-token-0123456789abcdef' }];
    for (const headers of variants) {
      const r = await call(s.url, 'POST', '/v1/decide', { headers, json: { tool: 'github.merge_pull_request' } });
      expect(r.status).toBe(401);
      expect(r.json.error.code).toBe('unauthorized');
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="plangate"/);
    }
  });

  it('403 for a valid token whose role may not use the route', async () => {
    const cases: Array<[string, string, string, unknown?]> = [
      [TOKENS.operator, 'POST', '/v1/decide', { tool: 'github.merge_pull_request' }],
      [TOKENS.policy, 'POST', '/mcp/call', { name: 'github.merge_pull_request' }],
      [TOKENS.operator, 'POST', '/mcp/call', { name: 'github.merge_pull_request' }],
      [TOKENS.worker, 'GET', '/v1/org'],
      [TOKENS.worker, 'PUT', '/v1/org/crews/desk', {}],
      [TOKENS.worker, 'PUT', '/v1/rules/plan-required/workspace', { mode: 'off' }],
      [TOKENS.worker, 'DELETE', '/v1/rules/plan-required/workspace'],
      [TOKENS.policy, 'POST', '/v1/say', { thread: 'org', kind: 'note', body: 'hi' }],
      [TOKENS.worker, 'POST', '/v1/data/plangate/decision', { input: {} }],
    ];
    for (const [token, method, path, body] of cases) {
      const r = await call(s.url, method, path, { token, ...(body !== undefined ? { json: body } : {}) });
      expect([path, r.status]).toEqual([path, 403]);
      expect(path.startsWith('/v1/data') ? r.json.code : r.json.error.code).toBe('forbidden');
    }
    expect(s.upstream.received).toHaveLength(0);
  });

  it('the token is never written to the audit log', async () => {
    await call(s.url, 'POST', '/v1/decide', json(TOKENS.worker, { tool: 'github.create_issue' }));
    const audit = readFileSync(s.auditFile, 'utf8');
    for (const t of Object.values(TOKENS)) expect(audit).not.toContain(t);
  });
});

describe('POST /v1/decide', () => {
  it('answers 200 with the decision, refused or allowed; the agent comes from the token', async () => {
    const refused = await call(s.url, 'POST', '/v1/decide', json(TOKENS.mgr, { tool: 'wallet.propose_spend', runId: 'r-1' }));
    expect(refused.status).toBe(200);
    expect(refused.json).toMatchObject({ allowed: false, agent: '0xMGR', code: 'plan_required:wallet.propose_spend:none', reason: 'none' });
    const ungated = await call(s.url, 'POST', '/v1/decide', json(TOKENS.mgr, { tool: 'github.merge_pull_request', agent: '0xMGR' }));
    expect(ungated.json).toMatchObject({ allowed: true, gated: false, agent: '0xMGR' });
  });

  it('403 seat_mismatch when the body names another seat', async () => {
    const r = await call(s.url, 'POST', '/v1/decide', json(TOKENS.worker, { tool: 'github.merge_pull_request', agent: '0xBOT' }));
    expect(r.status).toBe(403);
    expect(r.json.error).toMatchObject({ code: 'seat_mismatch', message: expect.stringContaining('0xWORKER') });
  });

  it('400 naming the field for unknown fields, wrong types and missing fields; the time cannot be set', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ tool: 'x', colour: 'red' }, /body: unknown field "colour"/],
      [{ tool: 42 }, /body\.tool must be string/],
      [{}, /body\.tool is required/],
      [{ tool: 'x', delegatedBy: 'boss' }, /body\.delegatedBy must be array/],
      [{ tool: 'x', runId: '' }, /body\.runId must NOT have fewer than 1 characters/],
      [{ tool: 'x', at: 0 }, /body: unknown field "at"/],
      [[1, 2], /body must be object/],
    ];
    for (const [body, message] of cases) {
      const r = await call(s.url, 'POST', '/v1/decide', json(TOKENS.worker, body));
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe('invalid_input');
      expect(r.json.error.message).toMatch(message);
      expect(r.json.error.details[0].path).toMatch(/^\//);
    }
    const many = await call(s.url, 'POST', '/v1/decide', json(TOKENS.worker, { tool: 7, runId: 8, extra: true }));
    expect(many.json.error.details).toHaveLength(3);
  });

  it('400 malformed_json, 415 for another content type, 400 for no body', async () => {
    const bad = await call(s.url, 'POST', '/v1/decide', { token: TOKENS.worker, body: '{"tool":', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('malformed_json');
    const form = await call(s.url, 'POST', '/v1/decide', { token: TOKENS.worker, body: 'tool=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
    expect(form.json.error.code).toBe('unsupported_media_type');
    const none = await call(s.url, 'POST', '/v1/decide', { token: TOKENS.worker });
    expect(none.status).toBe(400);
    expect(none.json.error.message).toMatch(/a JSON body is required/);
  });

  it('413 for an oversized body, declared or chunked, and the gate never sees it', async () => {
    const big = JSON.stringify({ tool: 'x', runId: 'r'.repeat(s.app.bodyLimit) });
    const declared = await call(s.url, 'POST', '/v1/decide', { token: TOKENS.worker, body: big, headers: { 'content-type': 'application/json' } });
    expect(declared.status).toBe(413);
    expect(declared.json.error.code).toBe('body_too_large');
    const chunk = Buffer.alloc(16 * 1024, 'a');
    const chunked = await rawRequest(s.url, {
      method: 'POST',
      path: '/v1/decide',
      headers: { authorization: `Bearer ${TOKENS.worker}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      chunks: ['{"tool":"x","runId":"', ...Array.from({ length: 12 }, () => chunk), '"}'],
    });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.text).error.code).toBe('body_too_large');
  });
});

describe('POST /v1/explain', () => {
  it('an agent explains its own call; an operator any agent at any time; nothing is audited', async () => {
    const before = s.audit().length;
    const own = await call(s.url, 'POST', '/v1/explain', json(TOKENS.worker, { tool: 'github.merge_pull_request' }));
    expect(own.status).toBe(200);
    expect(own.json.decision).toMatchObject({ allowed: false, agent: '0xWORKER' });
    expect(own.json.input.call.agent).toBe('0xWORKER');
    const op = await call(s.url, 'POST', '/v1/explain', json(TOKENS.operator, { agent: '0xBOT', tool: 'github.merge_pull_request', at: '2026-01-01T00:00:00Z' }));
    expect(op.status).toBe(200);
    expect(op.json.decision).toMatchObject({ allowed: true, agent: '0xBOT' });
    expect(op.json.input.now).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(s.audit().length).toBe(before);
  });

  it('400 when an operator names no agent; 403 when an agent sets the time or names another seat', async () => {
    expect((await call(s.url, 'POST', '/v1/explain', json(TOKENS.operator, { tool: 'x' }))).status).toBe(400);
    expect((await call(s.url, 'POST', '/v1/explain', json(TOKENS.worker, { tool: 'x', at: 0 }))).status).toBe(403);
    const other = await call(s.url, 'POST', '/v1/explain', json(TOKENS.worker, { tool: 'x', agent: '0xMGR' }));
    expect(other.status).toBe(403);
    expect(other.json.error.code).toBe('seat_mismatch');
  });
});

describe('POST /v1/say', () => {
  it('201: an agent posts as its seat; the body carries no author', async () => {
    const r = await call(s.url, 'POST', '/v1/say', json(TOKENS.bot, { thread: 'agent:0xBOT', kind: 'note', body: 'tidying up', runId: 'r-9' }));
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ author: '0xBOT', authorKind: 'agent', kind: 'note', thread: 'agent:0xBOT', runId: 'r-9' });
    expect(r.json.body).toBeUndefined();
  });

  it('a seat cannot post a plan as another seat: 403, nothing is stored, and the other seat is still refused', async () => {
    const r = await call(s.url, 'POST', '/v1/say', json(TOKENS.worker, { thread: 'org', kind: 'plan', body: 'propose the spend', author: '0xMGR' }));
    expect(r.status).toBe(403);
    expect(r.json.error.code).toBe('seat_mismatch');
    const stillRefused = await call(s.url, 'POST', '/v1/decide', json(TOKENS.mgr, { tool: 'wallet.propose_spend' }));
    expect(stillRefused.json).toMatchObject({ allowed: false, code: 'plan_required:wallet.propose_spend:none' });
    expect(stillRefused.json.candidates).toEqual([]);
  });

  it('an operator posts as a person, and a person\'s plan never counts for a seat', async () => {
    const r = await call(s.url, 'POST', '/v1/say', json(TOKENS.operator, { thread: 'agent:0xMGR', kind: 'plan', body: 'go ahead', author: 'alice' }));
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ author: 'alice', authorKind: 'human' });
    const byName = await call(s.url, 'POST', '/v1/say', json(TOKENS.operator, { thread: 'org', kind: 'note', body: 'hello' }));
    expect(byName.json).toMatchObject({ author: 'ops', authorKind: 'human' });
    const d = await call(s.url, 'POST', '/v1/decide', json(TOKENS.mgr, { tool: 'wallet.propose_spend' }));
    expect(d.json.allowed).toBe(false);
  });

  it('400 for a bad thread, kind or body', async () => {
    for (const [body, message] of [
      [{ thread: 'team:x', kind: 'plan', body: 'b' }, /body\.thread must match pattern/],
      [{ thread: 'org', kind: 'Plan!', body: 'b' }, /body\.kind must match pattern/],
      [{ thread: 'org', kind: 'plan' }, /body\.body is required/],
      [{ thread: 'org', kind: 'plan', body: 'x'.repeat(65537) }, /body\.body must NOT have more than 65536 characters/],
      [{ thread: 'agent:__proto__', kind: 'plan', body: 'b' }, /thread/],
    ] as Array<[unknown, RegExp]>) {
      const r = await call(s.url, 'POST', '/v1/say', json(TOKENS.worker, body));
      expect(r.status).toBe(400);
      expect(r.json.error.message).toMatch(message);
    }
  });
});

describe('the org', () => {
  it('an operator lists and edits crews and agents', async () => {
    expect((await call(s.url, 'PUT', '/v1/org/crews/desk', json(TOKENS.operator, {}))).json).toEqual({ id: 'desk', parent: null });
    expect((await call(s.url, 'PUT', '/v1/org/crews/trading', json(TOKENS.operator, { parent: 'desk' }))).status).toBe(200);
    const a = await call(s.url, 'PUT', '/v1/org/agents/0xWORKER', json(TOKENS.operator, { crew: 'trading' }));
    expect(a.status).toBe(200);
    expect(a.json).toEqual({ id: '0xWORKER', crew: 'trading' });
    const list = await call(s.url, 'GET', '/v1/org', { token: TOKENS.operator });
    expect(list.status).toBe(200);
    expect(list.json.crews).toEqual(expect.arrayContaining([{ id: 'desk', parent: null }, { id: 'trading', parent: 'desk' }]));
    expect(list.json.agents).toEqual(expect.arrayContaining([{ id: '0xWORKER', crew: 'trading' }]));
  });

  it('404 for an unknown parent or crew, 409 for a cycle, 400 for a bad id or body', async () => {
    const unknownParent = await call(s.url, 'PUT', '/v1/org/crews/ops', json(TOKENS.operator, { parent: 'nowhere' }));
    expect(unknownParent.status).toBe(404);
    expect(unknownParent.json.error.code).toBe('not_found');
    expect((await call(s.url, 'PUT', '/v1/org/agents/0xA', json(TOKENS.operator, { crew: 'nowhere' }))).status).toBe(404);
    await call(s.url, 'PUT', '/v1/org/crews/a1', json(TOKENS.operator, {}));
    await call(s.url, 'PUT', '/v1/org/crews/b1', json(TOKENS.operator, { parent: 'a1' }));
    const cycle = await call(s.url, 'PUT', '/v1/org/crews/a1', json(TOKENS.operator, { parent: 'b1' }));
    expect(cycle.status).toBe(409);
    expect(cycle.json.error.code).toBe('conflict');
    expect((await call(s.url, 'PUT', '/v1/org/crews/%20bad', json(TOKENS.operator, {}))).status).toBe(400);
    const noCrew = await call(s.url, 'PUT', '/v1/org/agents/0xA', json(TOKENS.operator, {}));
    expect(noCrew.status).toBe(400);
    expect(noCrew.json.error.message).toMatch(/body\.crew is required/);
  });
});

describe('rules', () => {
  it('reads the rules in force, all of them or as one seat; an agent reads only its own seat', async () => {
    const all = await call(s.url, 'GET', '/v1/rules/plan-required', { token: TOKENS.operator });
    expect(all.status).toBe(200);
    expect(all.json.planRequired.agents['0xWORKER']).toMatchObject({ mode: 'side_effects', windowMin: 10 });
    expect(all.json.revision).toMatch(/^[0-9a-f]{64}$/);
    expect((await call(s.url, 'GET', '/v1/rules/plan-required', { token: TOKENS.policy })).status).toBe(200);

    const asBot = await call(s.url, 'GET', '/v1/rules/plan-required?as=0xBOT', { token: TOKENS.operator });
    expect(asBot.json).toMatchObject({ agent: '0xBOT', settings: { mode: { value: 'off', scope: 'agent', id: '0xBOT' } } });
    const own = await call(s.url, 'GET', '/v1/rules/plan-required?as=0xWORKER', { token: TOKENS.worker });
    expect(own.status).toBe(200);
    expect(own.json.settings.windowMin.value).toBe(10);
    const other = await call(s.url, 'GET', '/v1/rules/plan-required?as=0xBOT', { token: TOKENS.worker });
    expect(other.status).toBe(403);
    expect(other.json.error.code).toBe('seat_mismatch');
    expect((await call(s.url, 'GET', '/v1/rules/plan-required', { token: TOKENS.worker })).status).toBe(403);
  });

  it('an operator sets and clears a rule: the rule file is edited in place, reloaded, and in force at once', async () => {
    const before = await call(s.url, 'GET', '/v1/rules/plan-required', { token: TOKENS.operator });
    const set = await call(s.url, 'PUT', '/v1/rules/plan-required/agents/0xMGR', json(TOKENS.operator, { mode: 'side_effects', windowMin: 5 }));
    expect(set.status).toBe(200);
    expect(set.json).toMatchObject({ scope: { kind: 'agent', id: '0xMGR' }, changed: true, file: 'seats.yaml', reloaded: true });
    expect(set.json.revision).not.toBe(before.json.revision);
    const text = readFileSync(join(s.rules, 'seats.yaml'), 'utf8');
    expect(text).toMatch(/0xMGR:.*side_effects/);
    expect(text).toContain('# The housekeeping bot is carved out'); // comments kept
    const gated = await call(s.url, 'POST', '/v1/decide', json(TOKENS.mgr, { tool: 'github.merge_pull_request' }));
    expect(gated.json).toMatchObject({ allowed: false, code: 'plan_required:github.merge_pull_request:none' });

    const again = await call(s.url, 'PUT', '/v1/rules/plan-required/agents/0xMGR', json(TOKENS.operator, { mode: 'side_effects', windowMin: 5 }));
    expect(again.json).toMatchObject({ changed: false, reloaded: false });
    const cleared = await call(s.url, 'DELETE', '/v1/rules/plan-required/agents/0xMGR', { token: TOKENS.operator });
    expect(cleared.json).toMatchObject({ changed: true, file: 'seats.yaml', reloaded: true, revision: before.json.revision });
    const nothing = await call(s.url, 'DELETE', '/v1/rules/plan-required/agents/0xMGR', { token: TOKENS.operator });
    expect(nothing.json).toMatchObject({ changed: false, file: null });
    const ws = await call(s.url, 'PUT', '/v1/rules/plan-required/workspace', json(TOKENS.operator, { mode: 'spends_only', windowMin: 30, acceptUpstream: false }));
    expect(ws.status).toBe(200);
    const crew = await call(s.url, 'PUT', '/v1/rules/plan-required/crews/ops', json(TOKENS.operator, { mode: 'off' }));
    expect(crew.json).toMatchObject({ changed: true, scope: { kind: 'crew', id: 'ops' } });
    expect((await call(s.url, 'DELETE', '/v1/rules/plan-required/crews/ops', { token: TOKENS.operator })).json.changed).toBe(true);
  });

  it('sets a rule in shadow mode: the would-be refusal goes through, marked', async () => {
    const set = await call(s.url, 'PUT', '/v1/rules/plan-required/agents/0xMGR', json(TOKENS.operator, { mode: 'side_effects', enforce: false }));
    expect(set.json).toMatchObject({ changed: true, reloaded: true });
    const d = await call(s.url, 'POST', '/v1/decide', json(TOKENS.mgr, { tool: 'github.merge_pull_request' }));
    expect(d.json).toMatchObject({ allowed: true, shadow: true, code: 'plan_required:github.merge_pull_request:none' });
    expect((await call(s.url, 'DELETE', '/v1/rules/plan-required/agents/0xMGR', { token: TOKENS.operator })).json.changed).toBe(true);
  });

  it('400 for a malformed rule, 422 for an edit the rules refuse', async () => {
    const bad = await call(s.url, 'PUT', '/v1/rules/plan-required/crews/desk', json(TOKENS.operator, { mode: 'sometimes', windowMin: 0 }));
    expect(bad.status).toBe(400);
    expect(bad.json.error.details.map((d: { message: string }) => d.message)).toEqual([
      expect.stringMatching(/body\.mode must be one of off, spends_only, side_effects/),
      expect.stringMatching(/body\.windowMin must be >= 1/),
    ]);
    const refused = await call(s.url, 'PUT', '/v1/rules/plan-required/agents/__proto__', json(TOKENS.operator, { mode: 'off' }));
    expect(refused.status).toBe(422);
    expect(refused.json.error.code).toBe('rules_edit_refused');
  });
});

describe('routing', () => {
  it('404 for an unknown route, 405 with Allow for a known route and another method', async () => {
    const missing = await call(s.url, 'GET', '/v2/nothing', { token: TOKENS.operator });
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('route_not_found');
    const wrong = await call(s.url, 'GET', '/v1/decide', { token: TOKENS.worker });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    expect(wrong.json.error.code).toBe('method_not_allowed');
  });
});

describe('GET /health and GET /metrics', () => {
  it('/health is open and says only ok; with an operator or policy token, the rules and policy in force', async () => {
    expect((await call(s.url, 'GET', '/health')).json).toEqual({ status: 'ok' });
    expect((await call(s.url, 'GET', '/health', { token: TOKENS.worker })).json).toEqual({ status: 'ok' });
    expect((await call(s.url, 'GET', '/health', { token: 'not-a-token-0123456789' })).json).toEqual({ status: 'ok' });
    const r = await call(s.url, 'GET', '/health', { token: TOKENS.operator });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status: 'ok', reasons: [], enforcing: true });
    expect(r.json.rules.files).toEqual(expect.arrayContaining(['plan-required.yaml', 'seats.yaml', 'tools.yaml']));
    expect(r.json.policy.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await call(s.url, 'GET', '/health?strict')).status).toBe(200);
  });

  it('/metrics is open Prometheus text: decisions by outcome and class, latency, requests, reloads, fail-open', async () => {
    await call(s.url, 'POST', '/v1/decide', json(TOKENS.worker, { tool: 'fs.read_file', args: { path: 'README.md', offset: 0 } }));
    const r = await call(s.url, 'GET', '/metrics');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(r.text).toMatch(/^plangate_decisions_total\{outcome="refused",class="spend"\} \d+$/m);
    expect(r.text).toMatch(/^plangate_decisions_total\{outcome="allowed",class="read"\} \d+$/m);
    expect(r.text).toMatch(/^plangate_decision_duration_seconds_bucket\{le="0\.001"\} \d+$/m);
    expect(r.text).toMatch(/^plangate_decision_duration_seconds_count \d+$/m);
    expect(r.text).toMatch(/^plangate_http_requests_total\{route="\/v1\/decide",method="POST",status="400"\} \d+$/m);
    expect(r.text).toMatch(/^plangate_rules_reloads_total [1-9]\d*$/m); // the rules edits above reloaded
    expect(r.text).toMatch(/^plangate_rules_reload_errors_total 0$/m);
    expect(r.text).toMatch(/^plangate_fail_open 0$/m);
    expect(r.text).toMatch(/^plangate_process_cpu_seconds_total /m);
    for (const t of Object.values(TOKENS)) expect(r.text).not.toContain(t);
  });
});

describe('rules pinned by the environment', () => {
  it('422 for an edit of the workspace rule, as the CLI refuses it; crew and agent rules can still be edited', async () => {
    const pinned = await serve({ env: { PLANGATE_WORKSPACE_MODE: 'side_effects' } });
    try {
      for (const [method, body] of [['PUT', { mode: 'off' }], ['DELETE', undefined]] as const) {
        const r = await call(pinned.url, method, '/v1/rules/plan-required/workspace', { token: TOKENS.operator, ...(body ? { json: body } : {}) });
        expect(r.status).toBe(422);
        expect(r.json.error).toMatchObject({ code: 'rules_edit_refused', message: expect.stringContaining('PLANGATE_WORKSPACE_MODE=side_effects') });
      }
      const crew = await call(pinned.url, 'PUT', '/v1/rules/plan-required/crews/ops', { token: TOKENS.operator, json: { mode: 'off' } });
      expect(crew.status).toBe(200);
      const inForce = await call(pinned.url, 'GET', '/v1/rules/plan-required', { token: TOKENS.operator });
      expect(inForce.json.planRequired.workspace.mode).toBe('side_effects');
    } finally {
      await pinned.close();
    }
  });
});
