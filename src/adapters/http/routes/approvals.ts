/**
 * The human gate's requests over HTTP. An approver token (role `approver`,
 * or a role or name the rule lists) or an operator token reads the queue
 * and answers a request; an agent token never answers one, not even
 * another seat's (the router refuses its role, and the policy's
 * approver_allowed never lets an agent through).
 *
 *   GET  /v1/approvals              operator, approver, reviewer  the requests, newest first (?status=pending|granted|denied|used; ?agent=; ?limit=)
 *   GET  /v1/approvals/queue        operator, approver, reviewer  the pending requests and the newest answered ones (the console's view)
 *   GET  /v1/approvals/queue/events operator, approver, reviewer  `event: approvals` with that view at once and on every change
 *   GET  /v1/approvals/:id          operator, approver, reviewer  one request, with the call's arguments and the text of the plan that counted
 *   POST /v1/approvals/:id/approve  operator, approver, reviewer  grant it (403 not_approver; 409 when no longer pending)
 *   POST /v1/approvals/:id/deny     operator, approver, reviewer  deny it with { reason }
 */
import type { Principal } from '../auth.js';
import type { HttpDeps } from '../deps.js';
import type { Router } from '../router.js';
import { checkSchema } from '../schemas.js';
import type { Approval, ApprovalStatus } from '../../../core/approvals.js';
import { storeWatch, watchReply } from '../watch.js';
import type { ApprovalEntry, ApprovalsQueue } from './approvals-queue.js';

export type { ApprovalEntry, ApprovalsQueue } from './approvals-queue.js';

const ANSWERING = ['operator', 'approver', 'reviewer'] as const;

/** At most this many pending requests are in the queue (the newest), and this many answered ones. */
const QUEUE_LIMIT = 100;
const ANSWERED_SHOWN = 20;
/** How often the store is asked for changes while a stream is open. */
export const APPROVALS_POLL_MS = 1000;
/**
 * Arguments larger than this (as JSON) are left out of the queue, so a
 * hundred requests with megabytes of arguments each do not make every event
 * of the stream hundreds of megabytes; the page reads them one by one.
 */
export const ARGS_BYTES_IN_QUEUE = 64 * 1024;

function entry(a: Approval): ApprovalEntry {
  const { args, ...rest } = a;
  const argsBytes = Buffer.byteLength(JSON.stringify(args));
  return { ...rest, ...(argsBytes <= ARGS_BYTES_IN_QUEUE ? { args } : {}), argsBytes };
}

/**
 * The approvers' view: the newest pending requests and the newest answered ones.
 *
 * @example
 * (await approvalsQueue(deps)).pending[0]?.args // the exact call's arguments
 */
export async function approvalsQueue(deps: Pick<HttpDeps, 'gate'>): Promise<ApprovalsQueue> {
  const [pending, recent] = await Promise.all([
    deps.gate.approvals.list({ status: 'pending', limit: QUEUE_LIMIT + 1 }),
    deps.gate.approvals.list({ limit: QUEUE_LIMIT + ANSWERED_SHOWN }),
  ]);
  return {
    pending: pending.slice(0, QUEUE_LIMIT).map(entry),
    answered: recent.filter((a) => a.status !== 'pending').slice(0, ANSWERED_SHOWN).map(entry),
    limit: QUEUE_LIMIT,
    limitReached: pending.length > QUEUE_LIMIT,
  };
}

function principal(p: Principal | undefined): { role: string; name: string } {
  return { role: p?.role ?? 'unknown', name: p?.name ?? 'unknown' };
}

export function registerApprovalRoutes(router: Router, deps: HttpDeps): void {
  const watch = storeWatch(() => approvalsQueue(deps), APPROVALS_POLL_MS,
    (error) => deps.onError(error, { method: 'GET', route: '/v1/approvals/queue/events' }));

  router.add({
    method: 'GET',
    path: '/v1/approvals/queue',
    roles: ANSWERING,
    body: 'none',
    handle: async () => ({ body: await approvalsQueue(deps) }),
  });

  router.add({
    method: 'GET',
    path: '/v1/approvals/queue/events',
    roles: ANSWERING,
    body: 'none',
    // Read once before answering, so a failing store is an error answer, not an empty stream.
    handle: async () => watchReply('approvals', JSON.stringify(await approvalsQueue(deps)), watch),
  });
  router.add({
    method: 'GET',
    path: '/v1/approvals',
    roles: ANSWERING,
    body: 'none',
    async handle(ctx) {
      const status = ctx.query.get('status');
      const agent = ctx.query.get('agent');
      const limit = ctx.query.get('limit');
      const approvals = await deps.gate.approvals.list({
        ...(status !== null ? { status: status as ApprovalStatus } : {}),
        ...(agent !== null ? { seat: agent } : {}),
        ...(limit !== null ? { limit: /^\d+$/.test(limit) ? Number(limit) : Number.NaN } : {}),
      });
      return { body: { approvals } };
    },
  });

  router.add({
    method: 'GET',
    path: '/v1/approvals/:id',
    roles: ANSWERING,
    body: 'none',
    async handle(ctx) {
      const approval = await deps.gate.approvals.get(ctx.params['id'] as string);
      return { body: { approval, plan: await deps.gate.approvals.planOf(approval) } };
    },
  });

  router.add({
    method: 'POST',
    path: '/v1/approvals/:id/approve',
    roles: ANSWERING,
    body: 'json',
    async handle(ctx) {
      checkSchema('approval-approve', ctx.body ?? {});
      return { body: { approval: await deps.gate.approvals.approve(ctx.params['id'] as string, principal(ctx.principal)) } };
    },
  });

  router.add({
    method: 'POST',
    path: '/v1/approvals/:id/deny',
    roles: ANSWERING,
    body: { schema: 'approval-deny' },
    async handle(ctx) {
      const { reason } = ctx.body as { reason: string };
      return { body: { approval: await deps.gate.approvals.deny(ctx.params['id'] as string, principal(ctx.principal), reason) } };
    },
  });
}
