/**
 * The Streamable HTTP side of the gateway: who may connect, whose session
 * is whose, malformed requests, resources/read under the read guard, and
 * /health and /metrics.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { recorderHttp } from './recorder.js';
import { call, CLI_CHILD, closeAfterEach, FS_SERVER, httpHarness, makeWorld, OPERATOR_TOKEN, RAW_HEADERS, RAW_INIT, recorded, TOKENS } from './support.js';


describe('plangate mcp --listen', () => {
  const closers = closeAfterEach();

  async function setup() {
    const w = makeWorld(`
planRequired:
  workspace: { mode: side_effects }
planningGate:
  defaults: { readGuardMaxBytes: 100 }
`);
    const big = join(w.files, 'big.txt');
    const small = join(w.files, 'small.txt');
    writeFileSync(big, 'x'.repeat(5000));
    writeFileSync(small, 'tiny');
    const up = await recorderHttp(w.record, [big, small]);
    closers.push(() => up.close());
    // The operator names where the gateway sees the upstream's files (as --read-root does).
    const h = await httpHarness(w, [{ name: 'rec', kind: 'http', url: up.url }], 100, [w.files], {}, { readRoots: 'gate' });
    closers.push(() => h.close());
    return { w, h, big, small };
  }

  it('takes agent tokens only, and a session only from the seat that opened it', async () => {
    const { h } = await setup();
    const url = h.listener.url;
    expect((await fetch(url, { method: 'POST', headers: RAW_HEADERS, body: JSON.stringify(RAW_INIT) })).status).toBe(401);
    const bad = await fetch(url, { method: 'POST', headers: { ...RAW_HEADERS, authorization: 'Bearer nope-nope-nope-nope' }, body: JSON.stringify(RAW_INIT) });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toContain('Bearer');

    const ops = await fetch(url, { method: 'POST', headers: { ...RAW_HEADERS, authorization: `Bearer ${OPERATOR_TOKEN}` }, body: JSON.stringify(RAW_INIT) });
    expect(ops.status).toBe(403);
    const init = await fetch(url, { method: 'POST', headers: { ...RAW_HEADERS, authorization: `Bearer ${TOKENS['0xWORKER']}` }, body: JSON.stringify(RAW_INIT) });
    expect(init.status).toBe(200);
    const sid = init.headers.get('mcp-session-id') as string;
    expect(sid).toBeTruthy();
    await init.text();
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    const stolen = await fetch(url, { method: 'POST', headers: { ...RAW_HEADERS, authorization: `Bearer ${TOKENS['0xOTHER']}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify(list) });
    expect(stolen.status).toBe(404);
    const noSession = await fetch(url, { method: 'POST', headers: { ...RAW_HEADERS, authorization: `Bearer ${TOKENS['0xWORKER']}` }, body: JSON.stringify(list) });
    expect(noSession.status).toBe(400);
    const garbage = await fetch(url, { method: 'POST', headers: { ...RAW_HEADERS, authorization: `Bearer ${TOKENS['0xWORKER']}` }, body: '{nope' });
    expect(garbage.status).toBe(400);
    expect(((await garbage.json()) as { error: { code: string } }).error.code).toBe('malformed_json');
    expect((await fetch(url.replace('/mcp', '/nope'))).status).toBe(404);
  });

  it('keeps no session for an initialize the transport refuses', async () => {
    const { h } = await setup();
    const notAccepting = { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${TOKENS['0xWORKER']}` };
    const batch = [RAW_INIT, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }];
    for (const body of [RAW_INIT, RAW_INIT, batch]) {
      const r = await fetch(h.listener.url, { method: 'POST', headers: body === batch ? { ...RAW_HEADERS, authorization: notAccepting.authorization } : notAccepting, body: JSON.stringify(body) });
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.headers.get('mcp-session-id')).toBeNull();
      await r.text();
    }
    // Nothing was issued that could be swept or ended later, so nothing may stay open.
    expect(h.gateway.sessions.size).toBe(0);
    expect(h.gateway.health().sessions).toBe(0);
  });

  it('holds a seat to its most sessions: the least recently used idle one is closed, and 429 when every one is busy', async () => {
    const w = makeWorld('planRequired:\n  workspace: { mode: side_effects }\n');
    const up = await recorderHttp(w.record);
    closers.push(() => up.close());
    const h = await httpHarness(w, [{ name: 'rec', kind: 'http', url: up.url }], 100, [w.files], { maxSessionsPerSeat: 2, evictIdleMs: 0 });
    closers.push(() => h.close());
    const [first, second] = [await h.client('0xWORKER'), await h.client('0xWORKER')];
    await first.callTool({ name: 'peek', arguments: { what: 'a' } });
    await second.callTool({ name: 'peek', arguments: { what: 'b' } });
    // A third session of the same seat closes the one least recently used, with its upstream session.
    const third = await h.client('0xWORKER');
    await expect(first.callTool({ name: 'peek', arguments: { what: 'c' } })).rejects.toThrow(/404|Session not found/);
    expect((await second.callTool({ name: 'peek', arguments: { what: 'd' } })).isError).toBeFalsy();
    expect((await third.callTool({ name: 'peek', arguments: { what: 'e' } })).isError).toBeFalsy();
    // Another seat's sessions are its own.
    await h.client('0xOTHER');
    expect(h.gateway.sessions.size).toBe(3);

    // With a call in flight in each of the seat's sessions, a new one is refused, and nothing is closed.
    const busy = [second, third].map((c) => c.callTool({ name: 'slow', arguments: { steps: 50 } }));
    // Both calls are in flight once the upstream has them (it answers each 2 s later).
    for (let i = 0; i < 200 && recorded(w).filter((r) => r.tool === 'slow').length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(recorded(w).filter((r) => r.tool === 'slow')).toHaveLength(2);
    const refused = await fetch(h.listener.url, { method: 'POST', headers: { ...RAW_HEADERS, authorization: `Bearer ${TOKENS['0xWORKER']}` }, body: JSON.stringify(RAW_INIT) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/Too many sessions: 0xWORKER has 2 open/);
    for (const r of await Promise.all(busy)) expect(r.content).toEqual([{ type: 'text', text: 'done 50' }]);
    expect(h.gateway.sessions.size).toBe(3);
  }, 30_000);

  it('answers malformed calls with JSON-RPC errors and never forwards them', async () => {
    const { w, h } = await setup();
    const c = await h.client('0xWORKER');
    await expect(c.request({ method: 'tools/call', params: { name: 42 } } as never, CallToolResultSchema)).rejects.toThrow(/-32602|Invalid/);
    await expect(c.request({ method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: { 'plangate/runId': 7 } } }, CallToolResultSchema)).rejects.toThrow(/run id/);
    await expect(c.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/not found/);
    expect(recorded(w)).toEqual([]);
  });

  it('decides resources/read as a read, with the read guard on a file: URI', async () => {
    const { w, h, big, small } = await setup();
    const c = await h.client('0xWORKER');
    const uris = (await c.listResources()).resources.map((r) => r.uri);
    expect(uris).toEqual([pathToFileURL(big).href, pathToFileURL(small).href, 'memo://insights']);
    const refused = c.readResource({ uri: pathToFileURL(big).href });
    await expect(refused).rejects.toMatchObject({ code: -32030, data: { check: 'read_guard', code: 'read_guard:resources/read' } });
    expect((await c.readResource({ uri: pathToFileURL(small).href })).contents[0]).toMatchObject({ text: 'tiny' });
    // A resource that is not a file is not the guard's: read, never refused as bad_path.
    expect((await c.readResource({ uri: 'memo://insights' })).contents[0]).toMatchObject({ text: 'a memo' });
    expect(recorded(w).map((r) => r.args['uri'])).toEqual([pathToFileURL(small).href, 'memo://insights']);
  });

  it('reports upstreams and counts calls in /health and /metrics', async () => {
    const { h } = await setup();
    const c = await h.client('0xWORKER');
    await c.callTool({ name: 'echo', arguments: { text: 'x' } });
    expect(await (await fetch(h.listener.url.replace('/mcp', '/health'))).json()).toEqual({ status: 'ok' });
    const health = await (await fetch(h.listener.url.replace('/mcp', '/health'), { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).json() as Record<string, unknown>;
    expect(health).toMatchObject({ status: 'ok', sessions: 1, enforcing: true, upstreams: [{ name: 'rec', transport: 'http', state: 'up', up: 1, down: 0 }] });
    // Anonymous: no tool name, no per-tool count. With an operator's token: both.
    const anonymous = await (await fetch(h.listener.url.replace('/mcp', '/metrics'))).text();
    expect(anonymous).not.toMatch(/echo|plangate_mcp_tool_calls_total/);
    expect(anonymous).toMatch(/plangate_mcp_sessions 1/);
    const metrics = await (await fetch(h.listener.url.replace('/mcp', '/metrics'), { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).text();
    expect(metrics).toMatch(/plangate_mcp_tool_calls_total\{tool="echo",outcome="refused"\} 1/);
    expect(metrics).toMatch(/plangate_mcp_sessions 1/);
  });

  it('passes prompts through, decided as reads: a planning hold refuses them', async () => {
    const { w, h } = await setup();
    const c = await h.client('0xWORKER');
    expect((await c.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet']);
    expect((await c.getPrompt({ name: 'greet', arguments: { who: 'Ada' } })).messages[0]).toMatchObject({ content: { text: 'Say hello to Ada' } });
    // Completions answer with the upstream's data: decided as reads too.
    const complete = () => c.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A' } });
    expect((await complete()).completion.values).toEqual(['Ada', 'Alan']);
    await h.operator.gate.holds.place('0xWORKER', { by: 'ops' });
    await expect(c.getPrompt({ name: 'greet', arguments: { who: 'Bob' } })).rejects.toMatchObject({ code: -32030, data: { check: 'planning_hold', code: 'planning_hold:prompts/get' } });
    await expect(complete()).rejects.toMatchObject({ code: -32030, data: { check: 'planning_hold', code: 'planning_hold:completion/complete' } });
    expect(recorded(w).filter((r) => r.tool === 'prompts/get').map((r) => r.args['who'])).toEqual(['Ada']);
  });

  it('lists no upstream tool under the names it decides resources/read and prompts/get as', async () => {
    const w = makeWorld(`
planRequired:
  workspace: { mode: side_effects }
planningGate:
  defaults: { whitelist: [prompts/get, resources/read] }
`);
    const up = await recorderHttp(w.record, [], ['prompts/get', 'resources/read']);
    closers.push(() => up.close());
    const h = await httpHarness(w, [{ name: 'rec', kind: 'http', url: up.url }]);
    closers.push(() => h.close());
    const c = await h.client('0xWORKER');
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names).toContain('echo');
    expect(names).not.toContain('prompts/get');
    expect(names).not.toContain('resources/read');
    // A held seat with a plan: the whitelist opens prompts and resources, never an upstream tool named like them.
    expect((await call(c, 'plangate_say', { body: 'run prompts/get' })).isError).toBeFalsy();
    await h.operator.gate.holds.place('0xWORKER', { by: 'ops' });
    for (const name of ['prompts/get', 'resources/read']) await expect(c.callTool({ name, arguments: {} })).rejects.toThrow(/not found/);
    expect(recorded(w)).toEqual([]);
  });

  it('runs as plangate mcp --listen and stops on SIGTERM', async () => {
    const w = makeWorld();
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_CHILD, '--rules', w.rules, '--store', w.store, '--audit', w.audit,
      'mcp', '--listen', '127.0.0.1:0', '--name', 'fs', '--', process.execPath, FS_SERVER, w.files], {
      env: { ...process.env, PLANGATE_TOKENS: `agent:0xWORKER=${TOKENS['0xWORKER']}` }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        const m = /serving (http:\S+) /.exec(err);
        if (m) resolve(m[1] as string);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
    });
    const c = new Client({ name: 'cli-test', version: '1' });
    await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKENS['0xWORKER']}` } } }));
    expect((await c.listTools()).tools.map((t) => t.name)).toContain('write_file');
    const refused = await c.callTool({ name: 'write_file', arguments: { path: join(w.files, 'x.txt'), content: 'x' } });
    expect(refused.structuredContent).toMatchObject({ code: 'plan_required:write_file:none' });
    await c.close();
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);

  it('closes a session whose client went away without ending it, and its upstream connections with it', async () => {
    const w = makeWorld();
    const h = await httpHarness(w, undefined, 100, undefined, { sessionIdleMs: 300 });
    closers.push(() => h.close());
    const auth = { ...RAW_HEADERS, authorization: `Bearer ${TOKENS['0xWORKER']}` };
    const init = await fetch(h.listener.url, { method: 'POST', headers: auth, body: JSON.stringify(RAW_INIT) });
    const sid = init.headers.get('mcp-session-id') as string;
    await init.text();
    const inSession = { ...auth, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
    await (await fetch(h.listener.url, { method: 'POST', headers: inSession, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
    const list = await fetch(h.listener.url, { method: 'POST', headers: inSession, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }) });
    expect(await list.text()).toContain('write_file');
    expect(h.gateway.health().upstreams[0]).toMatchObject({ state: 'up', up: 1 });
    // The client is gone: no request and no stream for longer than the idle time.
    const end = Date.now() + 10_000;
    while (h.gateway.sessions.size > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(h.gateway.sessions.size).toBe(0);
    expect(h.gateway.health().upstreams[0]).toMatchObject({ state: 'idle', up: 0 });
    const after = await fetch(h.listener.url, { method: 'POST', headers: inSession, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }) });
    expect(after.status).toBe(404);
  }, 30_000);
});
