/**
 * Guarding a route of an existing Node HTTP server with the gate: a refused
 * call is answered 409 with the same body as `POST /mcp/call`, and the
 * route's own handler never runs. One wrapper for node:http handlers, one
 * middleware for Express (any framework with `(req, res, next)`).
 *
 * The host authenticates its callers itself; `call(req)` says which seat is
 * acting and which tool the route is.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Call, Decision } from '../../core/types.js';
import type { Gate } from '../../gate/gate.js';
import { errorAnswer } from './errors.js';
import type { Metrics } from './metrics.js';
import { refusalBody, REFUSED_STATUS } from './refusal.js';

export interface GuardOptions<Req extends IncomingMessage = IncomingMessage> {
  gate: Pick<Gate, 'decide'>;
  /** The call the request makes. Throwing (or an invalid call) answers with the error's status. */
  call(req: Req): Call | Promise<Call>;
  /** Count the decisions here too (optional). */
  metrics?: Metrics;
  /** Called for an unexpected error (answered 500), and for a store error whose message the caller was not shown. Default: a line on stderr. */
  onError?: (error: unknown) => void;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), 'cache-control': 'no-store', ...headers });
  res.end(text);
}

function checkOptions(options: GuardOptions<never>, name: string): void {
  if (typeof options?.gate?.decide !== 'function') throw new TypeError(`${name}: options.gate must have decide()`);
  if (typeof options.call !== 'function') throw new TypeError(`${name}: options.call must be a function (req) => Call`);
}

/** Decides; answers a refusal or an error itself and returns undefined then. */
async function decideOrAnswer<Req extends IncomingMessage>(options: GuardOptions<Req>, req: Req, res: ServerResponse): Promise<Decision | undefined> {
  const t0 = process.hrtime.bigint();
  let decision: Decision;
  try {
    decision = await options.gate.decide(await options.call(req));
  } catch (error) {
    const e = errorAnswer(error);
    if (e.unexpected || e.withheld !== undefined) (options.onError ?? ((x) => process.stderr.write(`plangate guard: ${String(x)}\n`)))(error);
    options.metrics?.observeDecisionError(e.body.error.code, Number(process.hrtime.bigint() - t0) / 1e9);
    send(res, e.status, e.body, e.headers);
    return undefined;
  }
  options.metrics?.observeDecision(decision, Number(process.hrtime.bigint() - t0) / 1e9);
  if (!decision.allowed) {
    send(res, REFUSED_STATUS, refusalBody(decision));
    return undefined;
  }
  return decision;
}

/**
 * Wraps a node:http handler: it runs only when the gate allows the call.
 *
 * @example
 * http.createServer(guardHandler({ gate, call: (req) => ({ agent: seatOf(req), tool: 'github.merge_pull_request' }) },
 *   (req, res) => merge(req, res)));
 */
export function guardHandler<Req extends IncomingMessage = IncomingMessage>(
  options: GuardOptions<Req>,
  handler: (req: Req, res: ServerResponse, decision: Decision) => void | Promise<void>,
): (req: Req, res: ServerResponse) => void {
  checkOptions(options as GuardOptions<never>, 'guardHandler');
  if (typeof handler !== 'function') throw new TypeError('guardHandler: handler must be a function');
  return (req, res) => {
    decideOrAnswer(options, req, res)
      .then((decision) => (decision ? handler(req, res, decision) : undefined))
      .catch((error: unknown) => {
        (options.onError ?? ((x) => process.stderr.write(`plangate guard: handler failed: ${String(x)}\n`)))(error);
        if (!res.headersSent) send(res, 500, errorAnswer(error).body);
        else res.destroy();
      });
  };
}

/**
 * Express middleware (or any `(req, res, next)` framework): calls `next()`
 * only when the gate allows the call, with the decision in `res.locals.plangate`.
 *
 * @example
 * app.post('/merge', expressGuard({ gate, call: (req) => ({ agent: req.user.seat, tool: 'github.merge_pull_request' }) }), merge);
 */
export function expressGuard<Req extends IncomingMessage = IncomingMessage>(
  options: GuardOptions<Req>,
): (req: Req, res: ServerResponse & { locals?: Record<string, unknown> }, next: (error?: unknown) => void) => void {
  checkOptions(options as GuardOptions<never>, 'expressGuard');
  return (req, res, next) => {
    decideOrAnswer(options, req, res).then(
      (decision) => {
        if (!decision) return;
        if (res.locals) res.locals['plangate'] = decision;
        next();
      },
      next,
    );
  };
}
