/**
 * The fetch the gateway's Streamable HTTP upstream links use: `node:http`
 * (or `node:https`) on a keep-alive agent, answered as a web `Response` for
 * the SDK's client transport. Every `tools/call` through the gateway pays
 * for one upstream request, and with this the gateway spends about a sixth
 * less CPU per forwarded call than with Node's fetch (see docs/performance-history.md).
 * Each request gets an abort listener of its own on the caller's signal,
 * removed when the request is done: the SDK passes one connection-wide
 * signal to every request, and a listener per request left to garbage
 * collection piles up on it. A request that fails is not sent
 * again (a `tools/call` may have reached the upstream): the link reports the
 * upstream down and reconnects. Free connections are dropped before the
 * server's `Keep-Alive: timeout` hint runs out (Node's agent reads it).
 */
import { request as httpRequest, Agent as HttpAgent, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { getMaxListeners, setMaxListeners } from 'node:events';
import { Readable } from 'node:stream';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { measureFor, MessageTooLargeError, type MessageBound } from './message-bound.js';

/** Connections kept open per upstream host, beyond the ones in use. */
const IDLE_SOCKETS = 64;

const agents = {
  http: new HttpAgent({ keepAlive: true, maxFreeSockets: IDLE_SOCKETS }),
  https: new HttpsAgent({ keepAlive: true, maxFreeSockets: IDLE_SOCKETS }),
};

/** Redirects followed with the same method and body (as fetch does), within the same origin. */
const REDIRECTS = new Set([307, 308]);
const MAX_REDIRECTS = 5;

/** Statuses whose answer has no body. */
const NO_BODY = new Set([101, 204, 205, 304]);

/** Node's default limit of listeners on one signal before it warns of a leak. */
const LISTENER_WARNING = 10;

/**
 * Requests in flight on each caller's signal. Every one of them has a
 * listener there until it is done, so the signal's listener limit follows
 * their number: many concurrent calls in one session are not a leak.
 */
const inflight = new WeakMap<AbortSignal, number>();

function hold(signal: AbortSignal): void {
  const n = (inflight.get(signal) ?? 0) + 1;
  inflight.set(signal, n);
  if (n >= LISTENER_WARNING && limitOf(signal) < n + LISTENER_WARNING) setMaxListeners(n + LISTENER_WARNING, signal);
}

/**
 * The signal's listener limit, so that it is only ever raised: a higher one
 * set elsewhere stays, and so does none at all (0, for which Node 20's
 * `getMaxListeners` throws instead of answering).
 */
function limitOf(signal: AbortSignal): number {
  try {
    const limit = getMaxListeners(signal);
    return limit === 0 ? Infinity : limit;
  } catch {
    return Infinity;
  }
}

function letGo(signal: AbortSignal): void {
  inflight.set(signal, Math.max(0, (inflight.get(signal) ?? 1) - 1));
}

function headersOf(init: RequestInit | undefined): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  new Headers(init?.headers).forEach((value, key) => {
    out[key] = value;
  });
  return out;
}

function responseHeaders(res: IncomingMessage): Headers {
  const h = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) h.append(raw[i] as string, raw[i + 1] as string);
  return h;
}

function bodyOf(init: RequestInit | undefined): string | Uint8Array | undefined {
  const b = init?.body;
  if (b === undefined || b === null) return undefined;
  if (typeof b === 'string' || b instanceof Uint8Array) return b;
  throw new TypeError('this fetch sends string or byte bodies only');
}

/**
 * A `fetch` for the SDK's `StreamableHTTPClientTransport` over `node:http`.
 * A failed connection rejects with a `TypeError('fetch failed')` whose
 * `cause` is the socket error, as Node's fetch does; a 307 or 308 within
 * the same origin is followed (up to 5), any other answer is returned.
 * With a `bound`, a body is measured as it arrives (see message-bound.ts)
 * and ends in a `MessageTooLargeError` once a message passes it.
 *
 * @example
 * new StreamableHTTPClientTransport(new URL('http://127.0.0.1:3001/mcp'), { fetch: createNodeFetch() })
 */
export function createNodeFetch(bound?: MessageBound): FetchLike {
  return async (input, init) => {
    let url = typeof input === 'string' ? new URL(input) : input;
    for (let hop = 0; ; hop++) {
      const res = await send(url, init, bound);
      const location = REDIRECTS.has(res.status) ? res.headers.get('location') : null;
      if (location === null || hop === MAX_REDIRECTS) return res;
      const next = new URL(location, url);
      // Only within the same origin: the request's headers (a bearer token) go along.
      if (next.origin !== url.origin) return res;
      await res.body?.cancel();
      url = next;
    }
  };
}

/** {@link createNodeFetch} without a bound. */
export const nodeFetch: FetchLike = createNodeFetch();

function send(url: URL, init: RequestInit | undefined, bound: MessageBound | undefined): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const secure = url.protocol === 'https:';
    if (!secure && url.protocol !== 'http:') return reject(new TypeError(`fetch failed: ${url.protocol} is not http: or https:`));
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) return reject(signal.reason);
    let body: string | Uint8Array | undefined;
    try {
      body = bodyOf(init);
    } catch (error) {
      return reject(error);
    }
    const req = (secure ? httpsRequest : httpRequest)(url, { method: init?.method ?? 'GET', headers: headersOf(init), agent: secure ? agents.https : agents.http });
    req.setNoDelay(true);
    let res: IncomingMessage | undefined;
    const onAbort = () => {
      const reason = signal?.reason ?? new DOMException('This operation was aborted', 'AbortError');
      req.destroy(reason);
      res?.destroy(reason);
      reject(reason);
    };
    let held = signal !== undefined;
    const release = () => {
      if (!held || !signal) return;
      held = false;
      signal.removeEventListener('abort', onAbort);
      letGo(signal);
    };
    if (signal) {
      hold(signal);
      signal.addEventListener('abort', onAbort, { once: true });
    }
    req.once('error', (error) => {
      release();
      reject(new TypeError('fetch failed', { cause: error }));
    });
    req.once('response', (answer) => {
      res = answer;
      answer.once('close', release);
      const status = answer.statusCode ?? 502;
      const hasBody = !NO_BODY.has(status) && init?.method !== 'HEAD';
      if (!hasBody) answer.resume();
      else if (bound) measure(answer, bound);
      resolve(new Response(hasBody ? Readable.toWeb(answer) as ReadableStream<Uint8Array> : null, {
        status,
        statusText: answer.statusMessage ?? '',
        headers: responseHeaders(answer),
      }));
    });
    req.end(body);
  });
}

/** Ends `answer` with a `MessageTooLargeError` once a message in it passes the bound (the link is told first). */
function measure(answer: IncomingMessage, bound: MessageBound): void {
  const size = measureFor(answer.headers['content-type'] ?? null);
  const onData = (chunk: Buffer) => {
    if (size(chunk) <= bound.limit) return;
    answer.off('data', onData);
    const error = new MessageTooLargeError(bound.limit);
    bound.onExceeded(error);
    answer.destroy(error);
  };
  answer.on('data', onData);
}
