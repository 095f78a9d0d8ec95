/**
 * A small router: exact paths in a map, `:param` segments and one trailing
 * `*` (the rest of the path) for the few routes that need them. Route
 * modules register their routes with `add`; the app asks `match`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Principal, Role } from './auth.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** What a handler receives. */
export interface RouteContext<B = unknown> {
  method: Method;
  /** The path without the query. */
  path: string;
  /** `:name` segments, and `*` for the rest of the path. */
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The caller; on open routes only when a valid token was sent (undefined otherwise). */
  principal: Principal | undefined;
  /** The parsed body: validated against `schema` when the route names one; undefined when none was sent. */
  body: B;
}

/** What a handler answers. */
export interface Reply {
  /** Default 200. */
  status?: number;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is (e.g. an executor's answer, or Prometheus text). */
  raw?: { bytes: Uint8Array | string; contentType: string };
  /** Sent as it is written, until `run` returns or the client goes away (server-sent events). */
  stream?: ReplyStream;
  headers?: Record<string, string>;
}

/** Writes one chunk of a streamed answer. */
export interface StreamWrite {
  (chunk: string): void;
  /**
   * Whether the client has taken everything written so far. A stream of
   * whole states (the review queue) writes the newest state once it has,
   * instead of queueing every one behind a client that is behind.
   */
  ready(): boolean;
}

/** A streamed answer: `run` writes chunks until it returns or `signal` aborts (the client left, or the server stops). */
export interface ReplyStream {
  contentType: string;
  run(write: StreamWrite, signal: AbortSignal): Promise<void>;
}

export interface Route {
  method: Method;
  /** `/v1/say`, `/v1/org/crews/:id`, `/v1/data/*`. */
  path: string;
  /** The roles that may call it, or `open` (no token needed). */
  roles: readonly Role[] | 'open';
  /**
   * The request body: `none` (ignored), a schema name from `schemas/http/`
   * (required, JSON, validated), `json` (optional, any JSON, checked by the handler),
   * or `text` (the body as it came, any content type, up to the body limit: the handler reads it).
   */
  body: 'none' | 'json' | 'text' | { schema: string };
  /** `opa`: errors in the OPA server's shape `{ code, message }` (the data API). Default `plangate`. */
  errors?: 'plangate' | 'opa';
  handle(ctx: RouteContext): Promise<Reply> | Reply;
}

/** One route module registers the routes of one area. */
export type RouteModule<D> = (router: Router, deps: D) => void;

interface Pattern {
  segments: string[];
  rest: boolean;
  routes: Map<Method, Route>;
}

export type Match =
  | { kind: 'route'; route: Route; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: Method[] }
  | { kind: 'not_found' };

export class Router {
  private readonly exact = new Map<string, Map<Method, Route>>();
  private readonly patterns: Pattern[] = [];

  /**
   * Adds a route; throws on a duplicate.
   *
   * @example
   * router.add({ method: 'GET', path: '/health', roles: 'open', body: 'none', handle: () => ({ body: { status: 'ok' } }) });
   */
  add(route: Route): this {
    if (!route.path.startsWith('/')) throw new TypeError(`route path must start with "/": ${route.path}`);
    const dynamic = route.path.includes('/:') || route.path.endsWith('/*');
    let table: Map<Method, Route>;
    if (!dynamic) {
      table = this.exact.get(route.path) ?? new Map();
      this.exact.set(route.path, table);
    } else {
      const segments = route.path.split('/').slice(1);
      const rest = segments[segments.length - 1] === '*';
      if (rest) segments.pop();
      const key = `${segments.join('/')}${rest ? '/*' : ''}`;
      let pattern = this.patterns.find((p) => `${p.segments.join('/')}${p.rest ? '/*' : ''}` === key);
      if (!pattern) {
        pattern = { segments, rest, routes: new Map() };
        this.patterns.push(pattern);
      }
      table = pattern.routes;
    }
    if (table.has(route.method)) throw new TypeError(`duplicate route ${route.method} ${route.path}`);
    table.set(route.method, route);
    return this;
  }

  /** The route for a method and a path (without query). */
  match(method: string, path: string): Match {
    const exact = this.exact.get(path);
    if (exact) return pick(exact, method, {});
    const parts = path.split('/').slice(1);
    for (const p of this.patterns) {
      const params = matchPattern(p, parts);
      if (params) return pick(p.routes, method, params);
    }
    return { kind: 'not_found' };
  }

  /** Every route, for documentation and tests. */
  routes(): Route[] {
    return [...[...this.exact.values()].flatMap((t) => [...t.values()]), ...this.patterns.flatMap((p) => [...p.routes.values()])];
  }
}

function pick(table: Map<Method, Route>, method: string, params: Record<string, string>): Match {
  const route = table.get(method as Method);
  if (route) return { kind: 'route', route, params };
  return { kind: 'method_not_allowed', allow: [...table.keys()] };
}

function matchPattern(p: Pattern, parts: string[]): Record<string, string> | undefined {
  if (p.rest ? parts.length <= p.segments.length : parts.length !== p.segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.segments.length; i++) {
    const seg = p.segments[i] as string;
    const part = parts[i] as string;
    if (seg.startsWith(':')) {
      if (part === '') return undefined;
      let value: string;
      try {
        value = decodeURIComponent(part);
      } catch {
        return undefined;
      }
      params[seg.slice(1)] = value;
    } else if (seg !== part) {
      return undefined;
    }
  }
  if (p.rest) params['*'] = parts.slice(p.segments.length).join('/');
  return params;
}
