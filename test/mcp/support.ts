/**
 * Harnesses for the gateway tests: a world (rules, an SQLite store, a
 * directory the filesystem server is started on), the gateway in-process
 * behind Streamable HTTP (with a clock the test moves), and `plangate mcp`
 * as a child process over stdio (time moves by backdating the stored facts).
 * Every client is the SDK's `Client`; every upstream is a real MCP server.
 */
import { mkdirSync, mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { openPlangate, type Plangate } from '../../src/main/open.js';
import { createTokenSet } from '../../src/adapters/http/auth.js';
import { createMcpGateway, type GatewayOptions, type McpGateway } from '../../src/adapters/mcp/gateway.js';
import { listenMcp, type McpListenOptions } from '../../src/adapters/mcp/http.js';
import type { McpListener } from '../../src/adapters/mcp/status.js';
import { readRootsOf } from '../../src/adapters/mcp/config.js';
import type { UpstreamSpec } from '../../src/adapters/mcp/upstream.js';
import { afterEach } from 'vitest';

const require = createRequire(import.meta.url);
export const FS_SERVER = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
export const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
export const RECORDER = resolve(import.meta.dirname, 'recorder.ts');
export const CLI_CHILD = resolve(import.meta.dirname, '..', 'http', 'cli-child.ts');
export const MIN = 60_000;

export const RULES = `
planRequired:
  workspace: { mode: side_effects, windowMin: 10 }
planningGate:
  defaults:
    whitelist: [list_directory, list_allowed_directories, read_text_file]
    readGuardMaxBytes: 1000
`;

export interface World {
  root: string;
  /** The directory the filesystem server is started on. */
  files: string;
  rules: string;
  store: string;
  audit: string;
  record: string;
}

/**
 * The upstreams of these tests whose annotations the rules trust (a
 * `trust.yaml` beside the rules), as an operator who reviewed them would:
 * the tests count on their read-only tools being reads.
 */
export const TRUSTED_UPSTREAMS = ['fs', 'rec', 'web', 'fake', 'flip', 'docs', 'a', 'b', 'work', 'local', 'upstream'];

export function makeWorld(rules = RULES, trusted: readonly string[] = TRUSTED_UPSTREAMS): World {
  const root = mkdtempSync(join(tmpdir(), 'plangate-mcp-'));
  const files = join(root, 'files');
  const rulesDir = join(root, 'rules');
  mkdirSync(files);
  mkdirSync(rulesDir);
  writeFileSync(join(rulesDir, 'rules.yaml'), rules);
  if (trusted.length) writeFileSync(join(rulesDir, 'trust.yaml'), `mcp:\n  trustAnnotations: [${trusted.join(', ')}]\n`);
  return { root, files, rules: rulesDir, store: join(root, 'plangate.db'), audit: join(root, 'audit.jsonl'), record: join(root, 'record.jsonl') };
}

export function fsUpstream(w: World, name = 'fs'): UpstreamSpec {
  return { name, kind: 'stdio', command: process.execPath, args: [FS_SERVER, w.files] };
}

export function recorderUpstream(w: World, name = 'rec'): UpstreamSpec {
  return { name, kind: 'stdio', command: process.execPath, args: ['--import', 'tsx', RECORDER], env: { ...(process.env as Record<string, string>), RECORD: w.record } };
}

/** The calls the recorder received, in order. */
export function recorded(w: World): Array<{ tool: string; args: Record<string, unknown>; pid: number }> {
  if (!existsSync(w.record)) return [];
  return readFileSync(w.record, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

export function auditEvents(w: World): Array<Record<string, unknown>> {
  if (!existsSync(w.audit)) return [];
  return readFileSync(w.audit, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/** What a flow needs from a harness: clients per seat, moving time, the operator's plangate. */
export interface Harness {
  world: World;
  /** A connected client acting as `seat` (and, for stdio, bound to `run`). */
  client(seat: string, options?: { run?: string; capabilities?: Record<string, unknown> }): Promise<Client>;
  /** Moves time forward for every decision from now on. */
  travel(ms: number): void;
  /** An operator's plangate on the same store (holds, push-backs, releases). */
  operator: Plangate;
  close(): Promise<void>;
}

export const TOKENS: Record<string, string> = {
  '0xWORKER': 'worker-token-0123456789abcdef',
  '0xOTHER': 'other-token-0123456789abcdef',
};

export const OPERATOR_TOKEN = 'operator-token-0123456789abcdef';

/** The gateway in this process, clients over Streamable HTTP, a movable clock. */
export async function httpHarness(w: World, upstreams: UpstreamSpec[] = [fsUpstream(w)], reconnectMs = 100, readRoots = readRootsOf(upstreams), listen: Pick<McpListenOptions, 'sessionIdleMs' | 'maxSessionsPerSeat' | 'evictIdleMs' | 'sendTimeoutMs' | 'sessionRate'> = {}, more: Pick<GatewayOptions, 'maxUpstreamMessageBytes' | 'readRoots' | 'clientApprovalTimeoutMs'> = {}): Promise<Harness & { gateway: McpGateway; listener: McpListener; pg: Plangate }> {
  let offset = 0;
  const pg = await openPlangate({ rules: w.rules, store: w.store, audit: w.audit, clock: () => Date.now() + offset, log: () => {}, ...(readRoots.length ? { readRoots } : {}) });
  const gateway = createMcpGateway({ plangate: pg, upstreams, processMetrics: false, reconnect: { firstMs: reconnectMs, maxMs: 4 * reconnectMs, factor: 2 }, ...more });
  const tokens = createTokenSet([
    ...Object.entries(TOKENS).map(([seat, token]) => ({ role: 'agent' as const, seat, token })),
    { role: 'operator', name: 'ops', token: OPERATOR_TOKEN },
  ]);
  const listener = await listenMcp(gateway, { port: 0, tokens, ...listen });
  const clients: Client[] = [];
  return {
    world: w, gateway, listener, pg, operator: pg,
    async client(seat, options = {}) {
      const c = new Client({ name: 'test-host', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
      await c.connect(new StreamableHTTPClientTransport(new URL(listener.url), { requestInit: { headers: { authorization: `Bearer ${TOKENS[seat]}` } } }));
      clients.push(c);
      return c;
    },
    travel(ms) {
      offset += ms;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      await listener.close();
      await gateway.close();
      await pg.close();
    },
  };
}

/** `plangate mcp` as a child process per client over stdio; time moves by backdating the stored messages. */
export async function stdioHarness(w: World, upstreamArgs: (w: World) => string[] = (x) => ['--name', 'fs', '--', process.execPath, FS_SERVER, x.files]): Promise<Harness> {
  const operator = await openPlangate({ rules: w.rules, store: w.store, audit: join(w.root, 'operator-audit.jsonl'), log: () => {} });
  const clients: Client[] = [];
  return {
    world: w, operator,
    async client(seat, options = {}) {
      const c = new Client({ name: 'test-host', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
      await c.connect(new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', CLI_CHILD, 'mcp', '--agent', seat, ...(options.run ? ['--run', options.run] : []),
          '--rules', w.rules, '--store', w.store, '--audit', w.audit, ...upstreamArgs(w)],
        stderr: 'pipe',
      }));
      clients.push(c);
      return c;
    },
    travel(ms) {
      const db = new Database(w.store);
      db.pragma('busy_timeout = 5000');
      db.prepare('UPDATE messages SET at = at - ?').run(ms);
      db.prepare('UPDATE runs SET started_at = started_at - ?, expires_at = expires_at - ?').run(ms, ms);
      db.close();
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      await operator.close();
    },
  };
}

/** Calls a tool and returns its result (a refusal is a result, not an exception). */
export async function call(c: Client, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>): Promise<CallToolResult> {
  return await c.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }) as CallToolResult;
}

export function textOf(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** A raw `initialize` request, and the headers a Streamable HTTP POST needs, for tests that speak HTTP to the gateway themselves. */
export const RAW_INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
export const RAW_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/**
 * What the tests of a `describe` opened, closed after each test, last opened first.
 *
 * @example
 * const closers = closeAfterEach();
 * closers.push(() => h.close());
 */
export function closeAfterEach(): Array<() => Promise<void>> {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
  });
  return closers;
}

/** Reads an event stream until `done` holds for what came so far (or the time is up), then stops reading. */
export async function readUntil(res: Response, done: (text: string) => boolean, ms = 15_000): Promise<string> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  const end = Date.now() + ms;
  while (!done(text) && Date.now() < end) {
    const chunk = await Promise.race([reader.read(), new Promise<undefined>((r) => setTimeout(() => r(undefined), end - Date.now()))]);
    if (!chunk || chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
  }
  await reader.cancel().catch(() => {});
  return text;
}

/**
 * A session opened with raw requests as the seat's client would (initialize, then initialized):
 * its headers, and a POST of one JSON-RPC message in it.
 */
export async function rawSession(url: string, seat: string): Promise<{ headers: Record<string, string>; post(body: unknown, signal?: AbortSignal): Promise<Response> }> {
  const auth = { ...RAW_HEADERS, authorization: `Bearer ${TOKENS[seat] as string}` };
  const init = await fetch(url, { method: 'POST', headers: auth, body: JSON.stringify(RAW_INIT) });
  const sid = init.headers.get('mcp-session-id') as string;
  await init.text();
  const headers = { ...auth, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
  const post = (body: unknown, signal?: AbortSignal) => fetch(url, { method: 'POST', headers, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
  return { headers, post };
}

/** A raw session of 0xWORKER on `plangate mcp --listen` in front of server-everything, closed after the test. */
export async function everythingSession(closers: Array<() => Promise<void>>): Promise<Awaited<ReturnType<typeof rawSession>> & { url: string }> {
  const h = await httpHarness(makeWorld(), [{ name: 'everything', kind: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] }], 100, []);
  closers.push(() => h.close());
  return { ...(await rawSession(h.listener.url, '0xWORKER')), url: h.listener.url };
}
