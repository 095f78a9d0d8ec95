/**
 * The human gate's requests over HTTP. An approver token (role `approver`,
 * or a role or name the rule lists) or an operator token reads the queue
 * and answers a request; an agent token never answers one, not even
 * another seat's (the router refuses its role, and the policy's
 * approver_allowed never lets an agent through).
 *
 *   GET  /v1/approvals              operator, approver, reviewer  the requests, newest first (?status=pending|granted|denied|used; ?agent=; ?limit=)
 *   GET  /v1/approvals/:id          operator, approver, reviewer  one request, with the call's arguments
 *   POST /v1/approvals/:id/approve  operator, approver, reviewer  grant it (403 not_approver; 409 when no longer pending)
 *   POST /v1/approvals/:id/deny     operator, approver, reviewer  deny it with { reason }
 */
import type { Principal } from '../auth.js';
import type { HttpDeps } from '../deps.js';
import type { Router } from '../router.js';
import { checkSchema } from '../schemas.js';
import type { ApprovalStatus } from '../../../core/approvals.js';

const ANSWERING = ['operator', 'approver', 'reviewer'] as const;

function principal(p: Principal | undefined): { role: string; name: string } {
  return { role: p?.role ?? 'unknown', name: p?.name ?? 'unknown' };
}

export function registerApprovalRoutes(router: Router, deps: HttpDeps): void {
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
      return { body: { approval: await deps.gate.approvals.get(ctx.params['id'] as string) } };
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
