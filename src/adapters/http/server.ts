/**
 * Listening, and stopping gracefully: stop accepting, let the requests in
 * flight finish, then close what is left.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from './limits.js';
import { BASE_HEADERS, JSON_TYPE } from './listener.js';
import type { HttpApp } from './app.js';
import { errorAnswer } from './errors.js';
import { allowedFor, refusal, type Allowed, type AllowedOptions } from './rebinding.js';

export interface ListenOptions extends AllowedOptions {
  /** Default 127.0.0.1. Any other than a loopback address needs `allowedHosts` (see rebinding.ts). */
  host?: string;
  /** Default 8181 (OPA's port, so a gateway set up for OPA finds plangate there); 0 picks a free port. */
  port?: number;
}

export interface RunningServer {
  server: http.Server;
  host: string;
  port: number;
  /** `http://host:port`. */
  url: string;
  /**
   * Stops accepting connections, waits for the requests in flight (up to
   * `graceMs`, default 10 s), then closes every connection. Idempotent.
   */
  close(graceMs?: number): Promise<void>;
}

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8181;

/**
 * Serves the app on a node:http server.
 *
 * @example
 * const running = await listen(app, { port: 0 });
 * await fetch(`${running.url}/health`);
 * await running.close();
 */
export function listen(app: HttpApp, options: ListenOptions = {}): Promise<RunningServer> {
  const host = options.host ?? DEFAULT_HOST;
  // A non-loopback address without allowed hosts is refused before anything is bound.
  let allowed: Allowed = allowedFor(host, options.port ?? DEFAULT_PORT, options);
  const server = http.createServer({ requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS, keepAliveTimeout: 5_000 }, (req, res) => {
    const refused = refusal(allowed, req.headers);
    if (!refused) return app.listener(req, res);
    // Before the token and the body: nothing of the request is read.
    const e = errorAnswer(refused);
    app.metrics.observeRequest('unmatched', (req.method ?? 'GET').toUpperCase(), e.status);
    res.writeHead(e.status, { ...BASE_HEADERS, 'content-type': JSON_TYPE, connection: 'close' }).end(JSON.stringify(e.body));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_PORT, host, () => {
      server.off('error', reject);
      const port = (server.address() as AddressInfo).port;
      allowed = allowedFor(host, port, options);
      let closing: Promise<void> | undefined;
      resolve({
        server,
        host,
        port,
        url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
        close(graceMs = 10_000) {
          closing ??= new Promise<void>((done) => {
            const timer = setTimeout(() => server.closeAllConnections(), graceMs);
            timer.unref();
            app.closeStreams();
            server.close(() => {
              clearTimeout(timer);
              done();
            });
            server.closeIdleConnections();
          });
          return closing;
        },
      });
    });
  });
}
