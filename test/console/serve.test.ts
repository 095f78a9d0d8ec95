/**
 * The console's files: served at /console from the built bundle with a
 * strict Content-Security-Policy, nothing outside the bundle, and an API
 * that a page from another origin cannot drive (no CORS, no cookies: only
 * a bearer token a script of this origin holds).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP, consoleRoutes } from '../../src/adapters/console/serve.js';
import { call, serve, TOKENS, type Served } from '../http/support.js';

const bundle = mkdtempSync(join(tmpdir(), 'plangate-console-'));
mkdirSync(join(bundle, 'assets'));
writeFileSync(join(bundle, 'index.html'), '<!doctype html><title>plangate</title><script type="module" src="/console/assets/app-1a2b.js"></script>');
writeFileSync(join(bundle, 'assets', 'app-1a2b.js'), 'console.log(1)');
writeFileSync(join(bundle, 'assets', 'app-1a2b.js.map'), '{}');

let s: Served;
let bare: Served;
beforeAll(async () => {
  s = await serve({ app: { routes: [consoleRoutes({ dir: bundle })] } });
  bare = await serve({ app: { routes: [consoleRoutes({ dir: join(bundle, 'nothing-here') })] } });
});
afterAll(async () => {
  await s?.close();
  await bare?.close();
});

describe('serving the console', () => {
  it('serves the page at /console and /console/ with a strict CSP and no caching', async () => {
    for (const path of ['/console', '/console/']) {
      const r = await call(s.url, 'GET', path);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(r.text).toContain('<title>plangate</title>');
      expect(r.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    }
    expect(CONSOLE_CSP).toContain("default-src 'none'");
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("connect-src 'self'");
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(CONSOLE_CSP).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
  });

  it('serves hashed assets for good, and nothing the bundle does not hold', async () => {
    const js = await call(s.url, 'GET', '/console/assets/app-1a2b.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    for (const path of ['/console/assets/app-1a2b.js.map', '/console/../package.json', '/console/%2e%2e/package.json', '/console/assets/../../package.json', '/console/nope.js']) {
      const r = await call(s.url, 'GET', path);
      expect(r.status, path).toBe(404);
      expect(r.text).not.toContain('"name": "plangate"');
    }
  });

  it('says so when the bundle is not built', async () => {
    const r = await call(bare.url, 'GET', '/console');
    expect(r.status).toBe(503);
    expect(r.text).toMatch(/npm run build/);
  });
});

describe('the API the console calls cannot be driven from another origin', () => {
  it('grants no cross-origin reads: no Access-Control-Allow-Origin, a preflight is not answered', async () => {
    const pre = await call(s.url, 'OPTIONS', '/v1/holds/0xWORKER/release', { headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' } });
    expect(pre.status).toBeGreaterThanOrEqual(400);
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    const get = await call(s.url, 'GET', '/v1/review/queue', { token: TOKENS.operator, headers: { origin: 'https://evil.example' } });
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses what a cross-site form can send: no bearer token (cookies count for nothing), a form body', async () => {
    await call(s.url, 'PUT', '/v1/org/agents/0xWORKER', { token: TOKENS.operator, json: { crew: await ensureCrew() } });
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER', { token: TOKENS.operator, json: {} })).status).toBe(201);
    const form = await call(s.url, 'POST', '/v1/holds/0xWORKER/release', {
      body: 'by=attacker',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `token=${TOKENS.operator}`, origin: 'https://evil.example' },
    });
    // Another origin is refused before anything else (see rebinding.ts); without it, a cookie is no credential.
    expect(form.status).toBe(403);
    expect(form.json.error.code).toBe('origin_not_allowed');
    const cookie = await call(s.url, 'POST', '/v1/holds/0xWORKER/release', {
      body: 'by=attacker',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `token=${TOKENS.operator}` },
    });
    expect(cookie.status).toBe(401);
    const withToken = await call(s.url, 'POST', '/v1/holds/0xWORKER/release', { token: TOKENS.operator, body: 'by=attacker', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(withToken.status).toBe(415);
    expect((await call(s.url, 'GET', '/v1/holds/0xWORKER', { token: TOKENS.operator })).json.hold.state).toBe('active');
  });
});

async function ensureCrew(): Promise<string> {
  expect((await call(s.url, 'PUT', '/v1/org/crews/desk', { token: TOKENS.operator, json: {} })).status).toBe(200);
  return 'desk';
}
