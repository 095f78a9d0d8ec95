/**
 * Failing open: the one documented place where plangate lets a call through
 * without asking the policy (DESIGN.md, "Failing open").
 *
 * Plan-required guards *legibility* — that an agent said what it is about to
 * do — not money or reach. When the rules or the compiled policy cannot be
 * read, or the store cannot be asked for the facts, refusing every effect
 * would stop every agent for a broken YAML file or a database blip. So the
 * call goes through as if the mode were `off`, the decision says so
 * (`failOpen.reason`), and the host says so loudly (boot banner, a log line
 * per decision, a degraded status). Controls that guard money or reach —
 * budgets, allowlists — must fail closed instead; they are not plan-required.
 * Nor is a planning hold: it fails closed (core/failclosed.ts).
 */
import type { Decision, EffectiveSettings, Explanation, Failure, FailureCause, ToolClass } from './types.js';

/** What plan-required does when there is no policy to ask: let the call through. */
export const PLAN_REQUIRED_ON_POLICY_FAILURE = 'fail_open' as const;

/**
 * What the gate does when the store fails while gathering the facts for a
 * decision: let the call through too (a database blip must not stop work),
 * with `failOpen.reason` saying so and a log line.
 */
export const PLAN_REQUIRED_ON_STORE_FAILURE = 'fail_open' as const;

/**
 * What the read guard does when there is no policy to ask, or the store
 * fails: it is not applied. Its ceiling and read tools are rules; with none
 * there is no ceiling to hold a file to. It guards an agent's context
 * budget, not secrets (it is not an access control), so a large read let
 * through while plangate is broken costs tokens, never reach.
 */
export const READ_GUARD_ON_POLICY_FAILURE = 'fail_open' as const;

/** The same when the store fails while deciding (the guard does not read the store). */
export const READ_GUARD_ON_STORE_FAILURE = 'fail_open' as const;

/**
 * What an agent is told of a failure, by its cause, wherever it sees one (a
 * refusal's message, a decision over HTTP, a hook's answer). The failure's
 * own text (a rule file's path and line, a database's error with its host
 * and user) is the operator's: it goes to the log and, for an operator, the
 * status and the explanation, never to the agent whose call it decided.
 */
export const FAILURE_SHOWN_TO_AGENTS: Readonly<Record<FailureCause, string>> = Object.freeze({
  policy: "plangate's rules or policy cannot be read",
  store: "plangate's store is failing",
});

/**
 * A failure as an agent may see it: its cause, with the cause's words for its reason.
 *
 * @example
 * failureForAgents({ cause: 'store', reason: 'connect ECONNREFUSED 10.0.0.5:5432' }).reason // "plangate's store is failing"
 */
export function failureForAgents(failure: Failure): Failure {
  return { cause: failure.cause, reason: FAILURE_SHOWN_TO_AGENTS[failure.cause] };
}

/**
 * A decision as an agent may see it: a failure it carries told by its cause
 * only (see {@link FAILURE_SHOWN_TO_AGENTS}); any other decision as it is.
 *
 * @example
 * forAgents(decision).failOpen?.reason // "plangate's rules or policy cannot be read"
 */
export function forAgents<D extends { failOpen?: Failure; failClosed?: Failure }>(decision: D): D {
  if (!decision.failOpen && !decision.failClosed) return decision;
  return {
    ...decision,
    ...(decision.failOpen ? { failOpen: failureForAgents(decision.failOpen) } : {}),
    ...(decision.failClosed ? { failClosed: failureForAgents(decision.failClosed) } : {}),
  };
}

/**
 * The class a fail-open decision reports. Classification lives in the rules
 * and the policy, and neither is available, so nothing classified the tool;
 * `effect` is what DESIGN.md calls an unclassified tool. It is a placeholder:
 * a fail-open decision is never gated whatever the class.
 */
export const FAIL_OPEN_CLASS: ToolClass = 'effect';

/**
 * The settings reported while failing open: mode `off` and every other
 * setting at its default, all from `default` — no rule is in force.
 *
 * @example
 * failOpenSettings().mode // { value: 'off', scope: 'default' }
 */
export function failOpenSettings(): EffectiveSettings {
  return {
    mode: { value: 'off', scope: 'default' },
    windowMin: { value: 30, scope: 'default' },
    acceptUpstream: { value: false, scope: 'default' },
    enforce: { value: true, scope: 'default' },
  };
}

/**
 * The decision for a call when there is no policy (or no facts) to decide it:
 * allowed, not gated, as if the mode were off, with what failed.
 *
 * @example
 * failOpenDecision({ agent: '0xW', tool: 'github.merge' }, { cause: 'policy', reason: 'rules/plan.yaml:3:9: invalid YAML' })
 * // { allowed: true, gated: false, failOpen: { cause: 'policy', reason: 'rules/plan.yaml:3:9: invalid YAML' }, … }
 */
export function failOpenDecision(call: { agent: string; tool: string; agentKnown?: boolean }, failure: Failure): Explanation {
  return { allowed: true, ...withoutPolicy(call), failOpen: { cause: failure.cause, reason: failure.reason } };
}

/**
 * The fields of a decision made without the policy (failing open, or a held
 * agent failing closed): no class from the rules, nothing gated, built-in settings.
 */
export function withoutPolicy(call: { agent: string; tool: string; agentKnown?: boolean }): Omit<Explanation, 'allowed'> {
  return {
    tool: call.tool,
    class: FAIL_OPEN_CLASS,
    gated: false,
    agent: call.agent,
    agentKnown: call.agentKnown ?? false,
    settings: failOpenSettings(),
    candidates: [],
  };
}

/**
 * A decision made without the policy, as an explanation: the same fields
 * but those only a gate acts on (the explanation reports them under
 * `checks`), and no candidates (no message was considered).
 *
 * @example
 * explanationOf(heldWhileFailing(call, hold, 'plangate_submit_plan', failure)).checks?.planningHold.refused // true
 */
export function explanationOf(decision: Decision): Explanation {
  const { channelCall: _c, reviewerChannel: _r, readGuard: _g, ...rest } = decision;
  return { ...rest, candidates: decision.candidates ?? [] };
}
