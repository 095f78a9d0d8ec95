/**
 * Where OPA-format decision events go: a file (one JSON event a line, as
 * OPA's console logger prints them) or an HTTP endpoint, which receives
 * batches as OPA's decision-log plugin sends them — `POST` of a gzipped JSON
 * array, `Content-Encoding: gzip`. Sending never slows a decision: events are
 * queued (at most {@link MAX_QUEUED_EVENTS}, the oldest dropped and counted
 * past that) and sent every {@link UPLOAD_INTERVAL_MS} or when a batch is full;
 * a failed upload is retried with the next one.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { OpaDecisionEvent } from './opa-log.js';

/** Events held for upload at most; past it the oldest are dropped (and counted). */
export const MAX_QUEUED_EVENTS = 10_000;
/** How often queued events are sent. */
export const UPLOAD_INTERVAL_MS = 2_000;
/** Events in one upload at most. */
export const MAX_BATCH_EVENTS = 500;

export interface OpaLogSink {
  /** Where events go: a file path or a URL. */
  readonly target: string;
  record(event: OpaDecisionEvent): void;
  /** Events dropped because the endpoint could not keep up (HTTP only). */
  dropped(): number;
  /** Sends or writes what is queued, then stops. */
  close(): Promise<void>;
}

/**
 * A sink for `target`: an `http://` or `https://` URL, or a file path.
 *
 * @example
 * const sink = openOpaLogSink('https://logs.internal/v1/logs', { token: process.env.LOGS_TOKEN });
 */
export function openOpaLogSink(target: string, options: { token?: string; onError?: (error: unknown) => void } = {}): OpaLogSink {
  return /^https?:\/\//i.test(target) ? httpSink(new URL(target), options) : fileSink(target);
}

function fileSink(path: string): OpaLogSink {
  const file = resolve(path);
  mkdirSync(dirname(file), { recursive: true });
  let fd: number | null = openSync(file, 'a');
  return {
    target: file,
    record(event) {
      if (fd === null) throw new Error('the OPA decision log is closed');
      // One write(2) on an O_APPEND descriptor: a line is whole or absent.
      writeSync(fd, `${JSON.stringify(event)}\n`);
    },
    dropped: () => 0,
    async close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}

function httpSink(url: URL, options: { token?: string; onError?: (error: unknown) => void }): OpaLogSink {
  const queue: OpaDecisionEvent[] = [];
  let dropped = 0;
  let sending: Promise<void> | undefined;
  let closed = false;
  const onError = options.onError ?? ((error: unknown) => process.stderr.write(`plangate: the OPA decision log upload to ${url.origin} failed, retried with the next: ${String(error)}\n`));

  async function sendBatch(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.slice(0, MAX_BATCH_EVENTS);
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        },
        body: gzipSync(JSON.stringify(batch)),
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer().catch(() => undefined);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      queue.splice(0, batch.length);
    }
  }

  function flush(): Promise<void> {
    sending ??= sendBatch().catch(onError).finally(() => { sending = undefined; });
    return sending;
  }

  const timer = setInterval(() => void flush(), UPLOAD_INTERVAL_MS);
  timer.unref();
  return {
    target: url.toString(),
    record(event) {
      if (closed) throw new Error('the OPA decision log is closed');
      queue.push(event);
      if (queue.length > MAX_QUEUED_EVENTS) dropped += queue.splice(0, queue.length - MAX_QUEUED_EVENTS).length;
      if (queue.length >= MAX_BATCH_EVENTS) void flush();
    },
    dropped: () => dropped,
    async close() {
      closed = true;
      clearInterval(timer);
      await sending;
      await flush();
    },
  };
}
