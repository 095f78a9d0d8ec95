/**
 * /health and /metrics while plangate fails open (the rules cannot be read at
 * start) and after a failed reload (the last good rules stay in force).
 */
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, serve, TOKENS, type Served } from './support.js';

describe('failing open', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve({ prepare: (rules) => writeFileSync(join(rules, 'broken.yaml'), 'planRequired:\n  workspace: { mode: sometimes }\n') });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('/health says degraded with the reason (503 with ?strict); /metrics says fail_open 1', async () => {
    expect((await call(s.url, 'GET', '/health')).json).toEqual({ status: 'degraded' }); // anonymous: nothing more
    const h = await call(s.url, 'GET', '/health', { token: TOKENS.operator });
    expect(h.status).toBe(200);
    expect(h.json).toMatchObject({ status: 'degraded', enforcing: false, failOpen: { reason: expect.stringContaining('broken.yaml') } });
    expect(h.json.reasons).toEqual([expect.stringMatching(/^failing open since .*broken\.yaml.*plan-required is NOT enforced/s)]);
    expect((await call(s.url, 'GET', '/health?strict')).status).toBe(503);
    const m = await call(s.url, 'GET', '/metrics');
    expect(m.text).toMatch(/^plangate_fail_open 1$/m);
    expect(m.text).toMatch(/^plangate_degraded 1$/m);
  });

  it('a call goes through, marked fail-open; the executor is called; the decision is counted as fail_open', async () => {
    const r = await call(s.url, 'POST', '/mcp/call', { token: TOKENS.worker, json: { name: 'github.merge_pull_request' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-plangate-fail-open')).toBe('true');
    expect(s.upstream.received).toHaveLength(1);
    const d = await call(s.url, 'POST', '/v1/decide', { token: TOKENS.worker, json: { tool: 'github.merge_pull_request' } });
    // The agent is told what failed, not the rule file's path and line: those are the operator's.
    expect(d.json).toMatchObject({ allowed: true, failOpen: { cause: 'policy', reason: "plangate's rules or policy cannot be read" } });
    expect(JSON.stringify(d.json)).not.toContain('broken.yaml');
    const o = await call(s.url, 'POST', '/v1/explain', { token: TOKENS.operator, json: { agent: '0xWORKER', tool: 'github.merge_pull_request' } });
    expect(o.json.decision.failOpen).toEqual({ cause: 'policy', reason: expect.stringContaining('broken.yaml') });
    expect((await call(s.url, 'GET', '/metrics')).text).toMatch(/^plangate_decisions_total\{outcome="fail_open",class="effect"\} 2$/m);
  });

  it('the executor is not told a delegation or a run nobody checked: the call goes through without them', async () => {
    s.upstream.received.length = 0;
    const r = await call(s.url, 'POST', '/mcp/call', { token: TOKENS.worker, json: { name: 'github.merge_pull_request', delegatedBy: ['0xNOBODY'], runId: 'r-1' } });
    expect(r.status).toBe(200);
    expect(s.upstream.received).toHaveLength(1);
    const sent = JSON.parse(s.upstream.received[0]!.body);
    expect(sent).toMatchObject({ agent: '0xWORKER', name: 'github.merge_pull_request' });
    expect(sent).not.toHaveProperty('delegatedBy');
    expect(sent).not.toHaveProperty('runId');
    expect(s.upstream.received[0]!.headers['x-plangate-run']).toBeUndefined();
  });

  it('the data API and the rules answer 503 policy_unavailable: there is no policy to ask', async () => {
    const o = await call(s.url, 'POST', '/v1/data/plangate/decision', { token: TOKENS.policy, json: { input: {} } });
    expect(o.status).toBe(503);
    expect(o.json).toEqual({ code: 'policy_unavailable', message: expect.stringContaining('failing open') });
    const r = await call(s.url, 'GET', '/v1/rules/plan-required', { token: TOKENS.operator });
    expect(r.status).toBe(503);
    expect(r.json.error.code).toBe('policy_unavailable');
  });
});

describe('a failed reload', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('keeps the last good rules in force; /health is degraded with the error until a good reload', async () => {
    writeFileSync(join(s.rules, 'bad.yaml'), 'planRequired:\n  crews:\n    ops: { mode: side_effects, windowMin: -5 }\n');
    await s.pg.reload();
    const h = await call(s.url, 'GET', '/health', { token: TOKENS.policy });
    expect(h.json).toMatchObject({ status: 'degraded', enforcing: true, reloadErrors: 1, lastReloadError: { message: expect.stringContaining('bad.yaml') } });
    expect(h.json.reasons).toEqual([expect.stringMatching(/^last reload failed at .*bad\.yaml.*the last good rules stay in force/s)]);
    const m = await call(s.url, 'GET', '/metrics');
    expect(m.text).toMatch(/^plangate_rules_reload_errors_total 1$/m);
    expect(m.text).toMatch(/^plangate_fail_open 0$/m);
    expect(m.text).toMatch(/^plangate_degraded 1$/m);
    const r = await call(s.url, 'POST', '/mcp/call', { token: TOKENS.worker, json: { name: 'github.merge_pull_request' } });
    expect(r.status).toBe(409); // still enforced

    rmSync(join(s.rules, 'bad.yaml'));
    await s.pg.reload();
    const ok = await call(s.url, 'GET', '/health', { token: TOKENS.operator });
    expect(ok.json).toMatchObject({ status: 'ok', reasons: [] });
  });
});
