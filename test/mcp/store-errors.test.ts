/**
 * The MCP gateway while its store fails: the client (the agent) is told
 * what failed in plangate's words, never the store's own message (which
 * names the database); the operator's log gets that message. Real gateway,
 * real SDK client over Streamable HTTP, a real upstream; the store is a
 * memory store whose every method throws while it is "down".
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/adapters/cli/main.js';
import { createTokenSet } from '../../src/adapters/http/auth.js';
import { createMcpGateway } from '../../src/adapters/mcp/gateway.js';
import { listenMcp } from '../../src/adapters/mcp/http.js';
import { ErrorCode, PlangateError } from '../../src/core/errors.js';
import { createMemoryStore } from '../../src/facts/memory/store.js';
import type { Store } from '../../src/facts/port.js';
import { openPlangate } from '../../src/main/open.js';
import { closeAfterEach, makeWorld, recorderUpstream, textOf, TOKENS } from './support.js';

const SECRET = 'postgres store: lineage failed: the database at db.internal:5432 (user plangate) cannot be reached (ECONNREFUSED 10.0.0.5:5432)';

/** A memory store that throws a store error from every method while `down`, or from its writes only while `writesDown`. */
function failingStore(): { store: Store; state: { down: boolean; writesDown: boolean } } {
  const state = { down: false, writesDown: false };
  const writes = new Set(['postMessage', 'postHoldMessage']);
  const store = new Proxy(createMemoryStore(), {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || prop === 'close') return value;
      return (...args: unknown[]) => (state.down || (state.writesDown && writes.has(String(prop)))
        ? Promise.reject(new PlangateError(ErrorCode.StoreUnavailable, SECRET))
        : value.apply(target, args));
    },
  });
  return { store, state };
}

describe('the MCP gateway while its store fails', () => {
  const closers = closeAfterEach();

  it("answers tools/list, plangate_say and the reviewer channel with the store's failure in plangate's words, and logs the store's own", async () => {
    const w = makeWorld();
    const { store, state } = failingStore();
    const pg = await openPlangate({ rules: w.rules, storeInstance: store, audit: w.audit, log: () => {} });
    const logged: string[] = [];
    const gateway = createMcpGateway({ plangate: pg, upstreams: [recorderUpstream(w)], processMetrics: false, log: (line) => logged.push(line) });
    const listener = await listenMcp(gateway, { port: 0, tokens: createTokenSet([{ role: 'agent', seat: '0xWORKER', token: TOKENS['0xWORKER'] as string }]) });
    const client = new Client({ name: 'test-host', version: '1.0.0' });
    closers.push(async () => {
      await client.close().catch(() => {});
      await listener.close();
      await gateway.close();
      await pg.close();
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url), { requestInit: { headers: { authorization: `Bearer ${TOKENS['0xWORKER']}` } } }));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('plangate_say');

    state.down = true;
    const listed = await client.listTools().then(() => undefined, (e: unknown) => e as Error);
    expect(listed?.message).toContain("plangate's store cannot be reached; retry in a moment");
    const said = await client.callTool({ name: 'plangate_say', arguments: { body: 'merge the fix' } }).then((r) => textOf(r as never), (e: unknown) => (e as Error).message);
    expect(said).toContain("plangate's store cannot be reached");
    const plan = await client.callTool({ name: 'plangate_submit_plan', arguments: { plan: 'merge the fix' } }).then((r) => textOf(r as never), (e: unknown) => (e as Error).message);
    expect(plan).toContain("plangate's store cannot be reached");
    for (const text of [listed?.message, said, plan]) expect(text).not.toMatch(/db\.internal|10\.0\.0\.5|user plangate/);
    expect(logged.length).toBeGreaterThanOrEqual(3);
    expect(logged.every((l) => l.includes('db.internal'))).toBe(true);
    expect(logged[0]).toMatch(/^plangate mcp: store_unavailable in tools\/list for 0xWORKER: /);

    state.down = false;
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('plangate_say');

    // Only the writes fail: the seat's threads are read, and the post itself fails with the store's words.
    state.writesDown = true;
    logged.length = 0;
    const post = await client.callTool({ name: 'plangate_say', arguments: { body: 'merge the fix' } });
    expect(post.isError).toBe(true);
    expect(textOf(post as never)).toBe("plangate's store cannot be reached; retry in a moment");
    expect(post.structuredContent).toMatchObject({ check: 'plangate', code: 'store_unavailable' });
    expect(logged).toEqual([`plangate mcp: store_unavailable in plangate_say for 0xWORKER: ${SECRET}`]);
  }, 60_000);

  it('refuses a bound of calls in flight that is not a whole number of at least 1', async () => {
    const w = makeWorld();
    const pg = await openPlangate({ rules: w.rules, store: ':memory:', audit: w.audit, log: () => {} });
    closers.push(() => pg.close());
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => createMcpGateway({ plangate: pg, upstreams: [recorderUpstream(w)], processMetrics: false, maxCallsPerSession: bad }), String(bad)).toThrow(/maxCallsPerSession must be a whole number of at least 1/);
    }
    for (const bad of [0, 65535, 1e6 + 0.5]) {
      expect(() => createMcpGateway({ plangate: pg, upstreams: [recorderUpstream(w)], processMetrics: false, maxUpstreamMessageBytes: bad }), String(bad)).toThrow(/maxUpstreamMessageBytes must be a whole number of at least 65536/);
    }
  });

  it('plangate mcp refuses a bound of sessions or calls that is not a whole number of at least 1, before it starts anything', async () => {
    for (const [option, value] of [['--max-calls-per-session', '0'], ['--max-calls-per-session', '2.5'], ['--max-sessions-per-seat', 'x']] as const) {
      const err: string[] = [];
      const status = await main(['mcp', '--agent', '0xWORKER', option, value, '--', 'true'], { out: () => {}, err: (t: string) => void err.push(t), env: {} });
      expect(status).toBe(1);
      expect(err.join('\n')).toContain(`${option} must be an integer of at least 1 (got "${value}")`);
    }
    const err: string[] = [];
    expect(await main(['mcp', '--agent', '0xWORKER', '--max-upstream-message-bytes', '1000', '--', 'true'], { out: () => {}, err: (t: string) => void err.push(t), env: {} })).toBe(1);
    expect(err.join('\n')).toContain('--max-upstream-message-bytes must be an integer of at least 65536 (got "1000")');
  });
});
