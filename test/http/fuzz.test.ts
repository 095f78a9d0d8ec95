/**
 * A fuzz pass over real HTTP: malformed bodies built from a seeded generator
 * (deep nesting, lone UTF-16 surrogates in every field and key, wrong types,
 * odd numbers, huge strings) sent to every route that takes a body, with
 * real tokens. Client input must never cause a 5xx: each is answered 2xx or
 * 4xx, and the process keeps deciding afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, serve, TOKENS, type Served } from './support.js';
import { prng as rng } from '../support/rng.js';

let s: Served;
beforeAll(async () => {
  s = await serve();
});
afterAll(async () => {
  await s.close();
});

const SURROGATES = ['\ud800', '\udfff', 'a\udc00b', '\ud83d'];

/** Deep nesting as JSON text (JSON.stringify itself cannot go this deep). */
class Raw {
  constructor(readonly text: string) {}
}

function nested(depth: number, leaf: unknown): Raw {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    open += i % 2 === 0 ? '{"a":' : '[';
    close = (i % 2 === 0 ? '}' : ']') + close;
  }
  return new Raw(open + JSON.stringify(leaf) + close);
}

/** JSON text of a body whose values may be Raw. */
function text(body: Record<string, unknown>): string {
  const raws: string[] = [];
  const json = JSON.stringify(body, (_k, v: unknown) => (v instanceof Raw ? `\u0000RAW${raws.push(v.text) - 1}` : v));
  return json.replace(/"\\u0000RAW(\d+)"/g, (_m, i: string) => raws[Number(i)] as string);
}

/** A hostile value for one field. */
function hostile(r: () => number): unknown {
  const pick = Math.floor(r() * 12);
  switch (pick) {
    case 0: return SURROGATES[Math.floor(r() * SURROGATES.length)];
    case 1: return nested(5000 + Math.floor(r() * 3000), 1);
    case 2: return nested(200, SURROGATES[0]);
    case 3: return { [SURROGATES[1] as string]: 1 };
    case 4: return [1, 'x', null, { y: SURROGATES[2] }];
    case 5: return 1e308 * 10; // serialised as null
    case 6: return -1;
    case 7: return 'x'.repeat(Math.floor(r() * 20_000));
    case 8: return { __proto__: { polluted: true } };
    case 9: return true;
    case 10: return r() < 0.5 ? '' : 'a\u0000b';
    default: return 12.5;
  }
}

const ROUTES: Array<{ path: string; token: string; fields: string[] }> = [
  { path: '/v1/decide', token: TOKENS.worker, fields: ['tool', 'agent', 'runId', 'delegatedBy', 'args'] },
  { path: '/v1/explain', token: TOKENS.worker, fields: ['tool', 'agent', 'runId', 'delegatedBy', 'args', 'at'] },
  { path: '/mcp/call', token: TOKENS.worker, fields: ['name', 'arguments', '_meta', 'agent', 'runId', 'delegatedBy'] },
  { path: '/v1/say', token: TOKENS.worker, fields: ['thread', 'kind', 'body', 'runId', 'author'] },
  { path: '/v1/data/plangate/decision', token: TOKENS.policy, fields: ['input'] },
  { path: '/v1/holds/0xBOT', token: TOKENS.operator, fields: ['kind', 'task', 'by'] },
  { path: '/v1/holds/0xBOT/push-back', token: TOKENS.operator, fields: ['body', 'by'] },
  { path: '/v1/org/crews/fuzz', token: TOKENS.operator, fields: ['parent', 'name'] },
];

const BASE: Record<string, Record<string, unknown>> = {
  '/v1/decide': { tool: 'github.merge_pull_request' },
  '/v1/explain': { tool: 'github.merge_pull_request' },
  '/mcp/call': { name: 'github.merge_pull_request', arguments: { pr: 1 } },
  '/v1/say': { thread: 'agent:0xWORKER', kind: 'note', body: 'hi' },
  '/v1/data/plangate/decision': { input: { now: 0, call: { agent: 'a', tool: 't', delegatedBy: [] }, agent: { id: 'a', known: false, crews: [] }, upstream: [], messages: [] } },
  '/v1/holds/0xBOT': { task: 'fuzz' },
  '/v1/holds/0xBOT/push-back': { body: 'no' },
  '/v1/org/crews/fuzz': {},
};

describe('fuzz: client input never causes a 5xx', () => {
  it('answers every malformed request with a 2xx or 4xx, and keeps deciding', async () => {
    const r = rng(8077);
    const failures: string[] = [];
    let sent = 0;
    for (let round = 0; round < 25; round++) {
      for (const route of ROUTES) {
        const field = route.fields[Math.floor(r() * route.fields.length)] as string;
        const body = { ...BASE[route.path], [field]: hostile(r) };
        // Sometimes a hostile value one level down (inside args or input), or a hostile key.
        if (r() < 0.3 && route.path === '/mcp/call') body['arguments'] = { path: hostile(r), [SURROGATES[0] as string]: 1 };
        const a = await call(s.url, 'POST', route.path, { token: route.token, body: text(body), headers: { 'content-type': 'application/json' } });
        sent++;
        if (a.status >= 500) failures.push(`${route.path} ${field}: ${a.status} ${a.text.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBe(25 * ROUTES.length);
    const ok = await call(s.url, 'POST', '/v1/decide', { token: TOKENS.worker, json: { tool: 'github.merge_pull_request' } });
    expect(ok.status).toBe(200);
  });

  it('names the problem: deep nesting and a lone surrogate are 400s that say where', async () => {
    const asJson = { 'content-type': 'application/json' };
    const deep = await call(s.url, 'POST', '/mcp/call', { token: TOKENS.worker, body: text({ name: 'fs.read_file', arguments: { path: nested(5000, 'x') } }), headers: asJson });
    expect(deep.status).toBe(400);
    expect(deep.json.error).toMatchObject({ code: 'invalid_input' });
    expect(deep.json.error.message).toMatch(/^body is nested deeper than 128 levels \(at \/arguments\/path\//);
    for (const [path, body, where] of [
      ['/v1/decide', { tool: 'github.merge_pull_request', runId: '\ud800' }, 'body/runId'],
      ['/mcp/call', { name: 'fs.read_file', arguments: { path: 'a\udc00' } }, 'body/arguments/path'],
      ['/v1/say', { thread: 'agent:0xWORKER', kind: 'note', body: 'x\ud800' }, 'body/body'],
    ] as const) {
      const a = await call(s.url, 'POST', path, { token: TOKENS.worker, json: body });
      expect(a.status, path).toBe(400);
      expect(a.json.error.message, path).toBe(`${where}: a lone UTF-16 surrogate (such as \\ud800) is not text; send well-formed Unicode`);
    }
    // A NUL in a run id is refused before any store is asked (PostgreSQL cannot hold it, and a store error fails open).
    for (const path of ['/v1/decide', '/v1/explain', '/mcp/call'] as const) {
      const a = await call(s.url, 'POST', path, { token: TOKENS.worker, json: { ...BASE[path], runId: 'r\u0000' } });
      expect(a.status, path).toBe(400);
      expect(a.json.error.message, path).toMatch(/runId: a NUL character \(\\u0000\) cannot be stored/);
    }
    const data = await call(s.url, 'POST', '/v1/data/plangate/decision', { token: TOKENS.policy, body: text({ input: nested(3000, 1) }), headers: asJson });
    expect(data.status).toBe(400);
    expect(data.json.message).toMatch(/nested deeper than 128 levels/);
    const query = await call(s.url, 'GET', `/v1/data/plangate/decision?input=${encodeURIComponent('{"a":"\\ud800"}')}`, { token: TOKENS.policy });
    expect(query.status).toBe(400);
    expect(query.json.message).toBe('input/a: a lone UTF-16 surrogate (such as \\ud800) is not text; send well-formed Unicode');
    const hold = await call(s.url, 'POST', '/v1/holds/0xBOT', { token: TOKENS.operator, json: { task: 'fix \ud800', by: 'ops' } });
    expect(hold.status).toBe(400);
    expect((await call(s.url, 'GET', '/v1/holds/0xBOT', { token: TOKENS.operator })).status).toBe(404); // nothing was placed
    // Nothing was counted as a decision error.
    const metrics = await call(s.url, 'GET', '/metrics', { token: TOKENS.operator });
    expect(metrics.text).not.toMatch(/^plangate_decision_errors_total\{code="policy_unavailable"\} [1-9]/m);
  });
});
