/**
 * Runs and delegations over HTTP: facts that only a party entitled to
 * assert them may record. An agent's own token never starts or ends a run;
 * it records only delegations it makes itself (it is the manager).
 *
 *   POST /v1/runs                          operator, orchestrator  start a run (201; 409 conflict for a used id)
 *   GET  /v1/runs                          operator, orchestrator  runs newest first (?seat=, ?limit=)
 *   GET  /v1/runs/:id                      operator, orchestrator  one run (404)
 *   POST /v1/runs/:id/end                  operator, orchestrator  end it (ending again changes nothing)
 *   POST /v1/delegations                   operator, orchestrator, the manager's agent token  record one (201)
 *   GET  /v1/delegations/:id               operator, orchestrator, its manager or worker  one delegation (404)
 *   POST /v1/delegations/:id/revoke        operator, orchestrator, its manager  revoke it
 */
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import type { Delegation } from '../../../core/types.js';
import type { HttpDeps } from '../deps.js';
import { HttpCode, HttpError } from '../errors.js';
import type { RouteContext, Router } from '../router.js';
import { seatOf } from './seat.js';

const TRUSTED = ['operator', 'orchestrator'] as const;
const MINUTE = 60_000;

interface RunBody { seat: string; id?: string; delegationId?: string; ttlMinutes?: number }
interface DelegationBody { worker: string; manager?: string; runId?: string; ttlMinutes?: number }

function param(ctx: RouteContext, name: string): string {
  return ctx.params[name] as string;
}

async function delegationOr404(deps: HttpDeps, id: string): Promise<Delegation> {
  const d = await deps.gate.delegations.get(id);
  if (!d) throw new PlangateError(ErrorCode.NotFound, `no delegation with id ${id}`);
  return d;
}

/** An agent token may touch a delegation only as one of its parties (`manager` alone for a revoke). */
function checkParty(ctx: RouteContext, d: Delegation, parties: ReadonlyArray<'manager' | 'worker'>): void {
  if (ctx.principal?.role !== 'agent') return;
  const seat = ctx.principal.seat;
  if (!parties.some((p) => d[p] === seat)) {
    // Not found rather than forbidden: an agent learns nothing about other seats' delegations.
    throw new PlangateError(ErrorCode.NotFound, `no delegation with id ${d.id}`);
  }
}

export function registerRunRoutes(router: Router, deps: HttpDeps): void {
  router.add({
    method: 'POST',
    path: '/v1/runs',
    roles: TRUSTED,
    body: { schema: 'run-start' },
    async handle(ctx) {
      const b = ctx.body as RunBody;
      const run = await deps.gate.runs.start({
        seat: b.seat,
        by: ctx.principal?.name as string,
        ...(b.id !== undefined ? { id: b.id } : {}),
        ...(b.delegationId !== undefined ? { delegationId: b.delegationId } : {}),
        ...(b.ttlMinutes !== undefined ? { ttlMs: b.ttlMinutes * MINUTE } : {}),
      });
      return { status: 201, body: { run } };
    },
  });

  router.add({
    method: 'GET',
    path: '/v1/runs',
    roles: TRUSTED,
    body: 'none',
    async handle(ctx) {
      const seat = ctx.query.get('seat');
      const limit = ctx.query.get('limit');
      const runs = await deps.gate.runs.list({
        ...(seat !== null ? { seat } : {}),
        ...(limit !== null ? { limit: /^\d+$/.test(limit) ? Number(limit) : Number.NaN } : {}),
      });
      return { body: { runs } };
    },
  });

  router.add({
    method: 'GET',
    path: '/v1/runs/:id',
    roles: TRUSTED,
    body: 'none',
    async handle(ctx) {
      const run = await deps.gate.runs.get(param(ctx, 'id'));
      if (!run) throw new PlangateError(ErrorCode.NotFound, `no run with id ${param(ctx, 'id')}`);
      return { body: { run } };
    },
  });

  router.add({
    method: 'POST',
    path: '/v1/runs/:id/end',
    roles: TRUSTED,
    body: 'none',
    async handle(ctx) {
      const run = await deps.gate.runs.end(param(ctx, 'id'), { by: ctx.principal?.name as string });
      return { body: { run } };
    },
  });

  router.add({
    method: 'POST',
    path: '/v1/delegations',
    roles: [...TRUSTED, 'agent'],
    body: { schema: 'delegation' },
    async handle(ctx) {
      const b = ctx.body as DelegationBody;
      let manager: string;
      if (ctx.principal?.role === 'agent') {
        manager = seatOf(ctx.principal, b.manager, "the body's manager");
      } else {
        if (b.manager === undefined) throw new PlangateError(ErrorCode.InvalidInput, 'body.manager is required with an operator or orchestrator token', [{ path: '/manager', message: 'body.manager is required' }]);
        manager = b.manager;
      }
      const delegation = await deps.gate.delegations.record({
        manager,
        worker: b.worker,
        by: ctx.principal?.name as string,
        ...(b.runId !== undefined ? { runId: b.runId } : {}),
        ...(b.ttlMinutes !== undefined ? { ttlMs: b.ttlMinutes * MINUTE } : {}),
      });
      return { status: 201, body: { delegation } };
    },
  });

  router.add({
    method: 'GET',
    path: '/v1/delegations/:id',
    roles: [...TRUSTED, 'agent'],
    body: 'none',
    async handle(ctx) {
      const d = await delegationOr404(deps, param(ctx, 'id'));
      checkParty(ctx, d, ['manager', 'worker']);
      return { body: { delegation: d } };
    },
  });

  router.add({
    method: 'POST',
    path: '/v1/delegations/:id/revoke',
    roles: [...TRUSTED, 'agent'],
    body: 'none',
    async handle(ctx) {
      const d = await delegationOr404(deps, param(ctx, 'id'));
      checkParty(ctx, d, ['manager']);
      if (ctx.principal?.role === 'agent' && d.manager !== ctx.principal.seat) throw new HttpError(HttpCode.Forbidden, 'only the manager revokes its delegation');
      return { body: { delegation: await deps.gate.delegations.revoke(d.id) } };
    },
  });
}
