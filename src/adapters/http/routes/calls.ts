/**
 * Deciding calls: `POST /v1/decide` (the decision, refused or not, is a 200),
 * `POST /v1/explain` (why, nothing audited; an agent sees only its own facts) and `POST /mcp/call` (the
 * gateway's tool-call route: a refusal is a 409 and the executor is never
 * called; an allowed call goes to its executor and the executor's answer
 * comes back).
 */
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import type { Call, Decision } from '../../../core/types.js';
import { runToolCall, type ToolCall } from '../../../gate/tool-call.js';
import type { HttpDeps } from '../deps.js';
import { HttpCode, HttpError } from '../errors.js';
import { decisionForSeat, explainForSeat } from '../disclosure.js';
import { forwardedMeta } from '../../../core/call.js';
import { refusalBody, REFUSED_STATUS } from '../refusal.js';
import type { Reply, Router } from '../router.js';
import { reviewerChannelReply } from './holds.js';
import { seatOf } from './seat.js';

interface DecideBody {
  tool: string;
  agent?: string;
  runId?: string;
  delegatedBy?: string[];
  args?: Record<string, unknown>;
}

interface ExplainBody extends DecideBody {
  at?: number | string;
}

interface McpCallBody {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  agent?: string;
  runId?: string;
  delegatedBy?: string[];
}

function callOf(agent: string, b: { runId?: string; delegatedBy?: string[]; args?: Record<string, unknown>; omittedArgs?: string[] }, tool: string): Call {
  return {
    agent,
    tool,
    ...(b.runId !== undefined ? { runId: b.runId } : {}),
    ...(b.delegatedBy !== undefined ? { delegatedBy: b.delegatedBy } : {}),
    ...(b.args !== undefined ? { args: b.args } : {}),
    ...(b.omittedArgs !== undefined && b.omittedArgs.length > 0 ? { omittedArgs: b.omittedArgs } : {}),
  };
}

export { argsForPolicy, POLICY_ARG_MAX_BYTES, POLICY_ARG_MAX_KEYS } from '../../../gate/args.js';

/** An agent's token vouches for its seat only: a claimed delegation not on record is refused (403 claim_refused, audited). */
const AGENT_CLAIMS = { unrecordedClaims: 'refuse' } as const;

export function registerCallRoutes(router: Router, deps: HttpDeps): void {
  router.add({
    method: 'POST',
    path: '/v1/decide',
    roles: ['agent'],
    body: { schema: 'decide' },
    async handle(ctx) {
      const b = ctx.body as DecideBody;
      const agent = seatOf(ctx.principal, b.agent, "the body's agent");
      const decision = await deps.decide(callOf(agent, b, b.tool), AGENT_CLAIMS);
      return { body: decisionForSeat(agent, decision) };
    },
  });

  router.add({
    method: 'POST',
    path: '/v1/explain',
    roles: ['agent', 'operator'],
    body: { schema: 'explain' },
    async handle(ctx) {
      const b = ctx.body as ExplainBody;
      let agent: string;
      if (ctx.principal?.role === 'operator') {
        if (b.agent === undefined) throw new PlangateError(ErrorCode.InvalidInput, 'body.agent is required with an operator token', [{ path: '/agent', message: 'body.agent is required with an operator token' }]);
        agent = b.agent;
      } else {
        agent = seatOf(ctx.principal, b.agent, "the body's agent");
        if (b.at !== undefined) throw new HttpError(HttpCode.Forbidden, 'body.at: only an operator may explain a call at another time');
      }
      const call = { ...callOf(agent, b, b.tool), ...(b.at !== undefined ? { at: b.at } : {}) };
      if (ctx.principal?.role === 'operator') return { body: await deps.gate.explain(call) };
      const { decision, input } = await deps.gate.explain(call, AGENT_CLAIMS);
      return { body: explainForSeat(agent, decision, input) };
    },
  });

  router.add({
    method: 'POST',
    path: '/mcp/call',
    roles: ['agent'],
    body: { schema: 'mcp-call' },
    async handle(ctx) {
      const b = ctx.body as McpCallBody;
      const agent = seatOf(ctx.principal, b.agent, "the body's agent");
      // Every argument the policy needs is given or named as left out (too large): never a silently truncated view.
      const call: ToolCall = {
        seat: agent,
        tool: b.name,
        ...(b.arguments !== undefined ? { args: b.arguments } : {}),
        ...(b.runId !== undefined ? { runId: b.runId } : {}),
        ...(b.delegatedBy !== undefined ? { delegatedBy: b.delegatedBy } : {}),
        ...AGENT_CLAIMS,
      };
      return runToolCall<Reply>({ gate: { decide: deps.decide }, count: (_tool, outcome) => deps.metrics.observeToolCall('/mcp/call', outcome) }, call, {
        refuse: (r) => ({ status: REFUSED_STATUS, body: refusalBody(r.decision) }),
        // The agent's reviewer channel is plangate's own tool: the plan is recorded on its hold, nothing is forwarded.
        own: () => reviewerChannelReply(deps, agent, b.arguments, b.runId),
        forward: (decision) => execute(deps, agent, b, decision),
      });
    },
  });
}

/** Sends an allowed call to its executor and relays the executor's answer. */
async function execute(deps: HttpDeps, agent: string, b: McpCallBody, decision: Decision): Promise<Reply> {
  const target = deps.executors?.lookup(b.name);
  const meta = forwardedMeta(b._meta);
  if (!target) throw new HttpError(HttpCode.NoExecutor, `no executor is configured for ${b.name}`);
  const answer = await deps.executors!.call(target, {
    name: b.name,
    arguments: b.arguments ?? {},
    agent,
    // The executor is told only a run the records vouch for: open, and the seat's (or its delegation chain's).
    ...(b.runId !== undefined && decision.run?.status === 'open' ? { runId: b.runId } : {}),
    // Likewise the delegation chain: only its recorded links (none while failing open, when nothing was checked).
    ...(decision.delegation !== undefined && decision.delegation.chain.length > 0 ? { delegatedBy: decision.delegation.chain } : {}),
    ...(meta !== undefined ? { _meta: meta } : {}),
  });
  return {
    status: answer.status,
    raw: { bytes: answer.body, contentType: answer.contentType },
    headers: {
      'x-plangate-decision': 'allowed',
      ...(decision.failOpen ? { 'x-plangate-fail-open': 'true' } : {}),
      // Shadow mode: the call went through, but the rule would have refused it with this code.
      ...(decision.shadow && decision.code ? { 'x-plangate-shadow': decision.code } : {}),
    },
  };
}
