/**
 * The node:http side of the app: read a body up to the limit (413 as soon as
 * it is passed, without reading the rest), answer in-process, write the answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { busyError, PROCESS_BODY_BUDGET, readBody, SEND_TIMEOUT_MS, sendTimeout, type ByteBudget } from './limits.js';
import { errorAnswer, HttpCode, HttpError } from './errors.js';
import type { HttpAnswer, HttpRequest } from './app.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
/** Headers of every answer: decisions and rules are never cached. */
export const BASE_HEADERS = { 'cache-control': 'no-store' };

/** Answers an error and closes the connection, the rest of the body unread. */
function refuseBody(res: ServerResponse, error: HttpError): void {
  const e = errorAnswer(error);
  const text = JSON.stringify(e.body);
  res.writeHead(e.status, { ...BASE_HEADERS, ...e.headers, 'content-type': JSON_TYPE, 'content-length': String(Buffer.byteLength(text)), connection: 'close' });
  res.end(text);
}

/** How `serveNode` reads and answers, beyond the request. */
export interface ServeOptions {
  /** Largest request body in bytes. */
  limit: number;
  /** The streams being served, so that a stopping server can end them. */
  streams: Set<AbortController>;
  /** Told of a body refused for its size. */
  onTooLarge: () => void;
  /** Told of a body refused because the budget is spent. */
  onBusy?: () => void;
  /** The bytes of bodies being read at once (default: the process's). */
  budget?: ByteBudget;
  /**
   * Whether the request's body is worth reading: false for a request the
   * app will refuse from its headers alone (no such route, no valid token,
   * a role the route does not take), which is then answered unread, so no
   * caller without a token can hold any of the budget.
   */
  mayRead?: (req: IncomingMessage) => boolean;
  /** How long an answer may wait for its client to read (default SEND_TIMEOUT_MS). */
  sendTimeoutMs?: number;
}

/** Reads the body (stopping at the limit), answers, writes the answer; a streamed answer runs until it ends, the client leaves or `streams` are aborted. */
export async function serveNode(fetch: (request: HttpRequest) => Promise<HttpAnswer>, req: IncomingMessage, res: ServerResponse, o: ServeOptions): Promise<void> {
  const declared = Number(req.headers['content-length']);
  const budget = o.budget ?? PROCESS_BODY_BUDGET;
  let body: Buffer | undefined;
  let unread = false;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    if (o.mayRead && !o.mayRead(req)) {
      unread = true;
    } else {
      const read = declared > o.limit ? 'too_large' : await readBody(req, o.limit, budget);
      if (read === 'aborted') return void res.destroy();
      if (read === 'too_large') {
        o.onTooLarge();
        return refuseBody(res, new HttpError(HttpCode.BodyTooLarge, `the body is larger than ${o.limit} bytes`));
      }
      if (read === 'busy') {
        o.onBusy?.();
        return refuseBody(res, busyError(budget));
      }
      body = read;
    }
  }
  const answer = await fetch({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, ...(body ? { body } : {}) });
  if (answer.stream) return streamAnswer(answer, res, o.streams, o.sendTimeoutMs ?? SEND_TIMEOUT_MS);
  // A text body goes as it is: node:http then sends it with the headers in one write.
  const length = typeof answer.body === 'string' ? Buffer.byteLength(answer.body) : answer.body.length;
  res.writeHead(answer.status, { ...answer.headers, 'content-length': String(length), ...(unread ? { connection: 'close' } : {}) });
  res.end(answer.body);
}

/**
 * Bytes a stream may have waiting unsent before the next write, at most:
 * a stream that writes whole states (the review queue) waits while its
 * client catches up, so only a stream that keeps writing to a client that
 * reads nothing comes near it, and is closed rather than buffered without
 * end. The send timeout closes a stalled one sooner.
 */
export const STREAM_UNSENT_BYTES = 64 * 1024 * 1024;

async function streamAnswer(answer: HttpAnswer, res: ServerResponse, streams: Set<AbortController>, sendTimeoutMs: number): Promise<void> {
  const stop = new AbortController();
  streams.add(stop);
  // Closing drops what is waiting with the connection; the client's EventSource opens the stream again.
  const drop = (): void => {
    stop.abort();
    res.destroy();
  };
  // The client has this long to take something once the socket is full.
  const wrote = sendTimeout(res, sendTimeoutMs, drop);
  res.on('close', () => stop.abort());
  // The connection closes with the stream, so a stopping server does not wait for it to go idle.
  res.writeHead(answer.status, { ...answer.headers, connection: 'close' });
  res.flushHeaders();
  const write = (chunk: string): void => {
    if (stop.signal.aborted) return;
    if (res.writableLength > STREAM_UNSENT_BYTES) return drop();
    wrote(res.write(chunk));
  };
  try {
    await (answer.stream as NonNullable<HttpAnswer['stream']>).run(Object.assign(write, { ready: () => !stop.signal.aborted && !res.writableNeedDrain }), stop.signal);
  } finally {
    streams.delete(stop);
    res.end();
  }
}
