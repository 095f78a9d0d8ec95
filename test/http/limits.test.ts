/**
 * Request bodies being read are held against one budget: clients that
 * start large bodies and never finish them get the budget's worth at most,
 * a request past it is answered 503 `busy` without its body being read,
 * and every byte comes back when those clients go away. For `plangate
 * serve` and for the MCP gateway over Streamable HTTP alike.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ByteBudget } from '../../src/adapters/http/limits.js';
import { createMcpGateway } from '../../src/adapters/mcp/gateway.js';
import { listenMcp } from '../../src/adapters/mcp/http.js';
import { openPlangate } from '../../src/main/open.js';
import { makeWorld, recorderUpstream, TOKENS as MCP_TOKENS } from '../mcp/support.js';
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

describe('the budget of request bodies being read', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
  });

  it('plangate serve: answers 503 busy past it, reads nothing of that body, and gets every byte back', async () => {
    const budget = new ByteBudget(BUDGET);
    const s = await serve({ app: { bodyBudget: budget, bodyLimit: 60_000 } });
    closers.push(() => s.close());
    const a = await stalled(s.url, '/v1/say', TOKENS.worker, 50_000, 40_000);
    await until(() => budget.held === 40_000);
    const b = await stalled(s.url, '/v1/say', TOKENS.worker, 50_000, 30_000);
    // The second body passes the budget: it is refused at once, and the connection closed.
    const refused = await b.answer;
    expect(refused).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused.toLowerCase()).toContain('retry-after: 1');
    expect(refused).toContain('"code":"busy"');
    expect(budget.held).toBe(40_000);
    a.socket.destroy();
    await until(() => budget.held === 0);
    const ok = await call(s.url, 'POST', '/v1/say', { token: TOKENS.worker, json: { thread: 'agent:0xWORKER', kind: 'note', body: 'after' } });
    expect(ok.status).toBe(201);
    expect(budget.held).toBe(0);
  });

  it('plangate serve: reads no body of a request refused from its headers, so no caller without a token holds any of it', async () => {
    const budget = new ByteBudget(BUDGET);
    const s = await serve({ app: { bodyBudget: budget, bodyLimit: 60_000 } });
    closers.push(() => s.close());
    for (const [path, token] of [['/v1/say', 'not-a-token-0123456789abcdef'], ['/v1/nope', TOKENS.worker], ['/v1/holds/0xBOT', TOKENS.worker]] as const) {
      const stuck = await stalled(s.url, path, token, 50_000, 40_000);
      // Answered at once from the headers, the connection closed, and nothing of the body held.
      expect(await stuck.answer, path).toMatch(/^HTTP\/1\.1 (401|403|404) /);
      expect(budget.held).toBe(0);
    }
  });

  it('the MCP gateway: the same, for an agent token that starts bodies and never ends them', async () => {
    const w = makeWorld();
    const pg = await openPlangate({ rules: w.rules, store: w.store, audit: w.audit, log: () => {} });
    closers.push(() => pg.close());
    const gateway = createMcpGateway({ plangate: pg, upstreams: [recorderUpstream(w)], processMetrics: false });
    closers.push(() => gateway.close());
    const budget = new ByteBudget(BUDGET);
    const tokens = createTokenSet(Object.entries(MCP_TOKENS).map(([seat, token]) => ({ role: 'agent' as const, seat, token })));
    const listener = await listenMcp(gateway, { port: 0, tokens, bodyBudget: budget });
    closers.push(() => listener.close());
    const token = MCP_TOKENS['0xWORKER'] as string;
    const a = await stalled(listener.url, '/mcp', token, 1_000_000, 50_000);
    await until(() => budget.held === 50_000);
    const b = await stalled(listener.url, '/mcp', token, 1_000_000, 20_000);
    const refused = await b.answer;
    expect(refused).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused).toContain('too many request bodies are being read at once');
    a.socket.destroy();
    await until(() => budget.held === 0);
  });
});
