/**
 * A plangate served over real HTTP on loopback, for black-box tests: the
 * example rules copied to a temp dir, an SQLite store and a JSONL audit file
 * there, known tokens, and an upstream executor that records what it got.
 */
import { cpSync, mkdtempSync, readFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHttpApp, type HttpApp, type HttpAppOptions } from '../../src/adapters/http/app.js';
import { createTokenSet, type TokenEntry } from '../../src/adapters/http/auth.js';
import { createExecutors, type ExecutorsConfig } from '../../src/adapters/http/executors.js';
import { httpOptionsFrom } from '../../src/adapters/http/plangate.js';
import { listen, type RunningServer } from '../../src/adapters/http/server.js';
import { openPlangate, type Plangate } from '../../src/main/open.js';
import type { Store } from '../../src/facts/port.js';

export const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'rules');

/** Known tokens (16+ characters of the bearer alphabet). */
export const TOKENS = {
  worker: 'worker-token-0123456789abcdef',
  mgr: 'manager-token-0123456789abcdef',
  bot: 'bot-token-0123456789abcdef',
  operator: 'operator-token-0123456789abcdef',
  policy: 'policy-token-0123456789abcdef',
  reviewer: 'reviewer-token-0123456789abcdef',
  orchestrator: 'orchestrator-token-0123456789abcdef',
} as const;

export const TOKEN_ENTRIES: TokenEntry[] = [
  { role: 'agent', seat: '0xWORKER', token: TOKENS.worker },
  { role: 'agent', seat: '0xMGR', token: TOKENS.mgr },
  { role: 'agent', seat: '0xBOT', token: TOKENS.bot },
  { role: 'operator', name: 'ops', token: TOKENS.operator },
  { role: 'policy', token: TOKENS.policy },
  { role: 'reviewer', name: 'rev-ann', token: TOKENS.reviewer },
  { role: 'orchestrator', name: 'ci', token: TOKENS.orchestrator },
];

/** One request an upstream received. */
export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A fake executor: a real HTTP server that records every request and answers as told. */
export interface Upstream {
  url: string;
  received: Received[];
  /** What to answer; default 200 `{"ok":true,"echo":<request body>}`. */
  answer: (r: Received) => { status: number; body: string; contentType?: string; delayMs?: number };
  close(): Promise<void>;
}

export async function startUpstream(): Promise<Upstream> {
  const received: Received[] = [];
  const up: Upstream = {
    url: '',
    received,
    answer: (r) => ({ status: 200, body: JSON.stringify({ ok: true, echo: JSON.parse(r.body || 'null') }) }),
    close: () => new Promise((done) => {
      server.closeAllConnections();
      server.close(() => done());
    }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      const a = up.answer(r);
      const send = (): void => {
        res.writeHead(a.status, { 'content-type': a.contentType ?? 'application/json' });
        res.end(a.body);
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  up.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return up;
}

export interface Served {
  dir: string;
  rules: string;
  auditFile: string;
  pg: Plangate;
  app: HttpApp;
  server: RunningServer;
  upstream: Upstream;
  url: string;
  /** The audit lines written so far. */
  audit(): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** The environment plangate reads `PLANGATE_WORKSPACE_*` from (default: none). */
  env?: NodeJS.ProcessEnv;
  /** Change the copied rules before plangate opens (e.g. break them). */
  prepare?: (rulesDir: string) => void;
  executors?: (upstream: string) => ExecutorsConfig;
  app?: Partial<HttpAppOptions>;
  /** The host's clock (epoch ms), e.g. one a test moves forward. */
  clock?: () => number;
  /** The store: a file path or a postgres:// URL (default: store.db in the temp dir), or an open store. */
  store?: string;
  storeInstance?: Store;
}

/** Serves plangate on the example rules on 127.0.0.1 (a free port). */
export async function serve(options: ServeOptions = {}): Promise<Served> {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-http-'));
  const rules = join(dir, 'rules');
  cpSync(EXAMPLES, rules, { recursive: true });
  options.prepare?.(rules);
  const auditFile = join(dir, 'audit.jsonl');
  const pg = await openPlangate({
    rules, store: options.store ?? join(dir, 'store.db'), audit: auditFile, env: options.env ?? {}, log: () => {},
    ...(options.storeInstance ? { storeInstance: options.storeInstance } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const upstream = await startUpstream();
  const executors = createExecutors(options.executors?.(upstream.url) ?? {
    timeoutMs: 2000,
    tools: { 'github.*': `${upstream.url}/github`, 'wallet.propose_spend': `${upstream.url}/wallet` },
  });
  const app = createHttpApp({ ...httpOptionsFrom(pg), tokens: createTokenSet(TOKEN_ENTRIES), executors, onError: () => {}, ...options.app });
  const server = await listen(app, { port: 0 });
  return {
    dir,
    rules,
    auditFile,
    pg,
    app,
    server,
    upstream,
    url: server.url,
    audit: () => (existsSync(auditFile) ? readFileSync(auditFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []),
    async close() {
      await server.close(1000);
      executors.close();
      await upstream.close();
      await pg.close();
    },
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // Route-dependent body; tests assert on it.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** One request over loopback. `json` sets the content type; `body` is sent as is. */
export async function call(
  base: string,
  method: string,
  path: string,
  init: { token?: string; json?: unknown; body?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (init.token !== undefined) headers['authorization'] = `Bearer ${init.token}`;
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** A raw request with node:http (chunked bodies, or bodies sent without reading the answer first). */
export function rawRequest(
  base: string,
  options: { method: string; path: string; headers?: Record<string, string>; chunks: Array<string | Buffer> },
): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${options.path}`, { method: options.method, headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    let i = 0;
    const next = (): void => {
      if (i >= options.chunks.length) return void req.end();
      const ok = req.write(options.chunks[i++] as string | Buffer);
      if (ok) setImmediate(next);
      else req.once('drain', next);
    };
    next();
  });
}
