/**
 * The protocol through the gateway, measured against a direct connection to
 * the same upstream with the SDK's client: the official server-everything
 * (identity, instructions, capabilities, tasks, roots, errors) and the
 * recording server (a method it does not offer).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  ListRootsRequestSchema,
  ListTasksResultSchema,
  McpError,
  ResultSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { auditEvents, call, closeAfterEach, fsUpstream, EVERYTHING, FS_SERVER, httpHarness, makeWorld, recorded, recorderUpstream, textOf, TOKENS } from './support.js';
import { recorderHttp, UnscopedTaskStore } from './recorder.js';
import type { UpstreamSpec } from '../../src/adapters/mcp/upstream.js';

const everything: UpstreamSpec = { name: 'everything', kind: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] };

/** A client straight to server-everything, offering roots when given some. */
async function direct(roots?: { uri: string; name: string }[]): Promise<Client> {
  const c = new Client({ name: 'test-host', version: '1.0.0' }, { capabilities: roots ? { roots: { listChanged: true } } : {} });
  if (roots) c.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));
  await c.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'pipe' }));
  return c;
}

/** Waits for a task to end and returns its payload. */
async function finish(c: Client, taskId: string): Promise<CallToolResult> {
  for (let i = 0; i < 200; i++) {
    const t = await c.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema);
    if (t.status === 'completed' || t.status === 'failed' || t.status === 'cancelled') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return c.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);
}

const research = (c: Client) => c.request({ method: 'tools/call', params: { name: 'simulate-research-query', arguments: { topic: 'tides' }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);

describe('the protocol through plangate mcp, against a direct connection', () => {
  const closers = closeAfterEach();

  async function both(roots?: { uri: string; name: string }[]) {
    const w = makeWorld();
    const h = await httpHarness(w, [everything], 100, []);
    closers.push(() => h.close());
    const d = await direct(roots);
    closers.push(() => d.close());
    const g = await h.client('0xWORKER', roots ? { capabilities: { roots: { listChanged: true } } } : {});
    if (roots) g.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));
    return { w, h, d, g };
  }

  it("passes on the upstream's identity, instructions and capabilities, and its errors with one prefix", async () => {
    const { d, g } = await both();
    expect(g.getServerVersion()).toEqual(d.getServerVersion());
    expect(g.getServerVersion()?.title).toBe('Everything Reference Server');
    const instructions = d.getInstructions() as string;
    expect(instructions.length).toBeGreaterThan(0);
    expect(g.getInstructions()?.startsWith(instructions)).toBe(true);
    expect(g.getInstructions()).toContain('plangate_say');
    expect(g.getServerCapabilities()).toEqual(d.getServerCapabilities());
    // An upstream's error reaches the client as the upstream worded it, not "MCP error -32602: MCP error -32602: …".
    const wrong = { method: 'prompts/get', params: { name: 'no-such-prompt' } } as const;
    const directError = await d.getPrompt(wrong.params).catch((e: Error) => e.message);
    const gatewayError = await g.getPrompt(wrong.params).catch((e: Error) => e.message);
    expect(String(directError)).toMatch(/^MCP error -32602: /);
    expect(gatewayError).toBe(directError);
  }, 60_000);

  it('gates a task-augmented call before the upstream sees it, then relays the task to its result', async () => {
    const { d, g } = await both();
    // No plan: the gate refuses; the client gets a task of the gateway's whose result is the refusal.
    const refused = await research(g);
    expect(refused.task.taskId).toMatch(/^plangate-/);
    expect(refused.task.status).toBe('completed');
    const refusal = await g.request({ method: 'tasks/result', params: { taskId: refused.task.taskId } }, CallToolResultSchema);
    expect(refusal.isError).toBe(true);
    expect(refusal.structuredContent).toMatchObject({ check: 'plan_required', code: 'plan_required:simulate-research-query:none' });
    // The upstream created no task: the list holds the gateway's refusal only.
    expect((await g.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema)).tasks.map((t) => t.taskId)).toEqual([refused.task.taskId]);

    expect((await call(g, 'plangate_say', { body: 'research tides' })).isError).toBeFalsy();
    const [viaGate, straight] = await Promise.all([research(g), research(d)]);
    expect(viaGate.task.status).toBe(straight.task.status);
    const [a, b] = await Promise.all([finish(g, viaGate.task.taskId), finish(d, straight.task.taskId)]);
    expect(textOf(a)).toBe(textOf(b));
    expect(a.content).toEqual(b.content);
    expect(a._meta?.['io.modelcontextprotocol/related-task']).toEqual({ taskId: viaGate.task.taskId });
    const listed = (await g.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema)).tasks.map((t) => t.taskId);
    expect(listed).toEqual(expect.arrayContaining([viaGate.task.taskId, refused.task.taskId]));
    // A finished task cannot be cancelled, through the gateway as directly.
    const cancelDirect = await d.request({ method: 'tasks/cancel', params: { taskId: straight.task.taskId } }, GetTaskResultSchema).catch((e: Error) => e.message);
    const cancelGate = await g.request({ method: 'tasks/cancel', params: { taskId: viaGate.task.taskId } }, GetTaskResultSchema).catch((e: Error) => e.message);
    expect(cancelGate).toBe(cancelDirect);
  }, 60_000);

  it("offers the client's roots to the upstream and forwards their changes", async () => {
    let roots = [{ uri: 'file:///srv/one', name: 'one' }];
    const w = makeWorld();
    const h = await httpHarness(w, [everything], 100, []);
    closers.push(() => h.close());
    const g = await h.client('0xWORKER', { capabilities: { roots: { listChanged: true } } });
    g.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));
    const d = new Client({ name: 'test-host', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
    d.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));
    await d.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'pipe' }));
    closers.push(() => d.close());
    expect((await call(g, 'plangate_say', { body: 'look at the roots' })).isError).toBeFalsy();
    const rootsText = async (c: Client) => textOf(await c.callTool({ name: 'get-roots-list', arguments: {} }) as CallToolResult);
    const first = await rootsText(d);
    expect(first).toContain('file:///srv/one');
    expect(await rootsText(g)).toBe(first);
    roots = [{ uri: 'file:///srv/two', name: 'two' }];
    await Promise.all([d.sendRootsListChanged(), g.sendRootsListChanged()]);
    await new Promise((r) => setTimeout(r, 500));
    const second = await rootsText(d);
    expect(second).toContain('file:///srv/two');
    expect(await rootsText(g)).toBe(second);
  }, 60_000);

  it('answers a method no upstream offers as the upstream does, keeps a list\'s _meta, and forwards nothing', async () => {
    const w = makeWorld();
    const h = await httpHarness(w, [recorderUpstream(w)], 100, []);
    closers.push(() => h.close());
    const g = await h.client('0xWORKER');
    const d = new Client({ name: 'test-host', version: '1.0.0' });
    const spec = recorderUpstream(w);
    if (spec.kind !== 'stdio') throw new Error('the recorder runs over stdio');
    await d.connect(new StdioClientTransport({ command: spec.command, args: spec.args, ...(spec.env ? { env: spec.env } : {}), stderr: 'pipe' }));
    closers.push(() => d.close());
    const directError = await d.listResources().then(() => 'answered', (e: Error) => e.message);
    expect(directError).toBe('MCP error -32601: Method not found');
    expect(await g.listResources().then(() => 'answered', (e: Error) => e.message)).toBe(directError);
    expect(g.getServerCapabilities()?.resources).toBeUndefined();
    expect(g.getServerCapabilities()?.prompts).toEqual(d.getServerCapabilities()?.prompts);
    // The list's own _meta is kept.
    const directPrompts = await d.listPrompts();
    expect(directPrompts._meta).toEqual({ 'example.com/listed-by': 'recorder', 'example.com/list': 'prompts/list' });
    expect((await g.listPrompts())._meta).toEqual(directPrompts._meta);
    expect(g.getServerVersion()).toEqual(d.getServerVersion());
    expect(recorded(w)).toEqual([]);
  }, 60_000);
});

describe("lists' own _meta through plangate mcp", () => {
  const closers = closeAfterEach();

  it('passes on the _meta of each list as the recording server sends it directly', async () => {
    const w = makeWorld();
    writeFileSync(join(w.files, 'notes.txt'), 'notes');
    const upstream = await recorderHttp(w.record, [join(w.files, 'notes.txt')], [], new InMemoryTaskStore());
    closers.push(() => upstream.close());
    const h = await httpHarness(w, [{ name: 'rec', kind: 'http', url: upstream.url }], 100, []);
    closers.push(() => h.close());
    const g = await h.client('0xWORKER');
    const d = new Client({ name: 'test-host', version: '1.0.0' });
    await d.connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
    closers.push(() => d.close());
    const lists = [
      (c: Client) => c.listTools(),
      (c: Client) => c.listResources(),
      (c: Client) => c.listResourceTemplates(),
      (c: Client) => c.listPrompts(),
      (c: Client) => c.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema),
    ];
    const methods = ['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list', 'tasks/list'];
    for (const [i, list] of lists.entries()) {
      const straight = (await list(d))._meta;
      expect(straight).toEqual({ 'example.com/listed-by': 'recorder', 'example.com/list': methods[i] });
      expect((await list(g))._meta, methods[i]).toEqual(straight);
    }
    // The tool list is the gateway's (its own tools first), the _meta the upstream's.
    expect((await g.listTools()).tools.map((t) => t.name)).toContain('plangate_say');
    expect(recorded(w)).toEqual([]);
  }, 60_000);
});

describe('methods no upstream offers, through plangate mcp', () => {
  const closers = closeAfterEach();

  /** Requests for every capability but tools, each with the params it needs. */
  const UNOFFERED = [
    { method: 'resources/list', params: {} },
    { method: 'resources/templates/list', params: {} },
    { method: 'resources/read', params: { uri: 'file:///etc/hostname' } },
    { method: 'resources/subscribe', params: { uri: 'file:///etc/hostname' } },
    { method: 'resources/unsubscribe', params: { uri: 'file:///etc/hostname' } },
    { method: 'prompts/list', params: {} },
    { method: 'prompts/get', params: { name: 'greet' } },
    { method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A' } } },
    { method: 'logging/setLevel', params: { level: 'debug' } },
    { method: 'tasks/get', params: { taskId: 'plangate-1' } },
    { method: 'tasks/result', params: { taskId: 'plangate-1' } },
    { method: 'tasks/cancel', params: { taskId: 'plangate-1' } },
    { method: 'tasks/list', params: {} },
  ] as const;

  it('answers -32601 for each, as the filesystem server does directly, and decides and forwards nothing', async () => {
    const w = makeWorld();
    const h = await httpHarness(w, [fsUpstream(w)], 100, []);
    closers.push(() => h.close());
    const g = await h.client('0xWORKER');
    const d = new Client({ name: 'test-host', version: '1.0.0' });
    await d.connect(new StdioClientTransport({ command: process.execPath, args: [FS_SERVER, w.files], stderr: 'pipe' }));
    closers.push(() => d.close());
    // The filesystem server offers tools alone; so does the gateway in front of it.
    expect(Object.keys(d.getServerCapabilities() ?? {})).toEqual(['tools']);
    expect(g.getServerCapabilities()).toEqual(d.getServerCapabilities());
    const answer = (c: Client, request: (typeof UNOFFERED)[number]) => c.request(request as never, ResultSchema).then(() => 'answered', (e: Error) => e.message);
    for (const request of UNOFFERED) {
      const direct = await answer(d, request);
      expect(direct, request.method).toBe('MCP error -32601: Method not found');
      expect(await answer(g, request), request.method).toBe(direct);
    }
    // Nothing was decided (no audit event) for a method the gateway cannot serve.
    expect(auditEvents(w).filter((e) => String(e['tool'] ?? '').includes('/'))).toEqual([]);
  }, 60_000);

  it('answers -32601 for the methods of tasks in front of the recording server, which offers none', async () => {
    const w = makeWorld();
    const h = await httpHarness(w, [recorderUpstream(w)], 100, []);
    closers.push(() => h.close());
    const g = await h.client('0xWORKER');
    expect(g.getServerCapabilities()?.tasks).toBeUndefined();
    for (const request of UNOFFERED.filter((r) => r.method.startsWith('tasks/'))) {
      await expect(g.request(request as never, ResultSchema), request.method).rejects.toThrow(/^MCP error -32601: Method not found$/);
    }
    // A task-augmented call is refused as a server without tasks refuses it, and never reaches the upstream.
    expect((await call(g, 'plangate_say', { body: 'echo' })).isError).toBeFalsy();
    await expect(g.request({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' }, task: {} } }, CreateTaskResultSchema)).rejects.toThrow(/does not support task creation/);
    expect(recorded(w)).toEqual([]);
  }, 60_000);
});

describe('error messages through plangate mcp', () => {
  const closers = closeAfterEach();
  /** A message with one "MCP error <code>:" in front, as a client's SDK reads a server's error. */
  const ONE_PREFIX = /^MCP error -?\d+: (?!MCP error)/;
  const messageOf = (p: Promise<unknown>) => p.then(() => 'answered', (e: Error) => e.message);

  it("carries one prefix on the gateway's own errors", async () => {
    const w = makeWorld();
    const h = await httpHarness(w, [everything], 100, []);
    closers.push(() => h.close());
    const g = await h.client('0xWORKER');
    const own = [
      g.request({ method: 'tasks/get', params: { taskId: 'nope' } }, GetTaskResultSchema),
      g.request({ method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: { 'plangate/runId': 7 } } }, CallToolResultSchema),
      g.request({ method: 'resources/read', params: { uri: 'file:///etc/hostname' } }, ResultSchema),
      g.request({ method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }, CallToolResultSchema),
    ];
    const messages = await Promise.all(own.map(messageOf));
    expect(messages[0]).toBe('MCP error -32602: Failed to retrieve task: Task not found');
    expect(messages[1]).toMatch(/^MCP error -32602: _meta\["plangate\/runId"\] must be a run id/);
    expect(messages[2]).toMatch(/^MCP error -32030: read_guard:resources\/read/);
    for (const m of messages) expect(m).toMatch(ONE_PREFIX);
  }, 60_000);

  it("adds no prefix through two gateways: an upstream's error as directly, the inner gateway's own with one", async () => {
    const w = makeWorld();
    // The inner gateway has two upstreams (its prompts are namespaced); the outer one is in front of it alone.
    const inner = await httpHarness(w, [{ ...everything, name: 'a' }, recorderUpstream(w, 'b')], 100, []);
    closers.push(() => inner.close());
    const outer = await httpHarness(makeWorld(), [{ name: 'inner', kind: 'http', url: inner.listener.url, headers: { authorization: `Bearer ${TOKENS['0xWORKER']}` } }], 100, []);
    closers.push(() => outer.close());
    const g = await outer.client('0xWORKER');
    const d = await direct();
    closers.push(() => d.close());
    const unknown = { uri: 'demo://resource/static/document/no-such.md' };
    const directError = await messageOf(d.readResource(unknown));
    expect(directError).toMatch(/^MCP error -32602: /);
    expect(await messageOf(g.readResource(unknown))).toBe(directError);
    // The inner gateway's own answer (several upstreams: an unlisted prompt is not routed) keeps its one prefix.
    expect(await messageOf(g.getPrompt({ name: 'nope' }))).toBe('MCP error -32602: Prompt nope not found (list the prompts first)');
  }, 60_000);

  it("gives an upstream the client's error as directly (a sampling request the client refuses)", async () => {
    const refuse = (c: Client) => c.setRequestHandler(CreateMessageRequestSchema, async () => {
      throw new McpError(-32001, 'no model here');
    });
    const w = makeWorld();
    const h = await httpHarness(w, [recorderUpstream(w)], 100, []);
    closers.push(() => h.close());
    const g = await h.client('0xWORKER', { capabilities: { sampling: {} } });
    refuse(g);
    const spec = recorderUpstream(w);
    if (spec.kind !== 'stdio') throw new Error('the recorder runs over stdio');
    const d = new Client({ name: 'test-host', version: '1.0.0' }, { capabilities: { sampling: {} } });
    refuse(d);
    await d.connect(new StdioClientTransport({ command: spec.command, args: spec.args, ...(spec.env ? { env: spec.env } : {}), stderr: 'pipe' }));
    closers.push(() => d.close());
    const viaDirect = await call(d, 'sample');
    const viaGate = await call(g, 'sample');
    expect(viaDirect.isError).toBe(true);
    expect(textOf(viaDirect)).toContain('no model here');
    expect(textOf(viaGate)).toBe(textOf(viaDirect));
  }, 60_000);
});

describe('task ids through plangate mcp', () => {
  const closers = closeAfterEach();

  it("keeps each session's tasks its own, in front of an upstream that does not", async () => {
    const w = makeWorld();
    const upstream = await recorderHttp(w.record, [], [], new UnscopedTaskStore());
    closers.push(() => upstream.close());
    const h = await httpHarness(w, [{ name: 'rec', kind: 'http', url: upstream.url }], 100, []);
    closers.push(() => h.close());
    const worker = await h.client('0xWORKER');
    // Before a plan: refused, a task of the gateway's.
    const refused = await worker.request({ method: 'tools/call', params: { name: 'task_echo', arguments: { text: 'x' }, task: {} } }, CreateTaskResultSchema);
    expect(refused.task.taskId).toMatch(/^plangate-/);
    expect((await call(worker, 'plangate_say', { body: 'echo as a task' })).isError).toBeFalsy();
    const made = await worker.request({ method: 'tools/call', params: { name: 'task_echo', arguments: { text: 'mine' }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
    const id = made.task.taskId;
    expect(textOf(await finish(worker, id))).toBe('mine');

    // Directly, any session of the upstream reaches the task: the upstream keeps none apart.
    const straight = new Client({ name: 'test-host', version: '1.0.0' });
    await straight.connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
    closers.push(() => straight.close());
    expect((await straight.request({ method: 'tasks/get', params: { taskId: id } }, GetTaskResultSchema)).status).toBe('completed');

    // Through the gateway, another seat and another session of the same seat reach nothing of it.
    for (const hostile of [await h.client('0xOTHER'), await h.client('0xWORKER')]) {
      for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel'] as const) {
        await expect(hostile.request({ method, params: { taskId: id } }, GetTaskResultSchema)).rejects.toThrow(/Task not found/);
      }
      await expect(hostile.request({ method: 'tasks/get', params: { taskId: refused.task.taskId } }, GetTaskResultSchema)).rejects.toThrow(/Task not found/);
      expect((await hostile.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema)).tasks).toEqual([]);
    }
    expect((await worker.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema)).tasks.map((t) => t.taskId)).toContain(id);
    expect(recorded(w).map((r) => r.tool)).toEqual(['task_echo']);
  }, 60_000);
});
