/**
 * Failing closed: what a planning hold does when plangate cannot ask its
 * policy (the rules or the compiled policy cannot be read) or its store
 * (it throws while the facts are gathered).
 *
 * A hold is a review control, not a legibility check: the reviewer asked
 * for a plan before any work, and a broken YAML file or a database blip
 * must not lift it. So a held agent stays held through every failure. With
 * no policy to ask, the host applies one minimal rule of its own, written
 * here and nowhere else ({@link FAIL_CLOSED_HOLD_RULE}): a held agent's
 * calls are refused, except its reviewer channel (so it can still send its
 * plan). The whitelist is not honoured meanwhile: it lives in the rules
 * that cannot be read. Everything else about holds stays in Rego
 * (policies/plangate/hold.rego).
 */
import type { CheckVerdicts, Decision, Failure } from './decision.js';
import type { HoldFact } from './facts.js';
import { FAILURE_SHOWN_TO_AGENTS, withoutPolicy } from './failopen.js';

/** A held agent while the rules or the policy cannot be read: refused except the reviewer channel. */
export const HOLD_ON_POLICY_FAILURE = 'fail_closed' as const;

/**
 * A held agent while the store fails: refused except the reviewer channel,
 * for every hold known before the failure (the gate keeps the last known
 * active holds in process, updated by every decision and hold operation).
 */
export const HOLD_ON_STORE_FAILURE = 'fail_closed' as const;

/**
 * Any agent's call while the store fails and the active holds have not been
 * read since start (the first listing failed too): refused. Whether the
 * agent is held cannot be told, and a hold must not lift because the store
 * was down when plangate started (a one-shot `plangate hook` starts on every
 * call). Plan-required's own fail-open applies again as soon as the holds
 * have been read once.
 */
export const UNREAD_HOLDS_ON_STORE_FAILURE = 'fail_closed' as const;

/** The host's one decision rule when it cannot ask the policy. */
export const FAIL_CLOSED_HOLD_RULE = 'held → refused, unless the call is to the reviewer channel' as const;

/**
 * The reviewer channel assumed while the rules cannot be read and no
 * channel is known for the hold: the built-in one (the rules that could
 * name another are unreadable).
 */
export const FAIL_CLOSED_REVIEWER_CHANNEL = 'plangate_submit_plan';

/**
 * The decision for a held agent's call when the policy or the store cannot
 * be asked: refused unless `tool` is the reviewer channel. `failClosed`
 * carries what failed; the message tells the agent its cause only.
 *
 * @example
 * heldWhileFailing({ agent: '0xW', tool: 'github.merge' }, hold, 'plangate_submit_plan', { cause: 'store', reason: 'SQLITE_IOERR' }).allowed // false
 */
export function heldWhileFailing(
  call: { agent: string; tool: string; agentKnown?: boolean },
  hold: Pick<HoldFact, 'id' | 'kind'>,
  channel: string,
  failure: Failure,
): Decision {
  const channelCall = call.tool === channel;
  const refused = !channelCall;
  const checks: CheckVerdicts = {
    readGuard: { status: 'off', applies: false, refused: false, maxBytes: 0 },
    planningHold: {
      held: true, refused, channel, channelCall,
      ...(channelCall ? { exempt: 'reviewer_channel' as const } : {}),
      hold: { id: hold.id, kind: hold.kind },
    },
    planRequired: { allowed: true, gated: false },
  };
  const base = {
    ...withoutPolicy(call),
    checks,
    // The hot answer's names for the same: the held agent's channel, and whether this call is to it.
    reviewerChannel: channel,
    ...(channelCall ? { channelCall: true as const } : {}),
    failClosed: { cause: failure.cause, reason: failure.reason },
  };
  if (!refused) return { ...base, allowed: true };
  const code = `planning_hold:${call.tool}`;
  return {
    ...base,
    allowed: false,
    check: 'planning_hold',
    code,
    message:
      `${code} - ${call.agent} is on a planning hold (hold ${hold.id}), so ${call.tool} stays closed until the hold is released. ` +
      `plangate cannot check anything else right now (${FAILURE_SHOWN_TO_AGENTS[failure.cause]}), so only the reviewer channel stays open: send your plan through ${channel}.`,
  };
}

/**
 * The decision for any call while the store fails and the active holds have
 * never been read (see {@link UNREAD_HOLDS_ON_STORE_FAILURE}): refused, as a
 * planning hold, whatever the agent. `reason` says how the store failed
 * (for the operator: the message does not repeat it).
 *
 * @example
 * unreadHoldsWhileFailing({ agent: '0xW', tool: 'github.merge' }, 'the store failed').allowed // false
 */
export function unreadHoldsWhileFailing(call: { agent: string; tool: string; agentKnown?: boolean }, reason: string): Decision {
  const code = `planning_hold:${call.tool}`;
  return {
    ...withoutPolicy(call),
    allowed: false,
    check: 'planning_hold',
    code,
    failClosed: { cause: 'store', reason: `${reason}; the active holds have not been read since plangate started` },
    message:
      `${code} - plangate cannot tell whether ${call.agent} is on a planning hold: its store is failing and ` +
      'has not listed the active holds since plangate started, so no call goes through until it is back. Retry in a moment.',
  };
}
