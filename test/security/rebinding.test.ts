/**
 * DNS rebinding: every listener answers only to its allowed Host and
 * Origin values, refusing anything else 403 before the token is looked at
 * (no session opened, nothing decided), and will not start on a
 * non-loopback address without them.
 */
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allowedFor, refusal, sdkHosts } from '../../src/adapters/http/rebinding.js';
import { listenStatus } from '../../src/adapters/mcp/status.js';
import { serve, TOKENS as HTTP_TOKENS } from '../http/support.js';
import { cli, tempDir } from '../cli/run.js';
import { closeAfterEach, fsUpstream, httpHarness, makeWorld, RAW_HEADERS, RAW_INIT, TOKENS } from '../mcp/support.js';

interface Raw {
  status: number;
  text: string;
  headers: http.IncomingHttpHeaders;
}

/** A request with the Host (and Origin) a rebound browser page would send: fetch cannot set Host. */
function raw(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const EVIL_HOST = 'evil.example.com';
const EVIL_ORIGIN = 'http://evil.example.com';

describe('allowed hosts and origins', () => {
  it('default to the loopback names with the bound port on loopback, and are required elsewhere', () => {
    const a = allowedFor('127.0.0.1', 8181, {});
    expect(a.hosts).toEqual(['localhost:8181', '127.0.0.1:8181', '[::1]:8181']);
    expect(a.origins).toContain('http://localhost:8181');
    expect(allowedFor('::1', 80, {}).hosts).toContain('[::1]:80');
    expect(() => allowedFor('0.0.0.0', 8181, {})).toThrow(/--allowed-hosts or PLANGATE_ALLOWED_HOSTS/);
    expect(() => allowedFor('192.168.1.5', 8181, { allowedOrigins: ['https://a.example.com'] })).toThrow(/not a loopback address/);
    const named = allowedFor('0.0.0.0', 8181, { allowedHosts: ['plangate.example.com'] });
    expect(named.hosts).toEqual(['plangate.example.com']);
    expect(named.origins).toEqual([]);
    expect(() => allowedFor('0.0.0.0', 1, { allowedHosts: ['https://x.example.com/'] })).toThrow(/not a valid host/);
    expect(() => allowedFor('127.0.0.1', 1, { allowedOrigins: ['x.example.com'] })).toThrow(/not a valid origin/);
  });

  it('refuse a wrong or missing Host and a wrong Origin, and let a missing Origin through', () => {
    const a = allowedFor('127.0.0.1', 8181, {});
    expect(refusal(a, { host: '127.0.0.1:8181' })).toBeUndefined();
    expect(refusal(a, { host: 'LOCALHOST:8181', origin: 'http://localhost:8181' })).toBeUndefined();
    expect(refusal(a, { host: '127.0.0.1:9999' })?.code).toBe('host_not_allowed');
    expect(refusal(a, { host: EVIL_HOST })?.code).toBe('host_not_allowed');
    expect(refusal(a, {})?.code).toBe('host_not_allowed');
    expect(refusal(a, { host: '127.0.0.1:8181', origin: EVIL_ORIGIN })?.code).toBe('origin_not_allowed');
    expect(refusal(a, { host: '127.0.0.1:8181', origin: 'null' })?.code).toBe('origin_not_allowed');
    // A host named without a port is allowed on any port (as the SDK's hostHeaderValidation does); with one, on that port only.
    const named = allowedFor('0.0.0.0', 8181, { allowedHosts: ['gw.example.com', 'localhost:8181'] });
    expect(refusal(named, { host: 'gw.example.com' })).toBeUndefined();
    expect(refusal(named, { host: 'gw.example.com:8443' })).toBeUndefined();
    expect(refusal(named, { host: 'localhost:9999' })?.code).toBe('host_not_allowed');
    expect(refusal(named, { host: 'gw.example.com.evil.example.com' })?.code).toBe('host_not_allowed');
    expect(sdkHosts(named, 8181)).toEqual(['gw.example.com', 'gw.example.com:8181', 'localhost:8181']);
  });
});

describe('plangate serve refuses rebound requests', () => {
  const closers = closeAfterEach();

  it('answers 403 before the token, decides nothing, and serves its own names', async () => {
    const s = await serve();
    closers.push(() => s.close());
    const port = new URL(s.url).port;
    const decide = JSON.stringify({ tool: 'github.merge_pull_request' });
    const agent = { authorization: `Bearer ${HTTP_TOKENS.worker}`, 'content-type': 'application/json' };
    const before = s.audit().length;

    const host = await raw(`${s.url}/v1/decide`, 'POST', { ...agent, host: EVIL_HOST }, decide);
    expect(host.status).toBe(403);
    expect(JSON.parse(host.text).error.code).toBe('host_not_allowed');
    const origin = await raw(`${s.url}/v1/decide`, 'POST', { ...agent, origin: EVIL_ORIGIN }, decide);
    expect(origin.status).toBe(403);
    expect(JSON.parse(origin.text).error.code).toBe('origin_not_allowed');
    // Refused before authentication: no token is needed to be refused, and none is asked for.
    const anonymous = await raw(`${s.url}/v1/decide`, 'POST', { host: EVIL_HOST, 'content-type': 'application/json' }, decide);
    expect(anonymous.status).toBe(403);
    expect(anonymous.headers['www-authenticate']).toBeUndefined();
    expect(s.audit().length).toBe(before);

    expect((await raw(`${s.url}/health`, 'GET', { host: `localhost:${port}` })).status).toBe(200);
    expect((await raw(`${s.url}/health`, 'GET', { origin: `http://127.0.0.1:${port}` })).status).toBe(200);
    expect((await raw(`${s.url}/v1/decide`, 'POST', agent, decide)).status).toBe(200);
  });

  it('will not start on a non-loopback address without allowed hosts', async () => {
    const dir = tempDir();
    const tokens = join(dir, 'tokens.json');
    writeFileSync(tokens, JSON.stringify({ tokens: [{ role: 'operator', token: 'operator-token-0123456789' }] }));
    const r = await cli(['serve', '--host', '0.0.0.0', '--port', '0', '--tokens', tokens, '--rules', join(dir, 'rules'), '--rules-optional', '--store', join(dir, 's.db')]);
    expect(r.status).not.toBe(0);
    expect(r.err).toMatch(/not a loopback address.*--allowed-hosts or PLANGATE_ALLOWED_HOSTS/);
  });
});

describe('plangate mcp --listen refuses rebound requests', () => {
  const closers = closeAfterEach();

  it('opens no session for a wrong Host or Origin, even with a valid token', async () => {
    const w = makeWorld();
    const h = await httpHarness(w, [fsUpstream(w)]);
    closers.push(() => h.close());
    const auth = { ...RAW_HEADERS, authorization: `Bearer ${TOKENS['0xWORKER']}` };
    const body = JSON.stringify(RAW_INIT);

    const host = await raw(h.listener.url, 'POST', { ...auth, host: EVIL_HOST }, body);
    expect(host.status).toBe(403);
    expect(host.headers['mcp-session-id']).toBeUndefined();
    expect(JSON.parse(host.text).error.data.code).toBe('host_not_allowed');
    const both = await raw(h.listener.url, 'POST', { ...auth, host: EVIL_HOST, origin: EVIL_ORIGIN }, body);
    expect(both.status).toBe(403);
    const origin = await raw(h.listener.url, 'POST', { ...auth, origin: EVIL_ORIGIN }, body);
    expect(origin.status).toBe(403);
    expect(JSON.parse(origin.text).error.data.code).toBe('origin_not_allowed');
    expect(h.gateway.sessions.size).toBe(0);
    expect((await raw(h.listener.url.replace('/mcp', '/health'), 'GET', { host: EVIL_HOST })).status).toBe(403);

    // A client that is not a browser sends no Origin; one on the loopback origin is a browser on this machine.
    const port = new URL(h.listener.url).port;
    const ok = await raw(h.listener.url, 'POST', { ...auth, origin: `http://localhost:${port}` }, body);
    expect(ok.status).toBe(200);
    expect(ok.headers['mcp-session-id']).toBeTruthy();
    expect(h.gateway.sessions.size).toBe(1);
  });

  it('answers to the configured names only, on the status listener too', async () => {
    const w = makeWorld();
    const h = await httpHarness(w, [fsUpstream(w)]);
    closers.push(() => h.close());
    const status = await listenStatus(h.gateway, { port: 0, allowedHosts: ['plangate.internal'], allowedOrigins: ['https://console.internal'], log: () => {} });
    closers.push(() => status.close());
    expect((await raw(`${status.url}/health`, 'GET', {})).status).toBe(403);
    expect((await raw(`${status.url}/health`, 'GET', { host: 'plangate.internal' })).status).toBe(200);
    expect((await raw(`${status.url}/health`, 'GET', { host: 'plangate.internal', origin: 'https://console.internal' })).status).toBe(200);
    expect((await raw(`${status.url}/health`, 'GET', { host: 'plangate.internal', origin: EVIL_ORIGIN })).status).toBe(403);
  });

  it('will not start on a non-loopback address without allowed hosts', async () => {
    const w = makeWorld();
    const tokens = join(w.root, 'tokens.json');
    writeFileSync(tokens, JSON.stringify({ tokens: [{ role: 'agent', seat: '0xWORKER', token: TOKENS['0xWORKER'] }] }));
    const r = await cli(['mcp', '--listen', '0.0.0.0:0', '--tokens', tokens, '--rules', w.rules, '--store', w.store, '--audit', w.audit, '--', process.execPath, '-e', 'setTimeout(()=>{},1e9)']);
    expect(r.status).not.toBe(0);
    expect(r.err).toMatch(/not a loopback address/);
  });
});
