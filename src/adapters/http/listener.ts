/**
 * The node:http side of the app: read a body up to the limit (413 as soon as
 * it is passed, without reading the rest), answer in-process, write the answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROCESS_BODY_BUDGET, type ByteBudget } from './body-budget.js';
import { errorAnswer, HttpCode, HttpError } from './errors.js';
import type { HttpAnswer, HttpRequest } from './app.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
/** Headers of every answer: decisions and rules are never cached. */
export const BASE_HEADERS = { 'cache-control': 'no-store' };

/** The answer to a request whose body the budget has no room for. */
export function busyError(budget: ByteBudget): HttpError {
  return new HttpError(HttpCode.Busy, `too many request bodies are being read at once (${budget.limit} bytes); retry in a moment`, [], { 'Retry-After': '1', connection: 'close' });
}

/** Reads a request body, holding its bytes against `budget`; resolves `too_large` as soon as it passes the limit, `busy` when the budget runs out, `aborted` when the client goes away. */
function readBody(req: IncomingMessage, limit: number, budget: ByteBudget): Promise<Buffer | 'too_large' | 'busy' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (value: Buffer | 'too_large' | 'busy' | 'aborted'): void => {
      if (!done) {
        done = true;
        budget.give(size);
        resolve(value);
      }
    };
    req.on('data', (chunk: Buffer) => {
      if (done) return; // past the limit: discard the rest
      if (size + chunk.length > limit) return finish('too_large');
      if (!budget.take(chunk.length)) return finish('busy');
      size += chunk.length;
      chunks.push(chunk);
    });
    req.on('end', () => finish(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.on('error', () => finish('aborted'));
    req.on('aborted', () => finish('aborted'));
  });
}

/** Answers an error and closes the connection, the rest of the body unread. */
function refuseBody(res: ServerResponse, error: HttpError): void {
  const e = errorAnswer(error);
  const text = JSON.stringify(e.body);
  res.writeHead(e.status, { ...BASE_HEADERS, ...e.headers, 'content-type': JSON_TYPE, 'content-length': String(Buffer.byteLength(text)), connection: 'close' });
  res.end(text);
}

/** Reads the body (stopping at the limit), answers, writes the answer; a streamed answer runs until it ends, the client leaves or `streams` are aborted. */
export async function serveNode(fetch: (request: HttpRequest) => Promise<HttpAnswer>, limit: number, req: IncomingMessage, res: ServerResponse, streams: Set<AbortController>, onTooLarge: () => void, budget: ByteBudget = PROCESS_BODY_BUDGET): Promise<void> {
  const declared = Number(req.headers['content-length']);
  let body: Buffer | undefined;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const read = declared > limit ? 'too_large' : await readBody(req, limit, budget);
    if (read === 'aborted') return void res.destroy();
    if (read === 'too_large') {
      onTooLarge();
      return refuseBody(res, new HttpError(HttpCode.BodyTooLarge, `the body is larger than ${limit} bytes`));
    }
    if (read === 'busy') return refuseBody(res, busyError(budget));
    body = read;
  }
  const answer = await fetch({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, ...(body ? { body } : {}) });
  if (answer.stream) return streamAnswer(answer, res, streams);
  // A text body goes as it is: node:http then sends it with the headers in one write.
  const length = typeof answer.body === 'string' ? Buffer.byteLength(answer.body) : answer.body.length;
  res.writeHead(answer.status, { ...answer.headers, 'content-length': String(length) });
  res.end(answer.body);
}


/**
 * Bytes a stream may have waiting unsent before the next write: past them
 * its client has stopped reading (a stalled tab, a laptop asleep, or on
 * purpose), and the stream is closed rather than buffered without end. The
 * client's EventSource opens it again and gets the current state.
 */
export const STREAM_UNSENT_BYTES = 4 * 1024 * 1024;

async function streamAnswer(answer: HttpAnswer, res: ServerResponse, streams: Set<AbortController>): Promise<void> {
  const stop = new AbortController();
  streams.add(stop);
  res.on('close', () => stop.abort());
  // The connection closes with the stream, so a stopping server does not wait for it to go idle.
  res.writeHead(answer.status, { ...answer.headers, connection: 'close' });
  res.flushHeaders();
  try {
    await (answer.stream as NonNullable<HttpAnswer['stream']>).run((chunk) => {
      if (stop.signal.aborted) return;
      if (res.writableLength > STREAM_UNSENT_BYTES) {
        // What is waiting is dropped with the connection.
        stop.abort();
        res.destroy();
        return;
      }
      res.write(chunk);
    }, stop.signal);
  } finally {
    streams.delete(stop);
    res.end();
  }
}
