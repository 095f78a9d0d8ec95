/**
 * Request bodies being read are held against fair shares: a token that
 * starts large bodies and never finishes them gets its own share at most
 * (429 past it, 503 `busy` only when the callers' pool is spent), another
 * token and the operator still get through, a stalled body is cut at the
 * minimum upload rate, and every byte comes back when those clients go
 * away. For `plangate serve` and for the MCP gateway over Streamable HTTP
 * alike.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ByteBudget } from '../../src/adapters/http/limits.js';
import { FairShares } from '../../src/adapters/http/shares.js';
import { createMcpGateway } from '../../src/adapters/mcp/gateway.js';
import { listenMcp } from '../../src/adapters/mcp/http.js';
import { openPlangate } from '../../src/main/open.js';
import { makeWorld, RAW_HEADERS, RAW_INIT, recorderUpstream, TOKENS as MCP_TOKENS } from '../mcp/support.js';
import { createTokenSet } from '../../src/adapters/http/auth.js';
import { call, serve, TOKENS } from './support.js';

const BUDGET = 64 * 1024;

/** Starts a POST whose body says `declared` bytes and sends `sent` of them, then nothing. */
async function stalled(url: string, path: string, token: string, declared: number, sent: number): Promise<{ socket: Socket; answer: Promise<string> }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((r) => socket.once('connect', () => r()));
  socket.write(`POST ${path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: ${declared}\r\n\r\n`);
  socket.write(' '.repeat(sent));
  let text = '';
  const answer = new Promise<string>((r) => {
    socket.on('data', (c: Buffer) => void (text += c.toString('utf8')));
    socket.on('close', () => r(text));
  });
  return { socket, answer };
}

const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

describe('fair shares of request bodies being read', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
  });

  /** Shares small enough to fill in a test: a 64 KiB pool, 40 KB a token, 16 KB reserved. */
  const small = (o: Partial<ConstructorParameters<typeof FairShares>[0]> = {}): FairShares => new FairShares({ pool: new ByteBudget(BUDGET), perCaller: 40_000, reserved: 16_000, ...o });
  /** A rate no stalled body in these tests reaches before it is let go. */
  const patient = { bytesPerSecond: 1, graceMs: 60_000 };

  it('plangate serve: one token stalling uploads gets 429 past its own share; another token and the operator are answered', async () => {
    const shares = small();
    const s = await serve({ app: { shares, bodyLimit: 60_000, uploadRate: patient } });
    closers.push(() => s.close());
    // The attack: W starts many bodies and sends part of each, then nothing.
    const held = [];
    for (let i = 0; i < 4; i++) held.push(await stalled(s.url, '/v1/say', TOKENS.worker, 20_000, 10_000));
    await until(() => shares.held('agent:0xWORKER', 'caller').bytes === 40_000);
    const over = await stalled(s.url, '/v1/say', TOKENS.worker, 20_000, 10_000);
    const refused = await over.answer;
    expect(refused).toMatch(/^HTTP\/1\.1 429 /);
    expect(refused.toLowerCase()).toContain('retry-after: 1');
    expect(refused).toContain('"code":"too_many_requests"');
    expect(shares.pool.held).toBe(40_000);
    // Another agent's decide and say, and the operator's hold on W, are not W's to block.
    const other = await call(s.url, 'POST', '/v1/say', { token: TOKENS.mgr, json: { thread: 'agent:0xMGR', kind: 'note', body: 'still here' } });
    expect(other.status).toBe(201);
    expect((await call(s.url, 'POST', '/v1/decide', { token: TOKENS.mgr, json: { tool: 'github.merge_pull_request' } })).status).toBe(200);
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER', { token: TOKENS.operator, json: { task: 'stop W' } })).status).toBe(201);
    for (const h of held) h.socket.destroy();
    await until(() => shares.pool.held === 0);
    expect(shares.held('agent:0xWORKER', 'caller')).toEqual({ bytes: 0, inFlight: 0 });
  });

  it('plangate serve: with the callers\' pool spent by several tokens, callers get 503 busy and the operator still places its hold', async () => {
    const shares = small();
    const s = await serve({ app: { shares, bodyLimit: 60_000, uploadRate: patient } });
    closers.push(() => s.close());
    const held = [
      await stalled(s.url, '/v1/say', TOKENS.worker, 50_000, 35_000),
      await stalled(s.url, '/v1/say', TOKENS.mgr, 50_000, 29_000),
    ];
    await until(() => shares.pool.held === 64_000);
    const b = await stalled(s.url, '/v1/say', TOKENS.bot, 50_000, 10_000);
    const refused = await b.answer;
    expect(refused).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused).toContain('"code":"busy"');
    // The reserve is out of every caller's reach.
    const hold = await call(s.url, 'POST', '/v1/holds/0xWORKER', { token: TOKENS.operator, json: { task: 'stop W' } });
    expect(hold.status).toBe(201);
    for (const h of held) h.socket.destroy();
    await until(() => shares.pool.held === 0 && shares.reserve.held === 0);
  });

  it('plangate serve: a body slower than the minimum rate is cut (408) and its share given back', async () => {
    const shares = small();
    const s = await serve({ app: { shares, bodyLimit: 60_000, uploadRate: { bytesPerSecond: 10_000, graceMs: 200 } } });
    closers.push(() => s.close());
    const slow = await stalled(s.url, '/v1/say', TOKENS.worker, 20_000, 1_000);
    const answer = await slow.answer;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"code":"upload_too_slow"');
    expect(shares.pool.held).toBe(0);
    // A body sent at once is not touched by the rate.
    expect((await call(s.url, 'POST', '/v1/say', { token: TOKENS.worker, json: { thread: 'agent:0xWORKER', kind: 'note', body: 'quick' } })).status).toBe(201);
  });

  it('plangate serve: a token has at most its own requests in flight; the rest get 429, other tokens are answered', async () => {
    const shares = small({ inFlightPerCaller: 2 });
    const s = await serve({ app: { shares, bodyLimit: 60_000, uploadRate: patient } });
    closers.push(() => s.close());
    const held = [await stalled(s.url, '/v1/say', TOKENS.worker, 2_000, 10), await stalled(s.url, '/v1/say', TOKENS.worker, 2_000, 10)];
    await until(() => shares.held('agent:0xWORKER', 'caller').inFlight === 2);
    const third = await call(s.url, 'GET', '/v1/whoami', { token: TOKENS.worker });
    expect(third.status).toBe(429);
    expect(third.json.error.code).toBe('too_many_requests');
    expect((await call(s.url, 'GET', '/v1/whoami', { token: TOKENS.mgr })).status).toBe(200);
    for (const h of held) h.socket.destroy();
    await until(() => shares.held('agent:0xWORKER', 'caller').inFlight === 0);
    expect((await call(s.url, 'GET', '/v1/whoami', { token: TOKENS.worker })).status).toBe(200);
  });

  it('plangate serve: reads no body of a request refused from its headers, so no caller without a token holds any of it', async () => {
    const shares = small();
    const s = await serve({ app: { shares, bodyLimit: 60_000, uploadRate: patient } });
    closers.push(() => s.close());
    for (const [path, token] of [['/v1/say', 'not-a-token-0123456789abcdef'], ['/v1/nope', TOKENS.worker], ['/v1/holds/0xBOT', TOKENS.worker]] as const) {
      const stuck = await stalled(s.url, path, token, 50_000, 40_000);
      // Answered at once from the headers, the connection closed, and nothing of the body held.
      expect(await stuck.answer, path).toMatch(/^HTTP\/1\.1 (401|403|404) /);
      expect(shares.pool.held + shares.reserve.held + shares.anonymousBudget.held).toBe(0);
    }
  });

  it('the MCP gateway: one seat stalling bodies gets 429 past its share; another seat still opens a session and calls', async () => {
    const w = makeWorld();
    const pg = await openPlangate({ rules: w.rules, store: w.store, audit: w.audit, log: () => {} });
    closers.push(() => pg.close());
    const gateway = createMcpGateway({ plangate: pg, upstreams: [recorderUpstream(w)], processMetrics: false });
    closers.push(() => gateway.close());
    const shares = small({ perCaller: 50_000 });
    const tokens = createTokenSet(Object.entries(MCP_TOKENS).map(([seat, token]) => ({ role: 'agent' as const, seat, token })));
    const listener = await listenMcp(gateway, { port: 0, tokens, shares, uploadRate: patient });
    closers.push(() => listener.close());
    const token = MCP_TOKENS['0xWORKER'] as string;
    const a = await stalled(listener.url, '/mcp', token, 1_000_000, 50_000);
    await until(() => shares.pool.held === 50_000);
    const b = await stalled(listener.url, '/mcp', token, 1_000_000, 10_000);
    const refused = await b.answer;
    expect(refused).toMatch(/^HTTP\/1\.1 429 /);
    expect(refused).toContain('this token has its share of request bodies being read');
    const init = await fetch(listener.url, { method: 'POST', headers: { ...RAW_HEADERS, authorization: `Bearer ${MCP_TOKENS['0xOTHER']}` }, body: JSON.stringify(RAW_INIT) });
    expect(init.status).toBe(200);
    a.socket.destroy();
    await until(() => shares.pool.held === 0);
  });
});
