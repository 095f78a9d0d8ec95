/**
 * DNS rebinding protection for every listener (`plangate serve`,
 * `plangate mcp --listen`, `--status-listen`): the `Host` of a request must
 * be one of the allowed hosts and its `Origin`, when it has one, one of the
 * allowed origins; anything else is refused 403 before its token is looked
 * at or its body read. The MCP specification (2025-11-25, "Transports",
 * security warning) requires a Streamable HTTP server to validate `Origin`;
 * the check follows the SDK's own (`StreamableHTTPServerTransport`'s
 * `allowedHosts`/`allowedOrigins`: exact `host:port` and origin strings, a
 * missing `Host` refused, a missing `Origin` let through for clients that
 * are not browsers; and, as its `hostHeaderValidation` middleware does, a
 * host named without a port allowed on any port).
 *
 * Bound to a loopback address, the defaults are the loopback names with the
 * bound port; bound to any other address there is no safe default, so the
 * listener refuses to start until the operator names them.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ErrorCode, PlangateError } from '../../core/errors.js';
import { HttpCode, HttpError } from './errors.js';

import { ALLOWED_HOSTS_ENV, ALLOWED_ORIGINS_ENV } from './token-env.js';

export { ALLOWED_HOSTS_ENV, ALLOWED_ORIGINS_ENV };

/** What the operator configured; either list may be left out (loopback defaults, or no browser origin at all). */
export interface AllowedOptions {
  /** `Host` header values as clients send them: `name:port`, or `name` for that name on any port. */
  allowedHosts?: readonly string[];
  /** `Origin` header values: `scheme://name[:port]`. */
  allowedOrigins?: readonly string[];
}

/** The lists in force for one bound listener. */
export interface Allowed {
  hosts: readonly string[];
  origins: readonly string[];
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** Whether a bind address only accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * Splits a comma- or space-separated list from an option or the environment.
 *
 * @example
 * splitList('a.example.com, b.example.com:8443') // ['a.example.com', 'b.example.com:8443']
 */
export function splitList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value.split(/[\s,]+/).filter(Boolean);
}

/**
 * The options from a command's `--allowed-hosts` / `--allowed-origins`
 * (which commander fills from `PLANGATE_ALLOWED_HOSTS` / `PLANGATE_ALLOWED_ORIGINS`).
 *
 * @example
 * allowedOptions({ allowedHosts: 'plangate.example.com' }) // { allowedHosts: ['plangate.example.com'] }
 */
export function allowedOptions(opts: { allowedHosts?: string; allowedOrigins?: string }): AllowedOptions {
  const hosts = splitList(opts.allowedHosts);
  const origins = splitList(opts.allowedOrigins);
  return { ...(hosts ? { allowedHosts: hosts } : {}), ...(origins ? { allowedOrigins: origins } : {}) };
}

function checkEntries(what: string, entries: readonly string[], valid: (e: string) => boolean): void {
  const bad = entries.filter((e) => !valid(e));
  if (bad.length) throw new PlangateError(ErrorCode.InvalidInput, `allowed ${what}: ${bad.map((b) => JSON.stringify(b)).join(', ')} ${bad.length > 1 ? 'are' : 'is'} not a valid ${what === 'hosts' ? 'host[:port]' : 'origin (scheme://host[:port])'}`);
}

function validHost(e: string): boolean {
  if (/[/?#@\s]/.test(e)) return false;
  try {
    return new URL(`http://${e}`).hostname !== '';
  } catch {
    return false;
  }
}

function validOrigin(e: string): boolean {
  try {
    return new URL(e).origin === e.toLowerCase();
  } catch {
    return false;
  }
}

/**
 * The lists for a listener bound to `bindHost:port`. Throws `invalid_input`
 * for a non-loopback address without allowed hosts (no safe default), or
 * for an entry that is not a host or an origin.
 *
 * @example
 * allowedFor('127.0.0.1', 8181, {}).hosts // ['localhost:8181', '127.0.0.1:8181', '[::1]:8181']
 * allowedFor('0.0.0.0', 8181, {}) // throws: give --allowed-hosts or PLANGATE_ALLOWED_HOSTS
 */
export function allowedFor(bindHost: string, port: number, options: AllowedOptions): Allowed {
  if (options.allowedHosts) checkEntries('hosts', options.allowedHosts, validHost);
  if (options.allowedOrigins) checkEntries('origins', options.allowedOrigins, validOrigin);
  const loopback = isLoopback(bindHost);
  if (!loopback && !options.allowedHosts?.length) {
    throw new PlangateError(
      ErrorCode.InvalidInput,
      `listening on ${bindHost}, which is not a loopback address, needs the host names clients reach it by: give --allowed-hosts or ${ALLOWED_HOSTS_ENV} (and --allowed-origins or ${ALLOWED_ORIGINS_ENV} for browsers), so that a DNS-rebound page cannot call it`,
    );
  }
  const hosts = options.allowedHosts?.length ? options.allowedHosts : LOOPBACK_NAMES.map((n) => `${n}:${port}`);
  const origins = options.allowedOrigins ?? (loopback ? LOOPBACK_NAMES.map((n) => `http://${n}:${port}`) : []);
  return { hosts: hosts.map((h) => h.toLowerCase()), origins: origins.map((o) => o.toLowerCase()) };
}

/** A Host value without its port: `[::1]:8181` → `[::1]`, `a.example.com:80` → `a.example.com`. */
function withoutPort(host: string): string {
  return host.replace(/:\d*$/, '');
}

/**
 * The allowed hosts as the SDK's transport takes them (exact `host:port`):
 * a host named without a port, with the bound one.
 *
 * @example
 * sdkHosts({ hosts: ['gw.example.com', 'localhost:8181'], origins: [] }, 8181) // ['gw.example.com', 'gw.example.com:8181', 'localhost:8181']
 */
export function sdkHosts(allowed: Allowed, port: number): string[] {
  return allowed.hosts.flatMap((h) => (/:\d+$/.test(h) ? [h] : [h, `${h}:${port}`]));
}

/**
 * The refusal for a request whose `Host` or `Origin` is not allowed, or
 * undefined when it may go on.
 *
 * @example
 * refusal(allowed, { host: 'evil.example.com' }) // HttpError host_not_allowed (403)
 */
export function refusal(allowed: Allowed, headers: IncomingHttpHeaders): HttpError | undefined {
  const host = headers.host?.toLowerCase();
  if (!host || !(allowed.hosts.includes(host) || allowed.hosts.includes(withoutPort(host)))) {
    return new HttpError(HttpCode.HostNotAllowed, host ? `Host ${JSON.stringify(headers.host)} is not one this server answers to (see allowed hosts)` : 'the request has no Host header');
  }
  const origin = headers.origin;
  if (origin !== undefined && !allowed.origins.includes(origin.toLowerCase())) {
    return new HttpError(HttpCode.OriginNotAllowed, `Origin ${JSON.stringify(origin)} is not allowed (see allowed origins)`);
  }
  return undefined;
}
