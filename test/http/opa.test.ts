/**
 * The OPA-compatible data API: its answers for the entrypoints, the rules and
 * unknown paths, and the differential test — for 1,000 random inputs plangate
 * answers exactly what `opa run -s` answers when loaded with the bundle from
 * `plangate compile` (CI installs the pinned opa; without it the differential
 * test is listed as a todo with the reason).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTRYPOINTS } from '../../src/engine/policy.js';
import { differentialCases } from './opa-inputs.js';
import { findOpa, startOpaServer, type OpaServer } from './opa-server.js';
import { call, EXAMPLES, serve, TOKENS, type Served } from './support.js';

const SEAT = { id: '0xWORKER', known: true, crews: ['trading', 'desk'] };
const INPUT = {
  now: 1_780_000_000_000,
  call: { agent: '0xWORKER', tool: 'github.merge_pull_request', delegatedBy: [] },
  agent: SEAT,
  upstream: [],
  messages: [{ id: '1', thread: 'crew:desk', author: '0xWORKER', authorKind: 'agent', kind: 'plan', at: 1_780_000_000_000 - 60_000 }],
};

let s: Served;
beforeAll(async () => {
  s = await serve();
});
afterAll(async () => {
  await s?.close();
});

const data = (path: string, body?: unknown, token: string = TOKENS.policy) =>
  call(s.url, 'POST', `/v1/data/${path}`, { token, ...(body !== undefined ? { json: body } : {}) });

describe('POST /v1/data/<path>', () => {
  it('evaluates an entrypoint on the input as given, no facts gathered, nothing audited', async () => {
    const r = await data('plangate/decision', { input: INPUT });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(['result']);
    expect(r.json.result).toMatchObject({ allowed: true, agent: '0xWORKER', plan: { id: '1', via: 'fresh' } });
    const eff = await data('plangate/effective', { input: { agent: SEAT } }, TOKENS.operator);
    expect(eff.json.result.mode).toMatchObject({ value: 'side_effects', scope: 'agent', id: '0xWORKER' });
    expect(s.audit()).toEqual([]);
  });

  it('follows a path into a result or into the rules, as a reference into a document does', async () => {
    expect((await data('plangate/decision/allowed', { input: INPUT })).json).toEqual({ result: true });
    expect((await data('plangate/decision/plan/via', { input: INPUT })).json).toEqual({ result: 'fresh' });
    expect((await data('plangate/decision/candidates/0/id', { input: INPUT })).json).toEqual({ result: '1' });
    expect((await data('plangate/decision/candidates/x', { input: INPUT })).json).toEqual({});
    expect((await data('plangate/rules/planRequired/agents/0xBOT', { input: 1 })).json).toEqual({ result: { mode: 'off', source: 'seats.yaml:12:5' } });
  });

  it('answers {} for an undefined document: no such path, or an input the entrypoint does not apply to', async () => {
    expect((await data('nothing/here', { input: INPUT })).json).toEqual({});
    expect((await data('plangate/decision', { input: {} })).json).toEqual({});
    expect((await data('plangate/effective', { input: [1, 2] })).json).toEqual({});
  });

  it('warns when the input key is missing, as OPA does', async () => {
    const warning = { code: 'api_usage_warning', message: "'input' key missing from the request" };
    expect((await data('plangate/decision', {})).json).toEqual({ warning });
    expect((await data('plangate/decision')).json).toEqual({ warning });
    expect((await data('plangate/decision', { input: null })).json).toEqual({ warning });
    expect((await data('plangate/rules/tools/default', {})).json).toEqual({ result: 'effect', warning });
  });

  it('GET evaluates with ?input=<json>; ?pretty indents', async () => {
    const r = await call(s.url, 'GET', `/v1/data/plangate/effective/mode/value?input=${encodeURIComponent(JSON.stringify({ agent: SEAT }))}`, { token: TOKENS.policy });
    expect(r.json).toEqual({ result: 'side_effects' });
    expect((await call(s.url, 'GET', '/v1/data/plangate/effective', { token: TOKENS.policy })).json).toEqual({});
    const pretty = await call(s.url, 'POST', '/v1/data/plangate/rules/tools/default?pretty=true', { token: TOKENS.policy, json: { input: 1 } });
    expect(pretty.text).toBe('{\n  "result": "effect"\n}\n');
  });

  it('404 document_not_served for the whole document and the policy\'s internal rules, in OPA\'s error shape', async () => {
    for (const path of ['', 'plangate', 'plangate/plan_required/gated', 'plangate/classify']) {
      const r = await call(s.url, 'POST', `/v1/data${path ? `/${path}` : ''}`, { token: TOKENS.policy, json: { input: {} } });
      expect(r.status).toBe(404);
      expect(r.json).toEqual({ code: 'document_not_served', message: expect.stringContaining('plangate/decision') });
    }
  });

  it('400 for a body that is not JSON or not an object; 401 without a token; 403 for an agent token — all in OPA\'s error shape', async () => {
    const bad = await call(s.url, 'POST', '/v1/data/plangate/decision', { token: TOKENS.policy, body: '{"input":', headers: { 'content-type': 'text/plain' } });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ code: 'malformed_json', message: expect.any(String) });
    const arr = await data('plangate/decision', [1]);
    expect(arr.status).toBe(400);
    expect(arr.json.code).toBe('invalid_input');
    const anon = await call(s.url, 'POST', '/v1/data/plangate/decision', { json: { input: INPUT } });
    expect(anon.status).toBe(401);
    expect(anon.json.code).toBe('unauthorized');
    const agent = await data('plangate/decision', { input: INPUT }, TOKENS.worker);
    expect(agent.status).toBe(403);
    expect(agent.json.code).toBe('forbidden');
  });

  it('400 for an input with longer lists than any decision the gate gathers, before it is evaluated', async () => {
    const seats = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `m${i}`, known: true, crews: ['desk'] }));
    const plans = (n: number) => Array.from({ length: n }, (_, i) => ({ ...INPUT.messages[0], id: String(i) }));
    // At the bounds, evaluated as ever.
    for (const entry of ['plangate/decide', 'plangate/decision']) {
      expect((await data(entry, { input: { ...INPUT, upstream: seats(16), messages: plans(100) } })).status, entry).toBe(200);
    }
    // Past them (5,000 upstream seats against 700 plans took a second of the process's only thread and all the policy's memory).
    const long = await data('plangate/decide', { input: { ...INPUT, upstream: Array.from({ length: 5000 }, () => ({ id: 'm' })), messages: plans(700) } });
    expect(long.status).toBe(400);
    expect(long.json).toMatchObject({ code: 'invalid_input', message: 'input.upstream has 5000 entries, more than 16: no decision the gate gathers has as many' });
    const many = Array.from({ length: 4097 }, (_, i) => ({ id: String(i) }));
    expect((await data('plangate/decision', { input: { ...INPUT, messages: many } })).json.message).toMatch(/^input\.messages has 4097 entries, more than 4096/);
  });
});

const opa = findOpa();
const N = 1000;

describe.runIf(opa)(`differential: plangate vs opa run -s (${opa?.version ?? 'no opa'})`, () => {
  let server: OpaServer;
  beforeAll(async () => {
    server = await startOpaServer(opa!, EXAMPLES);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it(`answers exactly as OPA for ${N} random inputs`, async () => {
    const cases = differentialCases(N, 4242, Object.values(ENTRYPOINTS));
    expect(cases).toHaveLength(N);
    const mismatches: Array<{ entrypoint: string; input: unknown; plangate: unknown; opa: unknown }> = [];
    let defined = 0;
    const one = async (c: (typeof cases)[number]): Promise<void> => {
      const body = JSON.stringify({ input: c.input });
      const [mine, theirs] = await Promise.all([
        fetch(`${s.url}/v1/data/${c.entrypoint}`, { method: 'POST', body, headers: { authorization: `Bearer ${TOKENS.policy}`, 'content-type': 'application/json' } }),
        fetch(`${server.url}/v1/data/${c.entrypoint}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } }),
      ]);
      const a = { status: mine.status, body: await mine.json() };
      const b = { status: theirs.status, body: await theirs.json() };
      if ('result' in (b.body as object)) defined++;
      try {
        expect(a).toEqual(b);
      } catch {
        mismatches.push({ entrypoint: c.entrypoint, input: c.input, plangate: a, opa: b });
      }
    };
    for (let i = 0; i < cases.length; i += 8) await Promise.all(cases.slice(i, i + 8).map(one));
    expect(mismatches.slice(0, 3)).toEqual([]);
    expect(mismatches).toHaveLength(0);
    // The generator must mostly produce inputs the policy answers.
    expect(defined).toBeGreaterThan(N * 0.8);
  }, 120_000);
});

if (!opa) {
  describe('differential: plangate vs opa run -s', () => {
    const why = 'no opa binary found — needs the pinned opa CLI (.tools/bin/opa or opa on PATH; CI installs it)';
    // Under CI=true a missing OPA is a failure, never a skip.
    if (process.env['CI'] === 'true') it('runs against the pinned opa', () => { throw new Error(why); });
    else it.todo(`SKIPPED: ${why}`);
  });
}
