/**
 * Executors: where `POST /mcp/call` sends a call the gate allowed. Each tool
 * name or tool prefix maps to an upstream HTTP endpoint; the call is POSTed
 * there as JSON and the upstream's answer (status, content type, body) is
 * passed back. The agent's own credentials are never forwarded.
 */
import http from 'node:http';
import https from 'node:https';
import { readFile } from 'node:fs/promises';
import { ErrorCode, PlangateError } from '../../core/errors.js';
import { HttpCode, HttpError } from './errors.js';
import { checkSchema } from './schemas.js';

/** The executors file, `schemas/http/executors.schema.json`. */
export interface ExecutorsConfig {
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Tool name or prefix (`github.*`, `*`) → URL, or `{ url, timeoutMs?, headers? }`. */
  tools: Record<string, string | { url: string; timeoutMs?: number; headers?: Record<string, string> }>;
}

/** One upstream endpoint. */
export interface ExecutorTarget {
  /** The key that matched (`github.merge_pull_request`, `github.*`). */
  key: string;
  url: URL;
  timeoutMs: number;
  headers: Record<string, string>;
}

/** What is sent to the executor. */
export interface ExecutorPayload {
  name: string;
  arguments: Record<string, unknown>;
  agent: string;
  runId?: string;
  delegatedBy?: string[];
  _meta?: Record<string, unknown>;
}

/** The executor's answer, passed back as is. */
export interface ExecutorAnswer {
  status: number;
  contentType: string;
  body: Buffer;
}

export interface Executors {
  /** The target for a tool: its exact entry, else the longest matching prefix. */
  lookup(tool: string): ExecutorTarget | undefined;
  /** Sends an allowed call; throws `upstream_failed` (502) or `upstream_timeout` (504). */
  call(target: ExecutorTarget, payload: ExecutorPayload): Promise<ExecutorAnswer>;
  /** Closes the kept-alive connections. */
  close(): void;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const HEADER_SAFE = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;
const DEFAULT_MAX_RESPONSE_BYTES = 10 * 2 ** 20;

/**
 * Builds the executor table; throws `invalid_input` naming the entry when
 * the configuration is malformed.
 *
 * @example
 * const executors = createExecutors({ tools: { 'github.*': 'http://127.0.0.1:9000/github' } });
 * executors.lookup('github.merge_pull_request')?.url.href // 'http://127.0.0.1:9000/github'
 */
export function createExecutors(config: ExecutorsConfig, source = 'executors'): Executors {
  checkSchema('executors', config, source);
  const timeout = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const exact = new Map<string, ExecutorTarget>();
  const prefixes: Array<[string, ExecutorTarget]> = [];
  for (const [key, value] of Object.entries(config.tools)) {
    const entry = typeof value === 'string' ? { url: value } : value;
    let url: URL;
    try {
      url = new URL(entry.url);
    } catch {
      throw new PlangateError(ErrorCode.InvalidInput, `invalid ${source}: tools["${key}"].url is not a URL`);
    }
    const target: ExecutorTarget = { key, url, timeoutMs: entry.timeoutMs ?? timeout, headers: { ...(entry.headers ?? {}) } };
    if (key.endsWith('*')) prefixes.push([key.slice(0, -1), target]);
    else exact.set(key, target);
  }
  prefixes.sort((a, b) => b[0].length - a[0].length);
  const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

  return {
    lookup(tool) {
      return exact.get(tool) ?? prefixes.find(([prefix]) => tool.startsWith(prefix))?.[1];
    },
    call(target, payload) {
      return post(target, payload, maxBytes, agents);
    },
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

/** Reads and checks an executors file. */
export async function loadExecutors(file: string): Promise<Executors> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new PlangateError(ErrorCode.InvalidInput, `executors file ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new PlangateError(ErrorCode.InvalidInput, `${file} is not JSON: ${(error as Error).message}`);
  }
  return createExecutors(doc as ExecutorsConfig, file);
}

function post(
  target: ExecutorTarget,
  payload: ExecutorPayload,
  maxBytes: number,
  agents: Record<'http:' | 'https:', http.Agent>,
): Promise<ExecutorAnswer> {
  const body = Buffer.from(JSON.stringify(payload));
  // The caller reads this: the executor's configured key, never its address (that is in the operators' executors file).
  const where = `executor ${target.key}`;
  return new Promise((resolve, reject) => {
    const client = target.url.protocol === 'https:' ? https : http;
    const req = client.request(target.url, {
      method: 'POST',
      agent: agents[target.url.protocol as 'http:' | 'https:'],
      headers: {
        ...target.headers,
        'content-type': 'application/json',
        'content-length': String(body.length),
        'x-plangate-agent': payload.agent,
        'x-plangate-tool': payload.name,
        // The run id is any text: sent as a header only when it is a valid header value (it is in the body anyway).
        ...(payload.runId !== undefined && HEADER_SAFE.test(payload.runId) ? { 'x-plangate-run': payload.runId } : {}),
      },
    });
    const timer = setTimeout(() => {
      req.destroy(new HttpError(HttpCode.UpstreamTimeout, `${where} did not answer within ${target.timeoutMs} ms`));
    }, target.timeoutMs);
    const fail = (error: unknown): void => {
      clearTimeout(timer);
      reject(error instanceof HttpError ? error : new HttpError(HttpCode.UpstreamFailed, `${where} failed: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`));
    };
    req.on('error', fail);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          req.destroy(new HttpError(HttpCode.UpstreamFailed, `${where} answered more than ${maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', fail);
      res.on('aborted', () => fail(new HttpError(HttpCode.UpstreamFailed, `${where} cut its answer off`)));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 502,
          contentType: res.headers['content-type'] ?? 'application/octet-stream',
          body: Buffer.concat(chunks),
        });
      });
    });
    req.end(body);
  });
}
