/**
 * Planning holds over HTTP. An operator places a hold (on demand, or as the
 * reviewer where the planning gate is on), pushes back, releases and
 * unblocks; a reviewer token places reviewer holds, pushes back and
 * releases, acting under its own name; the held agent sends its plan with
 * its own token (the reviewer channel). Through `POST /mcp/call`, a call to the agent's reviewer-channel
 * tool is answered here too: the plan is recorded, nothing is forwarded.
 *
 *   GET  /v1/holds                    operator  active holds (?all=true: history too; ?agent=; ?limit=; ?before=ID: the next page)
 *   GET  /v1/holds/:agent             operator, or that agent   its active hold (404 not_held)
 *   POST /v1/holds/:agent             operator, reviewer (kind reviewer only)  place a hold (201; 409 already_held / planning_gate_off)
 *   POST /v1/holds/:agent/plan        that agent  the reviewer channel (201; 404 not_held)
 *   POST /v1/holds/:agent/push-back   operator, reviewer (reviewer holds only)  the reviewer's answer; the hold stays (201)
 *   POST /v1/holds/:agent/release     operator, reviewer (reviewer holds only)  the reviewer approves the direction; the hold lifts
 *   POST /v1/holds/:agent/unblock     operator  an operator clears the hold
 */
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import type { HoldCondition } from '../../../facts/holds.js';
import type { Principal } from '../auth.js';
import type { HttpDeps } from '../deps.js';
import { HttpCode, HttpError } from '../errors.js';
import type { Reply, Router } from '../router.js';
import { checkSchema } from '../schemas.js';
import { seatOf } from './seat.js';

interface PlaceBody {
  kind?: 'on_demand' | 'reviewer';
  task?: string;
  by?: string;
}

/**
 * The name a person acts under: for an operator `body.by`, else the token's
 * name; a reviewer token always acts under its own name (403 for another).
 */
function who(principal: Principal | undefined, by: string | undefined): string {
  const name = principal?.name as string;
  if (principal?.role === 'reviewer' && by !== undefined && by !== name) {
    throw new HttpError(HttpCode.Forbidden, `a reviewer token acts as ${name}; body.by names ${by}`);
  }
  return by ?? name;
}

function agentParam(params: Record<string, string>): string {
  return params['agent'] as string;
}

/**
 * The answer to an MCP call of the agent's reviewer channel: the plan (the
 * `plan` or `body` argument) is recorded on the agent's hold.
 *
 * @example
 * if (decision.channelCall === true) return reviewerChannelReply(deps, agent, args);
 */
export async function reviewerChannelReply(deps: HttpDeps, agent: string, args: Record<string, unknown> | undefined, runId?: string): Promise<Reply> {
  const text = args?.['plan'] ?? args?.['body'];
  if (typeof text !== 'string' || text.trim() === '') {
    throw new PlangateError(ErrorCode.InvalidInput, 'the reviewer channel takes the plan as the text argument "plan" (or "body")', [
      { path: '/arguments/plan', message: 'arguments.plan must be the plan, as text' },
    ]);
  }
  const { hold, message } = await deps.gate.holds.submitPlan(agent, { body: text, ...(runId !== undefined ? { runId } : {}) });
  const summary = `Plan #${message.id} sent to the reviewer (hold ${hold.id}, ${hold.plans} plan${hold.plans === 1 ? '' : 's'} so far). `
    + 'You stay on hold until the reviewer releases you; watch for a push-back in your thread.';
  return {
    status: 200,
    body: { content: [{ type: 'text', text: summary }], structuredContent: { holdId: hold.id, messageId: message.id, plans: hold.plans } },
    headers: { 'x-plangate-decision': 'allowed', 'x-plangate-reviewer-channel': 'plan-recorded' },
  };
}

export function registerHoldRoutes(router: Router, deps: HttpDeps): void {
  router.add({
    method: 'GET',
    path: '/v1/holds',
    roles: ['operator'],
    body: 'none',
    async handle(ctx) {
      const limit = ctx.query.get('limit');
      const agent = ctx.query.get('agent');
      const before = ctx.query.get('before');
      const holds = await deps.gate.holds.list({
        all: ctx.query.get('all') === 'true',
        ...(agent !== null ? { agent } : {}),
        ...(before !== null ? { before } : {}),
        ...(limit !== null ? { limit: /^\d+$/.test(limit) ? Number(limit) : Number.NaN } : {}),
      });
      return { body: { holds } };
    },
  });

  router.add({
    method: 'GET',
    path: '/v1/holds/:agent',
    roles: ['operator', 'agent'],
    body: 'none',
    async handle(ctx) {
      const agent = agentParam(ctx.params);
      if (ctx.principal?.role === 'agent') seatOf(ctx.principal, agent);
      const hold = await deps.gate.holds.get(agent);
      if (!hold) throw new PlangateError(ErrorCode.NotHeld, `${agent} is not held: there is no active planning hold on it`);
      return { body: { hold } };
    },
  });

  router.add({
    method: 'POST',
    path: '/v1/holds/:agent',
    roles: ['operator', 'reviewer'],
    body: 'json',
    async handle(ctx) {
      const b = checkSchema<PlaceBody>('hold-place', ctx.body ?? {});
      if (ctx.principal?.role === 'reviewer' && b.kind !== 'reviewer') {
        throw new HttpError(HttpCode.Forbidden, 'a reviewer token places only reviewer holds (body.kind "reviewer"); an on-demand hold needs an operator');
      }
      const hold = await deps.gate.holds.place(agentParam(ctx.params), {
        by: who(ctx.principal, b.by),
        kind: b.kind ?? 'on_demand',
        ...(b.task !== undefined ? { task: b.task } : {}),
      });
      return { status: 201, body: { hold } };
    },
  });

  router.add({
    method: 'POST',
    path: '/v1/holds/:agent/plan',
    roles: ['agent'],
    body: { schema: 'hold-plan' },
    async handle(ctx) {
      const agent = seatOf(ctx.principal, agentParam(ctx.params));
      const b = ctx.body as { body: string; runId?: string };
      const { hold, message } = await deps.gate.holds.submitPlan(agent, { body: b.body, ...(b.runId !== undefined ? { runId: b.runId } : {}) });
      return { status: 201, body: { hold, message: { id: message.id, thread: message.thread, kind: message.kind, at: new Date(message.at).toISOString() } } };
    },
  });

  /**
   * What the store must find in the step that acts: for a reviewer, a
   * reviewer hold (an on-demand hold is lifted by an operator: 403 here, and
   * `not_held` if one replaced the reviewer hold meanwhile); and the hold and
   * newest plan the caller saw, when it names them (`conflict` otherwise).
   */
  async function condition(principal: Principal | undefined, agent: string, b: { holdId?: string; lastPlanId?: string | null }): Promise<{ only?: HoldCondition }> {
    const only: HoldCondition = {
      ...(b.holdId !== undefined ? { id: b.holdId } : {}),
      ...(b.lastPlanId !== undefined ? { lastPlanId: b.lastPlanId } : {}),
    };
    if (principal?.role === 'reviewer') {
      const hold = await deps.gate.holds.get(agent);
      if (hold && hold.kind !== 'reviewer') {
        throw new HttpError(HttpCode.Forbidden, `${agent}'s hold was placed on demand by an operator; a reviewer pushes back on and releases reviewer holds only`);
      }
      only.kind = 'reviewer';
    }
    return Object.keys(only).length > 0 ? { only } : {};
  }

  /** Refuses (400) a release of an active hold that does not name the plan it approves, naming the newest one. */
  async function planNamed(agent: string): Promise<void> {
    const hold = await deps.gate.holds.get(agent);
    if (!hold || hold.state !== 'active') return; // the release answers not_held
    const newest = hold.lastPlanId ? `#${hold.lastPlanId}` : 'none yet: send null';
    const message = `body.lastPlanId is required to release: the id of the newest plan you read (${agent}'s newest plan: ${newest})`;
    throw new PlangateError(ErrorCode.InvalidInput, message, [{ path: '/lastPlanId', message }]);
  }

  router.add({
    method: 'POST',
    path: '/v1/holds/:agent/push-back',
    roles: ['operator', 'reviewer'],
    body: { schema: 'hold-push-back' },
    async handle(ctx) {
      const b = ctx.body as { body: string; by?: string; byKind?: 'human' | 'agent'; holdId?: string; lastPlanId?: string | null };
      const only = await condition(ctx.principal, agentParam(ctx.params), b);
      const { hold, message } = await deps.gate.holds.pushBack(agentParam(ctx.params), {
        by: who(ctx.principal, b.by),
        body: b.body,
        byKind: b.byKind ?? 'human',
        ...only,
      });
      return { status: 201, body: { hold, message: { id: message.id, thread: message.thread, kind: message.kind, at: new Date(message.at).toISOString() } } };
    },
  });

  for (const action of ['release', 'unblock'] as const) {
    router.add({
      method: 'POST',
      path: `/v1/holds/:agent/${action}`,
      roles: action === 'release' ? ['operator', 'reviewer'] : ['operator'],
      body: 'json',
      async handle(ctx) {
        const b = checkSchema<{ by?: string; holdId?: string; lastPlanId?: string | null }>('hold-end', ctx.body ?? {});
        const by = who(ctx.principal, b.by);
        const agent = agentParam(ctx.params);
        const only = await condition(ctx.principal, agent, b);
        // A release approves the plan that was read: the caller names it, and a newer one is a 409.
        if (action === 'release' && b.lastPlanId === undefined) await planNamed(agent);
        const hold = action === 'release' ? await deps.gate.holds.release(agent, { by, ...only }) : await deps.gate.holds.unblock(agent, { by, ...only });
        return { body: { hold } };
      },
    });
  }
}
