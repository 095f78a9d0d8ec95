/**
 * The node:http side of the app: read a body up to the limit (413 as soon as
 * it is passed, without reading the rest), answer in-process, write the answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { busyError, MIN_UPLOAD_RATE, ownShareError, readBody, SEND_TIMEOUT_MS, sendTimeout, tooSlowError, type UploadRate } from './limits.js';
import { errorAnswer, HttpCode, HttpError } from './errors.js';
import { FairShares, shareOf } from './shares.js';
import type { Principal } from './auth.js';
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
  /** Told of a request refused because its share or the pool is spent, or its body came too slowly. */
  onRefused?: (code: HttpCode) => void;
  /** The fair shares of bodies being read and requests in flight (shares.ts); default: one for every `serveNode` without its own. */
  shares?: FairShares;
  /**
   * Verifies the request's token from its headers before anything is read:
   * `read: false` for a request the app will refuse from its headers alone
   * (no such route, no valid token, a role the route does not take), which
   * is then answered unread, so no caller without a token can hold any of
   * the budget; otherwise the verified principal (none on an open route)
   * whose share the request draws on.
   */
  admit?: (req: IncomingMessage) => { read: boolean; principal?: Principal | undefined };
  /** The slowest a body may arrive (default MIN_UPLOAD_RATE). */
  uploadRate?: UploadRate;
  /** How long an answer may wait for its client to read (default SEND_TIMEOUT_MS). */
  sendTimeoutMs?: number;
}

let defaultShares: FairShares | undefined;

/** Reads the body (stopping at the limit), answers, writes the answer; a streamed answer runs until it ends, the client leaves or `streams` are aborted. */
export async function serveNode(fetch: (request: HttpRequest) => Promise<HttpAnswer>, req: IncomingMessage, res: ServerResponse, o: ServeOptions): Promise<void> {
  const declared = Number(req.headers['content-length']);
  const admitted = o.admit ? o.admit(req) : { read: true };
  const refuse = (error: HttpError): void => {
    o.onRefused?.(error.code as HttpCode);
    refuseBody(res, error);
  };
  // Answered from its headers alone: holds no share.
  if (!admitted.read) return void (await answer(fetch, req, res, o, undefined, true));
  const ticket = (o.shares ?? (defaultShares ??= new FairShares())).enter(shareOf(admitted.principal));
  if (ticket === 'too_many') return refuse(ownShareError('its most requests in flight'));
  res.once('close', () => ticket.leave());
  let body: Buffer | undefined;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const read = declared > o.limit ? 'too_large' : await readBody(req, o.limit, ticket.budget, o.uploadRate ?? MIN_UPLOAD_RATE);
    if (read === 'aborted') return void res.destroy();
    if (read === 'too_large') {
      o.onTooLarge();
      return refuseBody(res, new HttpError(HttpCode.BodyTooLarge, `the body is larger than ${o.limit} bytes`));
    }
    if (read === 'too_slow') return refuse(tooSlowError(o.uploadRate ?? MIN_UPLOAD_RATE));
    if (read === 'busy') return refuse(ticket.refusal() === 'own_share' ? ownShareError('its share of request bodies being read') : busyError(ticket.budget));
    body = read;
  }
  await answer(fetch, req, res, o, body, false);
}

async function answer(fetch: (request: HttpRequest) => Promise<HttpAnswer>, req: IncomingMessage, res: ServerResponse, o: ServeOptions, body: Buffer | undefined, unread: boolean): Promise<void> {
  const reply = await fetch({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, ...(body ? { body } : {}) });
  if (reply.stream) return streamAnswer(reply, res, o.streams, o.sendTimeoutMs ?? SEND_TIMEOUT_MS);
  // A text body goes as it is: node:http then sends it with the headers in one write.
  const length = typeof reply.body === 'string' ? Buffer.byteLength(reply.body) : reply.body.length;
  res.writeHead(reply.status, { ...reply.headers, 'content-length': String(length), ...(unread && req.method !== 'GET' && req.method !== 'HEAD' ? { connection: 'close' } : {}) });
  res.end(reply.body);
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
