/**
 * The HTTP app: an option-checked factory that builds the routes without
 * listening. `fetch` answers one request in-process (tests, embedding);
 * `listener` plugs it into a node:http server, reading bodies with a size cap.
 *
 * Every request goes: route → token (401/403) → body (413, 415, 400) →
 * schema (400 naming each field) → handler (the checks are in request.ts).
 * A malformed body never reaches the gate.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AuditReader } from '../../audit/port.js';
import { PlangateError } from '../../core/errors.js';
import type { Call, Decision } from '../../core/types.js';
import type { RuntimeStatus } from '../../main/status.js';
import type { DecideOptions } from '../../gate/gate.js';
import type { UploadRate } from './limits.js';
import { FairShares } from './shares.js';
import type { Principal, TokenSet } from './auth.js';
import type { HttpDeps, HttpGate, HttpOrg, PolicyEvaluator, RulesAccess } from './deps.js';
import { errorAnswer, HttpCode, HttpError, logLine, STATUS } from './errors.js';
import type { Executors } from './executors.js';
import { createMetrics, type Metrics } from './metrics.js';
import { Router, type Method, type Reply, type ReplyStream, type Route, type RouteModule } from './router.js';
import { registerAuditRoutes } from './routes/audit.js';
import { registerApprovalRoutes } from './routes/approvals.js';
import { registerCallRoutes } from './routes/calls.js';
import { registerHoldRoutes } from './routes/holds.js';
import { registerOpaRoutes } from './routes/opa.js';
import { registerOpsRoutes } from './routes/ops.js';
import { registerOrgRoutes } from './routes/org.js';
import { registerReviewRoutes } from './routes/review.js';
import { registerRulesRoutes } from './routes/rules.js';
import { registerRulesViewRoutes } from './routes/rules-view.js';
import { registerSayRoutes } from './routes/say.js';
import { registerRunRoutes } from './routes/runs.js';
import { registerHookRoutes } from './routes/hooks.js';
import { registerWhoamiRoutes } from './routes/whoami.js';
import { registerChangedToolRoutes } from './routes/changed-tools.js';
import { BASE_HEADERS, JSON_TYPE, serveNode } from './listener.js';
import { withCallerTrace } from '../../main/telemetry/context.js';
import { isOAuth, registerMetadataRoutes } from './oauth.js';
import { authorize, parseBody } from './request.js';

/** Largest request body by default: 128 KiB (a 64 KiB message body, JSON-escaped, fits). */
export const DEFAULT_BODY_LIMIT = 128 * 1024;

/** The route modules every app has, in order. */
export const DEFAULT_ROUTES: ReadonlyArray<RouteModule<HttpDeps>> = [
  registerOpsRoutes,
  registerCallRoutes,
  registerSayRoutes,
  registerHoldRoutes,
  registerOrgRoutes,
  registerRulesRoutes,
  registerOpaRoutes,
  registerAuditRoutes,
  registerReviewRoutes,
  registerRulesViewRoutes,
  registerWhoamiRoutes,
  registerRunRoutes,
  registerApprovalRoutes,
  registerHookRoutes,
  registerChangedToolRoutes,
];

export interface HttpAppOptions {
  gate: HttpGate;
  org: HttpOrg;
  tokens: TokenSet;
  rules: RulesAccess;
  /** The policy in force for the OPA-compatible data API; undefined while there is none. */
  policy: () => PolicyEvaluator | undefined;
  /** Where `POST /mcp/call` sends allowed calls; without it every allowed call is a 404 `no_executor`. */
  executors?: Executors;
  /** The runtime status for /health and /metrics; without it plangate reports ok with the rules in force. */
  status?: () => RuntimeStatus;
  /** Largest request body in bytes; default {@link DEFAULT_BODY_LIMIT}. */
  bodyLimit?: number;
  /**
   * Each token's share of the bodies being read and the requests in flight
   * (shares.ts); by default one per app, its callers' pool the process's.
   */
  shares?: FairShares;
  /** The slowest a request body may arrive (default MIN_UPLOAD_RATE in limits.ts). */
  uploadRate?: UploadRate;
  /** More route modules (e.g. holds), registered after the default ones. */
  routes?: ReadonlyArray<RouteModule<HttpDeps>>;
  /** Metrics to count into; by default the app makes its own registry. */
  metrics?: Metrics;
  /** Reads the audit trail back for `GET /v1/audit`; without it that route answers 503 `audit_unreadable`. */
  audit?: AuditReader;
  /** The seat's reviewer channel as the rules name it, for `POST /v1/hooks/:host` (without it, the built-in name). */
  channelFor?: (seat: string) => Promise<string>;
  /**
   * Called for an unexpected error (an answer 500), and for a store error
   * whose message the caller was not shown (see `STORE_ERROR_SHOWN`). Never
   * given headers or tokens. Default: a line on stderr ({@link logLine}).
   */
  onError?: (error: unknown, where: { method: string; route: string }) => void;
}

/** One request, in-process. */
export interface HttpRequest {
  method: string;
  /** Path and query, e.g. `/v1/rules/plan-required?as=0xWORKER`. */
  url: string;
  headers?: IncomingHttpHeaders;
  body?: Uint8Array | string;
}

/** One answer, in-process. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array | string;
  /** A streamed answer (server-sent events): `body` is empty and the listener runs this. */
  stream?: ReplyStream;
}

/** What `request` returns: the answer with its body as text and as JSON. */
export interface TestAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  // The body's shape depends on the route; tests assert on it.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export interface HttpApp {
  /** Answers one request; never throws. */
  fetch(request: HttpRequest): Promise<HttpAnswer>;
  /**
   * A convenience over `fetch` for tests and scripts.
   *
   * @example
   * const r = await app.request('POST', '/v1/decide', { token, json: { tool: 'github.merge_pull_request' } });
   * r.status // 200
   */
  request(method: string, url: string, init?: { token?: string; json?: unknown; body?: string | Uint8Array; headers?: IncomingHttpHeaders }): Promise<TestAnswer>;
  /** A node:http request listener. */
  listener(req: IncomingMessage, res: ServerResponse): void;
  readonly metrics: Metrics;
  readonly router: Router;
  readonly bodyLimit: number;
  /** Ends every streamed answer in flight (the server is stopping). */
  closeStreams(): void;
}

/**
 * Builds the app; throws a TypeError for missing or bad options.
 *
 * @example
 * const app = createHttpApp({ ...httpOptionsFrom(pg), tokens });
 * http.createServer(app.listener).listen(8181, '127.0.0.1');
 */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  for (const key of ['gate', 'org', 'tokens', 'rules'] as const) {
    if (!options || typeof options[key] !== 'object' || options[key] === null) throw new TypeError(`createHttpApp: options.${key} is required`);
  }
  if (typeof options.policy !== 'function') throw new TypeError('createHttpApp: options.policy must be a function');
  if (typeof options.tokens.authenticate !== 'function') throw new TypeError('createHttpApp: options.tokens must be a token set (createTokenSet/loadTokens)');
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  if (!Number.isSafeInteger(bodyLimit) || bodyLimit < 1024) throw new TypeError('createHttpApp: options.bodyLimit must be an integer of at least 1024 bytes');
  if (options.status !== undefined && typeof options.status !== 'function') throw new TypeError('createHttpApp: options.status must be a function');

  const status = options.status ?? fallbackStatus(options.rules);
  const metrics = options.metrics ?? createMetrics({ status });
  const onError = options.onError ?? ((error: unknown, where: { method: string; route: string }) => {
    process.stderr.write(`${logLine(error, where)}\n`);
  });
  const deps: HttpDeps = {
    gate: options.gate,
    org: options.org,
    rules: options.rules,
    policy: options.policy,
    executors: options.executors,
    status,
    metrics,
    audit: options.audit,
    ...(options.channelFor ? { channelFor: options.channelFor } : {}),
    onError,
    decide: async (call: Call, decideOptions?: DecideOptions): Promise<Decision> => {
      const t0 = process.hrtime.bigint();
      try {
        const decision = await options.gate.decide(call, decideOptions);
        metrics.observeDecision(decision, Number(process.hrtime.bigint() - t0) / 1e9);
        return decision;
      } catch (error) {
        metrics.observeDecisionError(error instanceof PlangateError ? error.code : HttpCode.Internal, Number(process.hrtime.bigint() - t0) / 1e9);
        throw error;
      }
    },
  };
  const router = new Router();
  for (const register of [...DEFAULT_ROUTES, ...(options.routes ?? [])]) register(router, deps);
  const oauth = isOAuth(options.tokens) ? options.tokens : undefined;
  if (oauth) registerMetadataRoutes(router, oauth);

  /** The principals of requests authorized before their bodies were read, by their headers: a token is checked once a request. */
  const authorized = new WeakMap<IncomingHttpHeaders, Principal | undefined>();

  async function fetch(request: HttpRequest): Promise<HttpAnswer> {
    const method = request.method.toUpperCase();
    const q = request.url.indexOf('?');
    const path = q < 0 ? request.url : request.url.slice(0, q);
    const match = router.match(method, path);
    let route: Route | undefined;
    let principal: Principal | undefined;
    let answer: HttpAnswer;
    try {
      // A JWT is verified before the (synchronous) token check; a static token needs nothing.
      if (oauth) await oauth.prepare(request.headers?.authorization);
      if (match.kind === 'not_found') throw new HttpError(HttpCode.RouteNotFound, `no route ${method} ${path}`);
      if (match.kind === 'method_not_allowed') {
        throw new HttpError(HttpCode.MethodNotAllowed, `${method} is not allowed on ${path} (allowed: ${match.allow.join(', ')})`, [], { allow: match.allow.join(', ') });
      }
      route = match.route;
      const headers = request.headers ?? {};
      // Authorized already before its body was read (mayRead), else now.
      principal = authorized.has(headers) ? authorized.get(headers) : authorize(route, options.tokens, headers.authorization);
      const body = parseBody(route, headers, request.body, bodyLimit);
      const handling = route;
      // The caller's trace context (W3C traceparent), so a decision's span sits in the caller's trace.
      const reply = await withCallerTrace(headers, () => handling.handle({
        method: method as Method,
        path,
        params: match.params,
        query: new URLSearchParams(q < 0 ? '' : request.url.slice(q + 1)),
        headers,
        principal,
        body,
      }));
      answer = render(reply);
    } catch (error) {
      const e = errorAnswer(error, principal?.role === 'operator' ? 'operator' : 'caller');
      if (e.unexpected || e.withheld !== undefined) onError(error, { method, route: route?.path ?? path });
      const body = route?.errors === 'opa'
        ? { code: e.body.error.code, message: e.body.error.message, ...(e.body.error.details ? { errors: e.body.error.details } : {}) }
        : e.body;
      answer = { status: e.status, headers: { ...BASE_HEADERS, 'content-type': JSON_TYPE, ...e.headers }, body: JSON.stringify(body) };
    }
    metrics.observeRequest(route?.path ?? 'unmatched', method, answer.status);
    return answer;
  }

  /** Whether a request is worth reading, and whose share it draws on: its route exists and its token may use it (see ServeOptions.admit). */
  function admit(req: IncomingMessage): { read: boolean; principal?: Principal | undefined } {
    const match = router.match((req.method ?? 'GET').toUpperCase(), (req.url ?? '/').split('?')[0] as string);
    if (match.kind !== 'route') return { read: false };
    try {
      const principal = authorize(match.route, options.tokens, req.headers.authorization);
      authorized.set(req.headers, principal);
      return { read: true, principal };
    } catch {
      return { read: false };
    }
  }
  const shares = options.shares ?? new FairShares();

  const streams = new Set<AbortController>();
  return {
    fetch,
    metrics,
    router,
    bodyLimit,
    closeStreams() {
      for (const s of streams) s.abort();
    },
    async request(method, url, init = {}) {
      const headers: IncomingHttpHeaders = { ...(init.headers ?? {}) };
      if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
      let body = init.body;
      if (init.json !== undefined) {
        body = JSON.stringify(init.json);
        headers['content-type'] ??= 'application/json';
      }
      const a = await fetch({ method, url, headers, ...(body !== undefined ? { body } : {}) });
      const text = typeof a.body === 'string' ? a.body : Buffer.from(a.body).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: a.status, headers: a.headers, text, json };
    },
    listener(req, res) {
      const refused = (code: HttpCode): void => {
        const m = router.match((req.method ?? 'GET').toUpperCase(), (req.url ?? '/').split('?')[0] as string);
        metrics.observeRequest(m.kind === 'route' ? m.route.path : 'unmatched', (req.method ?? 'GET').toUpperCase(), STATUS[code]);
      };
      // A JWT is verified before the body is read, so that mayRead knows its principal.
      (oauth ? oauth.prepare(req.headers.authorization) : Promise.resolve()).then(() => serveNode(fetch, req, res, {
        limit: bodyLimit,
        streams,
        onTooLarge: () => refused(HttpCode.BodyTooLarge),
        onRefused: refused,
        shares,
        admit,
        ...(options.uploadRate ? { uploadRate: options.uploadRate } : {}),
      })).catch((error: unknown) => {
        // Writing the answer failed (e.g. the client went away): nothing left to answer.
        onError(error, { method: req.method ?? 'GET', route: 'write' });
        res.destroy();
      });
    },
  };
}

function render(reply: Reply): HttpAnswer {
  const status = reply.status ?? 200;
  if (reply.stream) {
    return { status, headers: { ...BASE_HEADERS, 'content-type': reply.stream.contentType, ...reply.headers }, body: '', stream: reply.stream };
  }
  if (reply.raw) {
    return { status, headers: { ...BASE_HEADERS, 'content-type': reply.raw.contentType, ...reply.headers }, body: reply.raw.bytes };
  }
  return { status, headers: { ...BASE_HEADERS, 'content-type': JSON_TYPE, ...reply.headers }, body: JSON.stringify(reply.body ?? {}) };
}

/** The status when no runtime status is given: ok, enforcing, the rules in force. */
function fallbackStatus(rules: RulesAccess): () => RuntimeStatus {
  return () => {
    const r = rules.inForce();
    return {
      state: r ? 'ok' : 'degraded',
      enforcing: r !== undefined,
      rules: { dir: r?.dir ?? '', revision: r?.revision ?? null, loadedAt: r?.loadedAt?.toISOString() ?? null, files: r?.files ?? [] },
      policy: { sha256: null, loadedAt: null },
      reloads: 0,
      reloadErrors: 0,
    };
  };
}

