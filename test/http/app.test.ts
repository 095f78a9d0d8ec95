/**
 * The app factory without a socket: option checks at build time, answers
 * through the in-process `request`, the one status map, the route extension
 * point, and what the policy sees of an MCP call's arguments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp, type HttpAppOptions } from '../../src/adapters/http/app.js';
import { createTokenSet } from '../../src/adapters/http/auth.js';
import { HttpCode, STATUS } from '../../src/adapters/http/errors.js';
import { createExecutors } from '../../src/adapters/http/executors.js';
import { httpOptionsFrom } from '../../src/adapters/http/plangate.js';
import { Router } from '../../src/adapters/http/router.js';
import { argsForPolicy } from '../../src/adapters/http/routes/calls.js';
import { ErrorCode, PlangateError } from '../../src/core/errors.js';
import { openPlangate, type Plangate } from '../../src/main/open.js';
import { EXAMPLES, TOKEN_ENTRIES, TOKENS } from './support.js';

let pg: Plangate;
let base: HttpAppOptions;
beforeAll(async () => {
  pg = await openPlangate({ rules: EXAMPLES, store: ':memory:', auditSink: { record: () => {} }, env: {}, log: () => {} });
  base = { ...httpOptionsFrom(pg), tokens: createTokenSet(TOKEN_ENTRIES) };
});
afterAll(async () => {
  await pg?.close();
});

describe('createHttpApp', () => {
  it('throws at build time on missing or bad options', () => {
    expect(() => createHttpApp(undefined as never)).toThrow(TypeError);
    expect(() => createHttpApp({ ...base, gate: undefined as never })).toThrow(/options\.gate is required/);
    expect(() => createHttpApp({ ...base, tokens: undefined as never })).toThrow(/options\.tokens is required/);
    expect(() => createHttpApp({ ...base, tokens: {} as never })).toThrow(/must be a token set/);
    expect(() => createHttpApp({ ...base, policy: 'opa' as never })).toThrow(/options\.policy must be a function/);
    expect(() => createHttpApp({ ...base, bodyLimit: 10 })).toThrow(/bodyLimit/);
    expect(() => createHttpApp({ ...base, status: {} as never })).toThrow(/options\.status must be a function/);
    expect(() => createExecutors({ tools: { 'a.*': 'ftp://x' } })).toThrow(/tools\.a\.\* .*must match pattern/);
    expect(() => createExecutors({ tools: { 'a*b': 'http://x' } } as never)).toThrow(/property name/);
    expect(() => createExecutors({} as never)).toThrow(/executors\.tools is required/);
  });

  it('answers in-process, without a socket', async () => {
    const app = createHttpApp(base);
    const health = await app.request('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.json.status).toBe('ok');
    const refused = await app.request('POST', '/mcp/call', { token: TOKENS.worker, json: { name: 'github.merge_pull_request' } });
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe('plan_required:github.merge_pull_request:none');
    const big = await app.request('POST', '/v1/decide', { token: TOKENS.worker, json: { tool: 'x', runId: 'r'.repeat(200_000) } });
    expect(big.status).toBe(413);
    const noExecutor = await app.request('POST', '/mcp/call', { token: TOKENS.bot, json: { name: 'github.merge_pull_request' } });
    expect(noExecutor.status).toBe(404);
    expect(noExecutor.json.error.code).toBe('no_executor');
  });

  it('takes more route modules, authenticated and validated like the built-in ones (how more areas plug in)', async () => {
    const app = createHttpApp({
      ...base,
      routes: [
        (router, deps) => router.add({
          method: 'POST',
          path: '/v1/extra/:agent',
          roles: ['operator'],
          body: { schema: 'org-agent' },
          handle: async (ctx) => ({ status: 201, body: { agent: ctx.params['agent'], body: ctx.body, known: (await deps.org.lineage(ctx.params['agent'] as string)).known } }),
        }),
      ],
    });
    const ok = await app.request('POST', '/v1/extra/0xW', { token: TOKENS.operator, json: { crew: 'desk' } });
    expect(ok.status).toBe(201);
    expect(ok.json).toEqual({ agent: '0xW', body: { crew: 'desk' }, known: false });
    expect((await app.request('POST', '/v1/extra/0xW', { token: TOKENS.worker, json: { crew: 'desk' } })).status).toBe(403);
    expect((await app.request('POST', '/v1/extra/0xW', { token: TOKENS.operator, json: { crew: 1 } })).status).toBe(400);
    expect(() => createHttpApp({ ...base, routes: [(router) => router.add({ method: 'GET', path: '/health', roles: 'open', body: 'none', handle: () => ({}) })] })).toThrow(/duplicate route GET \/health/);
  });

  it('reports an unexpected error as 500 internal without its message, and tells onError', async () => {
    const seen: unknown[] = [];
    const app = createHttpApp({
      ...base,
      onError: (e) => seen.push(e),
      routes: [(router) => router.add({ method: 'GET', path: '/boom', roles: 'open', body: 'none', handle: () => { throw new Error('secret detail'); } })],
    });
    const r = await app.request('GET', '/boom');
    expect(r.status).toBe(500);
    expect(r.json).toEqual({ error: { code: 'internal', message: 'internal error' } });
    expect(seen).toHaveLength(1);
  });

  it('answers a store that cannot be reached as 503 store_unavailable with Retry-After, and a broken one as 500', async () => {
    const app = createHttpApp({
      ...base,
      routes: [
        (router) => router.add({ method: 'GET', path: '/away', roles: 'open', body: 'none', handle: () => { throw new PlangateError(ErrorCode.StoreUnavailable, 'postgres store: lineage failed: the database cannot be reached'); } }),
        (router) => router.add({ method: 'GET', path: '/broken', roles: 'open', body: 'none', handle: () => { throw new PlangateError(ErrorCode.StoreFailure, 'sqlite store: the crew chain of W is deeper than 64'); } }),
      ],
    });
    const away = await app.request('GET', '/away');
    expect([away.status, away.headers['Retry-After'], away.json.error.code]).toEqual([503, '1', 'store_unavailable']);
    const broken = await app.request('GET', '/broken');
    expect([broken.status, broken.headers['Retry-After'], broken.json.error.code]).toEqual([500, undefined, 'store_failure']);
  });
});

describe("a store error's own message", () => {
  it('is read by an operator only: anyone else gets what its code means, and the log gets the message', async () => {
    const secret = 'postgres store: say failed: the database at db.internal:5432 (user plangate) cannot be reached (ECONNREFUSED 10.0.0.5:5432)';
    const app = createHttpApp({
      ...base,
      routes: [
        (router) => router.add({ method: 'GET', path: '/away', roles: ['agent', 'operator'], body: 'none', handle: () => { throw new PlangateError(ErrorCode.StoreUnavailable, secret); } }),
        (router) => router.add({ method: 'GET', path: '/broken', roles: 'open', body: 'none', handle: () => { throw new PlangateError(ErrorCode.StoreFailure, 'sqlite store: /var/lib/plangate/plangate.db: database disk image is malformed', [{ path: '/x', message: 'at /var/lib' }]); } }),
      ],
    });
    const logged: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => logged.push(String(chunk)) > 0) as typeof process.stderr.write;
    try {
      const agent = await app.request('GET', '/away', { token: TOKENS.worker });
      expect(agent.status).toBe(503);
      expect(agent.json.error).toEqual({ code: 'store_unavailable', message: "plangate's store cannot be reached; retry in a moment" });
      const anonymous = await app.request('GET', '/broken');
      expect(anonymous.json.error).toEqual({ code: 'store_failure', message: "plangate's store failed" });
      const operator = await app.request('GET', '/away', { token: TOKENS.operator });
      expect(operator.json.error).toEqual({ code: 'store_unavailable', message: secret });
    } finally {
      process.stderr.write = write;
    }
    expect(logged).toHaveLength(2);
    expect(logged[0]).toBe(`plangate: store_unavailable on GET /away: ${secret}\n`);
    expect(logged[1]).toMatch(/^plangate: store_failure on GET \/broken: .*disk image is malformed/);
  });
});

describe('the status map', () => {
  it('has one HTTP status for every core error code and every adapter code', () => {
    for (const code of [...Object.values(ErrorCode), ...Object.values(HttpCode)]) expect(STATUS[code], code).toBeGreaterThanOrEqual(400);
    expect(STATUS[ErrorCode.PlanRequired]).toBe(409);
    expect(STATUS[HttpCode.Forbidden]).toBe(403);
    expect(STATUS[HttpCode.Unauthorized]).toBe(401);
  });
});

describe('Router', () => {
  it('matches exact paths, :params (decoded) and a trailing *', () => {
    const r = new Router();
    const h = () => ({});
    r.add({ method: 'GET', path: '/a', roles: 'open', body: 'none', handle: h });
    r.add({ method: 'PUT', path: '/a/:id/b', roles: 'open', body: 'none', handle: h });
    r.add({ method: 'POST', path: '/d/*', roles: 'open', body: 'none', handle: h });
    expect(r.match('GET', '/a')).toMatchObject({ kind: 'route', params: {} });
    expect(r.match('PUT', '/a/x%3Ay/b')).toMatchObject({ kind: 'route', params: { id: 'x:y' } });
    expect(r.match('PUT', '/a//b')).toEqual({ kind: 'not_found' });
    expect(r.match('POST', '/d/p/q')).toMatchObject({ kind: 'route', params: { '*': 'p/q' } });
    expect(r.match('POST', '/d')).toEqual({ kind: 'not_found' });
    expect(r.match('DELETE', '/a')).toEqual({ kind: 'method_not_allowed', allow: ['GET'] });
  });
});

describe('argsForPolicy', () => {
  it('keeps small arguments with plain names, names the large values it leaves out, and refuses more than 64', () => {
    const args = JSON.parse('{"path":"a.log","offset":10,"content":"' + 'x'.repeat(5000) + '","bad key":1,"__proto__":{"x":1}}');
    expect(argsForPolicy(args)).toEqual({ args: { path: 'a.log', offset: 10 }, omitted: ['content'], whole: false });
    expect(argsForPolicy({ path: 'a.log', offset: 10 })).toEqual({ args: { path: 'a.log', offset: 10 }, omitted: [], whole: true });
    expect(argsForPolicy({ path: 'a.log', 'no such name!': 1 }).whole).toBe(false);
    const most = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`k${i}`, i]));
    expect(Object.keys(argsForPolicy(most).args)).toHaveLength(64);
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i]));
    expect(() => argsForPolicy(many)).toThrow('arguments has 65 keys, more than the 64 the policy can be given');
  });
});

describe('the HTTP reference', () => {
  it('documents every route in its route table', async () => {
    const { section } = await import('../docs/snippets.js');
    const table = section('docs/reference/http-api.md', '# HTTP routes');
    expect(table).toContain('| method and path |');
    const app = createHttpApp(base);
    const missing = app.router.routes()
      .filter((r) => r.path !== '/v1/data')
      .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{path}')}`)
      .filter((line) => !table.includes(`\`${line}\``) && !table.includes(`\`${line}?`));
    expect(missing).toEqual([]);
  });
});
