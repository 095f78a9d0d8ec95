/**
 * plangate as an OAuth resource server: JWT access tokens signed by a real
 * key pair, verified against a JWKS endpoint served on 127.0.0.1 by the
 * test, on `plangate serve` and on `plangate mcp --listen` (the SDK's
 * client). Valid, expired, wrong audience, wrong issuer, unknown key,
 * `alg: none`, an HMAC, key rotation, and a seat's token acting as another.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWK } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTokenSet } from '../../src/adapters/http/auth.js';
import { withOAuth, type OAuthOptions } from '../../src/adapters/http/oauth.js';
import { createMcpGateway } from '../../src/adapters/mcp/gateway.js';
import { listenMcp } from '../../src/adapters/mcp/http.js';
import { openPlangate } from '../../src/main/open.js';
import { oauthFrom } from '../../src/adapters/cli/commands/oauth-options.js';
import { call, serve, TOKEN_ENTRIES, TOKENS } from '../http/support.js';
import { closeAfterEach, makeWorld, RAW_HEADERS, RAW_INIT, recorderUpstream } from '../mcp/support.js';

const ISSUER = 'https://id.example.com';

interface Key {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function newKey(kid: string): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

/** The issuer's JWKS endpoint: publishes `published`, counts its fetches. */
const jwks = { published: [] as Key[], fetches: 0, url: '', server: undefined as http.Server | undefined };

let k1: Key;
let k2: Key;
let stranger: Key;

beforeAll(async () => {
  [k1, k2, stranger] = await Promise.all([newKey('k1'), newKey('k2'), newKey('k1')]);
  jwks.published = [k1];
  jwks.server = http.createServer((_req, res) => {
    jwks.fetches++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: jwks.published.map((k) => k.jwk) }));
  });
  await new Promise<void>((r) => jwks.server?.listen(0, '127.0.0.1', () => r()));
  jwks.url = `http://127.0.0.1:${(jwks.server.address() as AddressInfo).port}/jwks.json`;
});

afterAll(async () => {
  jwks.server?.closeAllConnections();
  await new Promise<void>((r) => jwks.server?.close(() => r()));
});

function options(resource: string): OAuthOptions {
  return { issuer: ISSUER, resource, jwksUri: jwks.url, jwksCooldownMs: 0 };
}

/** A signed access token; `claims` and `set` override the defaults. */
async function token(resource: string, claims: Record<string, unknown>, set: { key?: Key; iss?: string; aud?: string; exp?: number | string } = {}): Promise<string> {
  const key = set.key ?? k1;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
    .setIssuer(set.iss ?? ISSUER)
    .setAudience(set.aud ?? resource)
    .setSubject(String(claims['sub'] ?? 'user-1'))
    .setIssuedAt()
    .setExpirationTime(set.exp ?? '10m')
    .sign(key.privateKey);
}

describe('the OAuth configuration', () => {
  it('refuses a half-given configuration, a key set over plain http elsewhere than loopback, and a resource with a fragment', () => {
    expect(() => oauthFrom({ oauthIssuer: ISSUER })).toThrow(/needs all of --oauth-issuer, --oauth-resource and --oauth-jwks-uri/);
    expect(oauthFrom({})).toBeUndefined();
    const statics = createTokenSet([]);
    expect(() => withOAuth(statics, { issuer: ISSUER, resource: 'https://a.example.com', jwksUri: 'http://id.example.com/jwks' })).toThrow(/must be https/);
    expect(() => withOAuth(statics, { issuer: ISSUER, resource: 'https://a.example.com/#x', jwksUri: jwks.url })).toThrow(/fragment/);
    expect(() => withOAuth(statics, { issuer: 'not a url', resource: 'https://a.example.com', jwksUri: jwks.url })).toThrow(/not a URL/);
  });
});

describe('plangate serve takes JWT access tokens', () => {
  const RESOURCE = 'https://plangate.example.com';
  const closers = closeAfterEach();

  async function served() {
    const s = await serve({ app: { tokens: withOAuth(createTokenSet(TOKEN_ENTRIES), options(RESOURCE)) } });
    closers.push(() => s.close());
    return s;
  }

  it('maps the claims to the seat and the role, and keeps the static tokens', async () => {
    const s = await served();
    const worker = await token(RESOURCE, { sub: '0xWORKER' });
    const me = await call(s.url, 'GET', '/v1/whoami', { token: worker });
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({ role: 'agent', seat: '0xWORKER' });
    const operator = await call(s.url, 'GET', '/v1/whoami', { token: await token(RESOURCE, { sub: 'alice', plangate_role: 'operator' }) });
    expect(operator.json).toMatchObject({ role: 'operator', name: 'oauth:alice' });
    expect((await call(s.url, 'GET', '/v1/whoami', { token: TOKENS.worker })).json).toMatchObject({ role: 'agent', seat: '0xWORKER' });
    // A role nobody has, or a seat that is no seat id, is no credential.
    expect((await call(s.url, 'GET', '/v1/whoami', { token: await token(RESOURCE, { sub: 'x', plangate_role: 'root' }) })).status).toBe(401);
    expect((await call(s.url, 'GET', '/v1/whoami', { token: await token(RESOURCE, { sub: '../etc' }) })).status).toBe(401);
  });

  it('serves the protected resource metadata, and points every 401 to it', async () => {
    const s = await served();
    const doc = await call(s.url, 'GET', '/.well-known/oauth-protected-resource');
    expect(doc.status).toBe(200);
    expect(doc.json).toMatchObject({ resource: RESOURCE, authorization_servers: [ISSUER], bearer_methods_supported: ['header'] });
    const none = await call(s.url, 'GET', '/v1/whoami');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(`Bearer realm="plangate", resource_metadata="${RESOURCE}/.well-known/oauth-protected-resource"`);
  });

  it('refuses an expired token, another audience, another issuer, an unknown key, alg none and an HMAC', async () => {
    const s = await served();
    const refused = async (t: string, why: RegExp): Promise<void> => {
      const r = await call(s.url, 'GET', '/v1/whoami', { token: t });
      expect(r.status, why.source).toBe(401);
      expect(r.json.error.message).toMatch(why);
      expect(r.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(r.headers.get('www-authenticate')).toContain('resource_metadata=');
    };
    const claims = { sub: '0xWORKER' };
    await refused(await token(RESOURCE, claims, { exp: Math.floor(Date.now() / 1000) - 120 }), /expired/);
    await refused(await token(RESOURCE, claims, { aud: 'https://other.example.com' }), /audience/);
    await refused(await token(RESOURCE, claims, { iss: 'https://evil.example.com' }), /issuer/);
    // Same key id as the published key, another key: the signature does not verify.
    await refused(await token(RESOURCE, claims, { key: stranger }), /signature/);
    await refused(await token(RESOURCE, claims, { key: { ...k2, kid: 'k9' } }), /key the issuer does not publish/);
    const none = new UnsecuredJWT({ ...claims, plangate_role: 'operator' }).setIssuer(ISSUER).setAudience(RESOURCE).setExpirationTime('10m').encode();
    await refused(none, /algorithm|not a valid signed JWT/);
    const hmac = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 'k1' }).setIssuer(ISSUER).setAudience(RESOURCE).setExpirationTime('10m')
      .sign(new TextEncoder().encode('a-shared-secret-of-at-least-32-bytes!!'));
    await refused(hmac, /algorithm/);
  });

  it('fetches the key set again for a key id it has not seen (rotation)', async () => {
    const s = await served();
    expect((await call(s.url, 'GET', '/v1/whoami', { token: await token(RESOURCE, { sub: '0xWORKER' }) })).status).toBe(200);
    const before = jwks.fetches;
    jwks.published = [k2];
    try {
      const rotated = await call(s.url, 'GET', '/v1/whoami', { token: await token(RESOURCE, { sub: '0xWORKER' }, { key: k2 }) });
      expect(rotated.status).toBe(200);
      expect(jwks.fetches).toBeGreaterThan(before);
    } finally {
      jwks.published = [k1];
    }
  });

  it('lets a seat\'s token act as that seat only', async () => {
    const s = await served();
    const worker = await token(RESOURCE, { sub: '0xWORKER' });
    const asOther = await call(s.url, 'POST', '/v1/decide', { token: worker, json: { agent: '0xMGR', tool: 'github.merge_pull_request' } });
    expect(asOther.status).toBe(403);
    expect(asOther.json.error.code).toBe('seat_mismatch');
    const say = await call(s.url, 'POST', '/v1/say', { token: worker, json: { thread: 'agent:0xMGR', kind: 'plan', body: 'not mine' } });
    expect(say.status).toBeGreaterThanOrEqual(400);
  });
});

describe('plangate mcp --listen takes JWT access tokens', () => {
  const RESOURCE = 'https://gw.example.com/mcp';
  const closers = closeAfterEach();

  async function gateway() {
    const w = makeWorld();
    const pg = await openPlangate({ rules: w.rules, store: w.store, audit: w.audit, log: () => {} });
    closers.push(() => pg.close());
    const gw = createMcpGateway({ plangate: pg, upstreams: [recorderUpstream(w)], processMetrics: false });
    closers.push(() => gw.close());
    const tokens = withOAuth(createTokenSet([{ role: 'operator', token: 'operator-token-0123456789abcdef' }]), options(RESOURCE));
    const listener = await listenMcp(gw, { port: 0, tokens });
    closers.push(() => listener.close());
    return { gw, listener };
  }

  async function client(url: string, bearer: string): Promise<Client> {
    const c = new Client({ name: 'test-host', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
    closers.push(() => c.close());
    return c;
  }

  it('opens a session for a valid token\'s seat, and refuses the rest with the metadata\'s address', async () => {
    const { listener } = await gateway();
    const c = await client(listener.url, await token(RESOURCE, { sub: '0xWORKER' }));
    expect((await c.listTools()).tools.length).toBeGreaterThan(0);

    const base = listener.url.replace(/\/mcp$/, '');
    const doc = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`);
    expect(await doc.json()).toMatchObject({ resource: RESOURCE, authorization_servers: [ISSUER] });

    for (const bad of [undefined, await token(RESOURCE, { sub: '0xWORKER' }, { aud: 'https://plangate.example.com' }), await token(RESOURCE, { sub: '0xWORKER' }, { exp: Math.floor(Date.now() / 1000) - 120 })]) {
      const r = await fetch(listener.url, { method: 'POST', headers: { ...RAW_HEADERS, ...(bad ? { authorization: `Bearer ${bad}` } : {}) }, body: JSON.stringify(RAW_INIT) });
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toContain('resource_metadata="https://gw.example.com/.well-known/oauth-protected-resource/mcp"');
      await r.text();
    }
  });

  it('keeps a session to the seat whose token opened it', async () => {
    const { listener } = await gateway();
    const a = await token(RESOURCE, { sub: '0xWORKER' });
    const b = await token(RESOURCE, { sub: '0xOTHER' });
    const init = await fetch(listener.url, { method: 'POST', headers: { ...RAW_HEADERS, authorization: `Bearer ${a}` }, body: JSON.stringify(RAW_INIT) });
    expect(init.status).toBe(200);
    const sid = init.headers.get('mcp-session-id') as string;
    await init.text();
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    const headers = { ...RAW_HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
    const stolen = await fetch(listener.url, { method: 'POST', headers: { ...headers, authorization: `Bearer ${b}` }, body: JSON.stringify(list) });
    expect(stolen.status).toBe(404);
    await stolen.text();
    const own = await fetch(listener.url, { method: 'POST', headers: { ...headers, authorization: `Bearer ${a}` }, body: JSON.stringify(list) });
    expect(own.status).toBe(200);
    await own.text();
  });
});
