/**
 * The gateway with several upstreams (a recording SDK McpServer over stdio
 * and over Streamable HTTP, and the filesystem server): namespacing, a
 * tool added after start, an upstream that exits and comes back, and what
 * passes through (progress, cancellation, sampling, elicitation, logging).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CreateMessageRequestSchema, ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { recorderHttp } from './recorder.js';
import { call, closeAfterEach, fsUpstream, httpHarness, makeWorld, recorded, recorderUpstream, RULES, textOf } from './support.js';

const FAKE_SERVER = resolve(import.meta.dirname, 'fake-server.ts');

const OPEN = `
planRequired:
  workspace: { mode: side_effects, windowMin: 10 }
`;

async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('plangate mcp with several upstreams', () => {
  const closers = closeAfterEach();

  /** The recorder over Streamable HTTP as the gateway's one upstream, `rec`; both closed after the test. */
  async function recorderBehindGateway() {
    const w = makeWorld(OPEN);
    const up = await recorderHttp(w.record);
    closers.push(() => up.close());
    const h = await httpHarness(w, [{ name: 'rec', kind: 'http', url: up.url }]);
    closers.push(() => h.close());
    return { w, up, h };
  }

  /** A gateway in front of an upstream offering `deploy` and a tool named as the default reviewer channel, with 0xWORKER's client. */
  async function channelNamedUpstream(rules: string) {
    const w = makeWorld(rules);
    const tools = ['plangate_submit_plan', 'deploy'].map((name) => ({ name, inputSchema: { type: 'object' } }));
    const h = await httpHarness(w, [{ name: 'fake', kind: 'stdio', command: process.execPath, args: ['--import', 'tsx', FAKE_SERVER, JSON.stringify({ tools })] }]);
    closers.push(() => h.close());
    return { h, c: await h.client('0xWORKER') };
  }

  it('reads the tool lists again for unknown names at most once a second, one read shared by the calls that come meanwhile', async () => {
    const w = makeWorld('planRequired:\n  workspace: { mode: side_effects }\n');
    const listLog = join(w.root, 'lists.log');
    const spec = { listLog, tools: [{ name: 'peek', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }] };
    const h = await httpHarness(w, [{ name: 'fake', kind: 'stdio', command: process.execPath, args: ['--import', 'tsx', FAKE_SERVER, JSON.stringify(spec)] }]);
    closers.push(() => h.close());
    const c = await h.client('0xWORKER');
    const lists = (): number => (existsSync(listLog) ? readFileSync(listLog, 'utf8').split('\n').filter(Boolean).length : 0);
    // A known tool, once the session has read the lists at its start.
    expect(textOf(await call(c, 'peek'))).toBe('peek ran');
    const atStart = lists();
    // Forty calls to made-up names, twenty at once and twenty one after another: one read of the lists.
    const made = Array.from({ length: 20 }, (_, i) => c.callTool({ name: `made_up_${i}`, arguments: {} }).catch((e: Error) => e));
    for (const r of await Promise.all(made)) expect(String(r)).toMatch(/not found/);
    for (let i = 0; i < 20; i++) await expect(c.callTool({ name: `again_${i}`, arguments: {} })).rejects.toThrow(/not found/);
    expect(lists() - atStart).toBe(1);
    // A second later an unknown name is looked up again; the known tool never needed it.
    await new Promise((r) => setTimeout(r, 1100));
    await expect(c.callTool({ name: 'later', arguments: {} })).rejects.toThrow(/not found/);
    expect(textOf(await call(c, 'peek'))).toBe('peek ran');
    expect(lists() - atStart).toBe(2);
  }, 30_000);

  it("never forwards a call to the seat's reviewer channel, even where an upstream offers a tool of that name", async () => {
    const { h, c } = await channelNamedUpstream('planRequired:\n  workspace: { mode: side_effects }\n');
    // Listed once, as plangate's own tool.
    expect((await c.listTools()).tools.filter((t) => t.name === 'plangate_submit_plan')).toHaveLength(1);
    expect((await call(c, 'deploy')).structuredContent).toMatchObject({ code: 'plan_required:deploy:none' });
    // Not held: plangate's channel says so; the upstream's tool of that name does not run.
    const free = await call(c, 'plangate_submit_plan', { plan: 'deploy at noon' });
    expect(textOf(free)).not.toContain('ran');
    expect(free.isError).toBe(true);
    // Held: the plan goes to the hold, not upstream, and the agent stays held.
    const hold = await h.operator.gate.holds.place('0xWORKER', { by: 'ops' });
    const sent = await call(c, 'plangate_submit_plan', { plan: 'deploy at noon' });
    expect(textOf(sent)).toContain(`sent to the reviewer (hold ${hold.id}`);
    expect((await h.operator.gate.holds.get('0xWORKER'))?.plans).toBe(1);
    expect((await call(c, 'deploy')).structuredContent).toMatchObject({ check: 'planning_hold' });
  });

  it('never forwards the reviewer channel while plangate fails open either', async () => {
    // Rules that cannot be read from the start: plan-required fails open, and the decision names no channel.
    const { c } = await channelNamedUpstream('planRequired: [\n');
    expect(textOf(await call(c, 'deploy'))).toBe('deploy ran');
    const channel = await call(c, 'plangate_submit_plan', { plan: 'x' });
    expect(textOf(channel)).not.toContain('ran');
    expect(channel.isError).toBe(true);
  });

  it("read-guards a Streamable HTTP upstream's file tools without looking at the gateway's own files", async () => {
    // The recorder's read_text_file has no hints: the rules make it a read, as a filesystem server's is.
    const w = makeWorld(`${RULES}tools:\n  read: [read_text_file]\n`);
    const up = await recorderHttp(w.record, [], ['read_text_file']);
    closers.push(() => up.close());
    const h = await httpHarness(w, [{ name: 'web', kind: 'http', url: up.url }]);
    closers.push(() => h.close());
    const c = await h.client('0xWORKER');
    // package.json is in the gateway's working directory, nope.log is not: the answer is the same,
    // so the agent learns nothing of the gateway's files, and neither whole read reaches the upstream.
    const here = await call(c, 'read_text_file', { path: 'package.json' });
    const absent = await call(c, 'read_text_file', { path: 'nope.log' });
    for (const r of [here, absent]) expect(r.structuredContent).toMatchObject({ check: 'read_guard', code: 'read_guard:read_text_file' });
    expect(textOf(here).replaceAll('package.json', 'P')).toBe(textOf(absent).replaceAll('nope.log', 'P'));
    expect(textOf(here)).not.toMatch(/bytes/);
    // Nor can the lines asked for be measured there: a read guard that cannot vouch refuses.
    expect(textOf(await call(c, 'read_text_file', { path: 'package.json', head: 5 }))).toContain('package.json is outside the directories plangate may look at');
    expect(recorded(w)).toEqual([]);
  });

  it('decides a call that arrives while the upstream\'s changed tool list is read on the new list', async () => {
    const w = makeWorld('planRequired:\n  workspace: { mode: side_effects }\n');
    const h = await httpHarness(w, [recorderUpstream(w)]);
    closers.push(() => h.close());
    const c = await h.client('0xWORKER');
    expect(textOf(await call(c, 'peek', { what: 'before' }))).toBe('saw before');
    // Over stdio the list_changed arrives before harden_peek's answer, so the next call finds the gateway reading the list.
    await call(c, 'harden_peek');
    const after = await call(c, 'peek', { what: 'after' });
    expect(after.structuredContent).toMatchObject({ check: 'plan_required', code: 'plan_required:peek:none' });
    expect(recorded(w).filter((r) => r.tool === 'peek').map((r) => r.args['what'])).toEqual(['before']);
  }, 30_000);

  it('namespaces tools as <upstream>__<tool>, gates a tool added after start on its first call, survives an upstream that exits', async () => {
    const w = makeWorld(OPEN);
    const h = await httpHarness(w, [recorderUpstream(w), fsUpstream(w)], 1500);
    closers.push(() => h.close());
    const c = await h.client('0xWORKER');
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['plangate_say', 'rec__echo', 'rec__peek', 'fs__write_file', 'fs__read_text_file']));
    expect(names).not.toContain('echo');

    // echo has no hints: an effect, refused without a plan; the upstream never saw it.
    expect((await call(c, 'rec__echo', { text: 'hi' })).structuredContent).toMatchObject({ code: 'plan_required:rec__echo:none' });
    expect((await call(c, 'rec__peek', { what: 'the sky' })).isError).toBeFalsy();
    expect(recorded(w).map((r) => r.tool)).toEqual(['peek']);

    // A tool added upstream: list_changed reaches the client, and the first call is decided.
    let changed = 0;
    c.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changed++);
    await call(c, 'rec__add_tool');
    await until(() => changed > 0);
    expect((await c.listTools()).tools.map((t) => t.name)).toContain('rec__late_tool');
    const late = await call(c, 'rec__late_tool', { n: 1 });
    expect(late.structuredContent).toMatchObject({ check: 'plan_required', code: 'plan_required:rec__late_tool:none' });
    expect(recorded(w).map((r) => r.tool)).not.toContain('late_tool');
    await call(c, 'plangate_say', { body: 'call late_tool once' });
    expect(textOf(await call(c, 'rec__late_tool', { n: 2 }))).toBe('late 2');

    // An unknown tool is a JSON-RPC error, not a decision.
    await expect(c.callTool({ name: 'rec__nope', arguments: {} })).rejects.toThrow(/not found/);

    // The upstream exits: its tools say so, the other upstream keeps serving, and it comes back.
    const firstPid = recorded(w)[0]?.pid;
    await call(c, 'rec__exit');
    await until(() => h.gateway.health().upstreams.find((u) => u.name === 'rec')?.state === 'down');
    const health = h.gateway.health();
    expect(health.status).toBe('degraded');
    expect(health.reasons.join()).toContain('upstream rec is down');
    const down = await call(c, 'rec__peek', { what: 'anything' });
    expect(down.structuredContent).toMatchObject({ check: 'upstream', code: 'upstream_down:rec', reason: 'upstream_down' });
    expect(textOf(down)).toContain('upstream rec is down: its process exited');
    // What the upstream said on stderr is for operators (/health), never for the agent.
    expect(textOf(down)).not.toContain('s3cret');
    expect(health.upstreams.find((u) => u.name === 'rec')?.lastError).toContain('s3cret');
    expect((await call(c, 'fs__list_allowed_directories')).isError).toBeFalsy();
    await until(() => h.gateway.health().upstreams.find((u) => u.name === 'rec')?.state === 'up');
    expect(textOf(await call(c, 'rec__peek', { what: 'again' }))).toBe('saw again');
    const pids = new Set(recorded(w).map((r) => r.pid));
    expect(pids.size).toBe(2);
    expect(pids.has(firstPid as number)).toBe(true);
    expect(h.gateway.health().upstreams.find((u) => u.name === 'rec')?.restarts).toBeGreaterThanOrEqual(1);
    const metrics = (await h.gateway.metrics.render()).text;
    expect(metrics).toMatch(/plangate_mcp_tool_calls_total\{tool="rec__echo",outcome="refused"\} 1/);
    expect(metrics).toMatch(/plangate_mcp_upstream_up\{upstream="rec"\} 1/);
  }, 60_000);

  it('opens a new session with a Streamable HTTP upstream that no longer knows the old one', async () => {
    const { w, up, h } = await recorderBehindGateway();
    const c = await h.client('0xWORKER');
    expect(textOf(await call(c, 'peek', { what: 'one' }))).toBe('saw one');

    // The upstream restarts: its sessions are gone, and it answers their ids with 404.
    await up.forget();
    const lost = await call(c, 'peek', { what: 'two' });
    expect(lost.structuredContent).toMatchObject({ check: 'upstream', code: 'upstream_down:rec' });
    await until(() => h.gateway.health().upstreams[0]?.state === 'up');
    expect(textOf(await call(c, 'peek', { what: 'three' }))).toBe('saw three');
    expect(recorded(w).map((r) => r.args['what'])).toEqual(['one', 'three']);
  }, 30_000);

  it("tells the client an HTTP upstream's failed status in plangate's words, keeps the page it answered for the operator, and keeps serving", async () => {
    const { w, up, h } = await recorderBehindGateway();
    // Two sessions, so two links to the upstream: the one that failed is the one health tells of.
    const first = await h.client('0xWORKER');
    expect(textOf(await call(first, 'peek', { what: 'zero' }))).toBe('saw zero');
    const c = await h.client('0xWORKER');
    expect(textOf(await call(c, 'peek', { what: 'one' }))).toBe('saw one');
    up.failNextCall(500, '<html>Traceback (most recent call last): File "/srv/app/secrets.py", DATABASE_URL=postgres://admin:hunter2@db</html>');
    const failed = await c.callTool({ name: 'peek', arguments: { what: 'two' } }).then(() => undefined, (e: unknown) => e as { code: number; message: string });
    expect(failed?.code).toBe(-32603);
    expect(failed?.message).toMatch(/upstream rec answered tools\/call with HTTP 500/);
    expect(failed?.message).not.toMatch(/hunter2|Traceback/);
    expect(h.gateway.health().upstreams[0]?.lastError).toMatch(/HTTP 500.*hunter2/);
    // Not a dropped connection: the link stays up, and the next call goes through.
    expect(h.gateway.health().upstreams[0]?.state).toBe('up');
    expect(textOf(await call(c, 'peek', { what: 'three' }))).toBe('saw three');
    // A proxy's 502 (the call may have run behind it), a page with a 200, a body that is not JSON:
    // each is an answer to that one call, in plangate's words, and the link stays up.
    const failures: Array<[number, string, string, RegExp]> = [
      [502, '<html>Bad Gateway: upstream 10.1.2.3:8080 hunter2</html>', 'text/html', /answered tools\/call with HTTP 502$/],
      [200, '<html>Sign in to continue hunter2</html>', 'text/html', /answered tools\/call with a reply that is not MCP$/],
      [200, '{"broken": hunter2', 'application/json', /answered tools\/call with a reply that is not MCP$/],
      // a body's own words do not make it a dropped connection (its parse error quotes it)
      [200, 'ECONNRESET', 'application/json', /answered tools\/call with a reply that is not MCP$/],
    ];
    for (const [status, page, type, said] of failures) {
      up.failNextCall(status, page, type);
      const e = await c.callTool({ name: 'peek', arguments: { what: 'lost' } }).then(() => undefined, (x: unknown) => x as { message: string });
      expect(e?.message, page).toMatch(said);
      expect(e?.message).not.toMatch(/hunter2|ECONNRESET/);
      expect(h.gateway.health().upstreams[0]).toMatchObject({ state: 'up', lastError: expect.stringMatching(/^tools\/call answered (HTTP 502|a reply that is not MCP): /) });
    }
    expect(textOf(await call(c, 'peek', { what: 'four' }))).toBe('saw four');
    expect(recorded(w).map((r) => r.args['what'])).toEqual(['zero', 'one', 'three', 'four']);
  }, 30_000);

  it('takes an upstream that sends a message over the bound as failed, over stdio and Streamable HTTP: the calls are told why, the link reconnects', async () => {
    const w = makeWorld(OPEN);
    const up = await recorderHttp(w.record);
    closers.push(() => up.close());
    const bound = 64 * 1024;
    const h = await httpHarness(w, [recorderUpstream(w, 'local'), { name: 'web', kind: 'http', url: up.url }], 100, [], {}, { maxUpstreamMessageBytes: bound });
    closers.push(() => h.close());
    const c = await h.client('0xWORKER');
    const state = (name: string) => h.gateway.health().upstreams.find((u) => u.name === name);
    for (const name of ['local', 'web']) {
      expect(textOf(await call(c, `${name}__big`, { bytes: 1000 }))).toHaveLength(1000);
      const lost = await call(c, `${name}__big`, { bytes: 3 * bound });
      expect(lost.structuredContent, name).toMatchObject({ check: 'upstream', code: `upstream_down:${name}` });
      expect(textOf(lost)).toContain(`upstream ${name} is down: it sent a message larger than ${bound} bytes`);
      expect(state(name)?.lastError).toContain(`larger than ${bound} bytes`);
      await until(() => state(name)?.state === 'up');
      // Below the bound, however many messages together: the new link serves as before.
      for (let i = 0; i < 3; i++) expect(textOf(await call(c, `${name}__big`, { bytes: bound / 2 }))).toHaveLength(bound / 2);
    }
    // An answer that is not an event stream is bounded whole (here JSON, as a server without streams answers).
    up.failNextCall(200, JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'y'.repeat(2 * bound) }] } }), 'application/json');
    const whole = await call(c, 'web__peek', { what: 'a page' });
    expect(textOf(whole)).toContain(`upstream web is down: it sent a message larger than ${bound} bytes`);
    await until(() => state('web')?.state === 'up');
    expect(textOf(await call(c, 'web__peek', { what: 'more' }))).toBe('saw more');
    expect(recorded(w).filter((r) => r.tool === 'big').map((r) => r.args['bytes'])).toEqual([1000, 3 * bound, bound / 2, bound / 2, bound / 2, 1000, 3 * bound, bound / 2, bound / 2, bound / 2]);
  }, 30_000);

  it('opens a new session with a Streamable HTTP upstream whose notification stream cannot be opened again', async () => {
    const { up, h } = await recorderBehindGateway();
    const c = await h.client('0xWORKER');
    expect(textOf(await call(c, 'peek', { what: 'one' }))).toBe('saw one');
    // The stream is cut and every new one refused: the SDK tries again (about 1 s, then 1.5 s) and gives up.
    up.breakStreams();
    await until(() => h.gateway.health().upstreams[0]?.lastError?.startsWith('the notification stream: ') === true, 5_000);
    // Then the link is down and opens a new session.
    await until(() => (h.gateway.health().upstreams[0]?.restarts ?? 0) >= 1, 10_000);
    up.mendStreams();
    await until(() => h.gateway.health().upstreams[0]?.state === 'up', 10_000);
    expect(textOf(await call(c, 'peek', { what: 'two' }))).toBe('saw two');
  }, 30_000);

  it('relays progress, cancellation, sampling and elicitation with a Streamable HTTP upstream', async () => {
    const { w, h } = await recorderBehindGateway();
    const c = await h.client('0xWORKER', { capabilities: { sampling: {}, elicitation: { form: {} } } });
    c.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', model: 'test', content: { type: 'text', text: 'pong' } }));
    c.setRequestHandler(ElicitRequestSchema, async (req) => ({ action: 'accept', content: { colour: `blue for ${req.params.message}` } }));

    const progress: number[] = [];
    const slow = await c.callTool({ name: 'slow', arguments: { steps: 3 } }, undefined, { onprogress: (p) => void progress.push(p.progress) });
    expect(textOf(slow as never)).toBe('done 3');
    expect(progress).toEqual([1, 2, 3]);

    expect(textOf(await call(c, 'sample'))).toBe('sampled pong');
    expect(textOf(await call(c, 'ask'))).toBe('elicit accept {"colour":"blue for Which colour?"}');

    const abort = new AbortController();
    const pending = c.callTool({ name: 'slow', arguments: { steps: 50 } }, undefined, { signal: abort.signal, onprogress: () => abort.abort() });
    await expect(pending).rejects.toThrow();
    await until(() => recorded(w).some((r) => r.tool === 'slow_cancelled'));
    expect(await c.ping()).toEqual({});
  }, 60_000);
});
