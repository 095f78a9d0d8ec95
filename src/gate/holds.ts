/**
 * Planning holds: placing one (by the reviewer, or by an operator on
 * demand), the reviewer channel (the held agent's plan), push-back, release
 * and unblock. Whether a hold may be placed is the policy's answer
 * (`hold_allowed`); the store keeps the holds and their history; each step
 * is audited, never with a message body.
 */
import { ErrorCode, PlangateError } from '../core/errors.js';
import type { HoldCondition } from '../facts/holds.js';
import { agentThread, isValidId } from '../core/threads.js';
import type { AuthorKind, EffectivePlanningSettings, HoldKind, StoredMessage } from '../core/types.js';
import type { AuditEvent } from '../audit/port.js';
import type { Evaluator } from '../engine/policy.js';
import { MAX_HOLD_LIMIT, toHoldFact } from '../facts/holds.js';
import type { Hold, HoldMessageRole, HoldQuery, HoldStore, OrgStore } from '../facts/port.js';
import type { QuotaCheck } from './quotas.js';

/** The store methods holds use. */
export type HoldsStore = HoldStore & Pick<OrgStore, 'lineage'>;

/** A hold with the message that was just linked to it. */
export interface HoldMessage {
  hold: Hold;
  message: StoredMessage;
}

/** The planning-hold half of the gate (`gate.holds`). */
export interface Holds {
  /**
   * Places a hold on `agent`: on demand by an operator (the default; allowed
   * whatever the settings), or by the reviewer (only where the planning gate
   * is on for the agent). Fails with `already_held` when the agent is held:
   * unblock first. A reviewer hold where the gate is off fails with `planning_gate_off`.
   */
  place(agent: string, options: { by: string; kind?: HoldKind; task?: string }): Promise<Hold>;
  /**
   * The reviewer channel: the held agent's plan, posted as a `plan` message
   * in its own thread and linked to the hold. Fails with `not_held`.
   */
  submitPlan(agent: string, plan: { body: string; runId?: string }): Promise<HoldMessage>;
  /**
   * The reviewer's push-back: a `pushback` message in the agent's thread,
   * linked to the hold, which stays. With `only`, only on the hold the caller
   * saw (`not_held` or `conflict` otherwise, checked in the same step).
   */
  pushBack(agent: string, options: { by: string; body: string; byKind?: AuthorKind; only?: HoldCondition }): Promise<HoldMessage>;
  /**
   * The reviewer approves the direction: the hold lifts (recording who and
   * when). Not approval of the work. With `only`, only the hold the caller
   * saw, with no plan newer than the one it read.
   */
  release(agent: string, options: { by: string; only?: HoldCondition }): Promise<Hold>;
  /** An operator clears the hold (recording who and when); with `only`, only the hold the caller saw. */
  unblock(agent: string, options: { by: string; only?: HoldCondition }): Promise<Hold>;
  /** The agent's active hold, if any. */
  get(agent: string): Promise<Hold | undefined>;
  /** Active holds (or every hold with `all`), newest first. */
  list(query?: HoldQuery): Promise<Hold[]>;
  /** The newest plans and push-backs linked to a hold, oldest of them first, with their bodies (for people). */
  messages(holdId: string, limit?: number): Promise<Array<{ role: HoldMessageRole; message: StoredMessage }>>;
  /** The planning-gate settings in force for an agent (its reviewer channel, whitelist, read ceiling). */
  settingsFor(agent: string): Promise<EffectivePlanningSettings>;
}

export interface HoldsOptions {
  store: HoldsStore;
  evaluator: () => Evaluator;
  clock: () => number;
  /** Records an audit event; must never throw (a failing sink is the caller's to log). */
  audit: (event: AuditEvent) => Promise<void>;
  /**
   * Told the agent's active hold (or none) after every operation that learns
   * it; keeps the gate's known holds current. A read passes `since`, the
   * {@link mark} taken before it asked the store: what was learnt after it stands.
   */
  onHold?: (agent: string, hold: Hold | undefined, since?: number) => void;
  /** A mark of what the gate has learnt so far (the known holds' `mark`). */
  mark?: () => number;
  /** Checks a seat's write against its quota (gate/quotas.ts); a plan to the reviewer counts as `holdPlans`. */
  quota?: QuotaCheck;
}

/** Maps the policy's refusal codes for `hold_allowed` to error codes. */
const REFUSALS: Record<string, ErrorCode> = {
  planning_gate_off: ErrorCode.PlanningGateOff,
  already_held: ErrorCode.AlreadyHeld,
  invalid_hold_kind: ErrorCode.InvalidInput,
};

function checkAgent(agent: unknown): string {
  if (!isValidId(agent)) throw new PlangateError(ErrorCode.InvalidInput, `not a valid agent id: ${JSON.stringify(agent)}`);
  return agent;
}

/**
 * Creates the holds API.
 *
 * @example
 * const holds = createHolds({ store, evaluator: () => engine, clock: Date.now, audit: (e) => sink.record(e) });
 * await holds.place('0xWORKER', { by: 'ops-alice', task: 'Refactor the auth middleware' });
 */
export function createHolds(options: HoldsOptions): Holds {
  const { store, clock, audit } = options;
  const learn = options.onHold ?? (() => undefined);
  const mark = options.mark ?? (() => undefined);
  const iso = (ms: number): string => new Date(ms).toISOString();

  return {
    async place(agent, { by, kind = 'on_demand', task }) {
      checkAgent(agent);
      const [seat, active] = await Promise.all([store.lineage(agent), store.activeHold(agent)]);
      const evaluator = options.evaluator();
      if (evaluator.holdAllowed) {
        const verdict = evaluator.holdAllowed({ agent: seat, kind, ...(active ? { hold: toHoldFact(active) } : {}) });
        if (!verdict.allowed) {
          const code = REFUSALS[verdict.code ?? ''] ?? ErrorCode.PolicyResultInvalid;
          throw new PlangateError(code, verdict.message ?? `a ${kind} hold on ${agent} is refused`);
        }
      } else if (kind === 'reviewer') {
        throw new PlangateError(
          ErrorCode.PolicyUnavailable,
          `the reviewer cannot hold ${agent} now: the policy is unavailable, so whether the planning gate is on is unknown (an on-demand hold still works)`,
        );
      }
      const hold = await store.placeHold({ agent, kind, placedBy: by, placedAt: clock(), ...(task !== undefined ? { task } : {}) });
      learn(agent, hold);
      await audit({ type: 'HoldPlaced', time: iso(hold.placedAt), agent, holdId: hold.id, kind, task: hold.task, by });
      return hold;
    },

    async submitPlan(agent, { body, runId }) {
      checkAgent(agent);
      await options.quota?.(agent, 'holdPlans');
      const at = clock();
      const linked = await store.postHoldMessage(agent, 'plan', {
        thread: agentThread(agent), author: agent, authorKind: 'agent', kind: 'plan', body, at,
        ...(runId !== undefined ? { runId } : {}),
      });
      learn(agent, linked.hold);
      await audit({ type: 'HoldPlanSubmitted', time: iso(at), agent, holdId: linked.hold.id, messageId: linked.message.id, plans: linked.hold.plans });
      return linked;
    },

    async pushBack(agent, { by, body, byKind = 'human', only }) {
      checkAgent(agent);
      const at = clock();
      const linked = await store.postHoldMessage(agent, 'pushback', {
        thread: agentThread(agent), author: by, authorKind: byKind, kind: 'pushback', body, at,
      }, only);
      learn(agent, linked.hold);
      await audit({
        type: 'HoldPushedBack', time: iso(at), agent, holdId: linked.hold.id, messageId: linked.message.id, by, pushBacks: linked.hold.pushBacks,
      });
      return linked;
    },

    async release(agent, { by, only }) {
      checkAgent(agent);
      const hold = await store.endHold(agent, { state: 'released', by, at: clock(), ...(only !== undefined ? { only } : {}) });
      learn(agent, undefined);
      await audit({
        type: 'HoldReleased', time: iso(hold.releasedAt ?? clock()), agent, holdId: hold.id, by, planId: hold.lastPlanId, plans: hold.plans, pushBacks: hold.pushBacks,
      });
      return hold;
    },

    async unblock(agent, { by, only }) {
      checkAgent(agent);
      const hold = await store.endHold(agent, { state: 'cleared', by, at: clock(), ...(only !== undefined ? { only } : {}) });
      learn(agent, undefined);
      await audit({ type: 'HoldUnblocked', time: iso(hold.clearedAt ?? clock()), agent, holdId: hold.id, by });
      return hold;
    },

    async get(agent) {
      // A read may answer from before a hold change learnt meanwhile (a decision, a NOTIFY): that one stands.
      const since = mark();
      const hold = await store.activeHold(checkAgent(agent));
      learn(agent, hold, since);
      return hold;
    },
    async list(query) {
      const since = mark();
      const holds = await store.listHolds(query);
      for (const hold of holds) if (hold.state === 'active') learn(hold.agent, hold, since);
      return holds;
    },
    messages: (holdId, limit) => store.holdMessages(holdId, limit),

    async settingsFor(agent) {
      const seat = await store.lineage(checkAgent(agent));
      const evaluator = options.evaluator();
      if (!evaluator.planning) {
        throw new PlangateError(ErrorCode.PolicyUnavailable, 'the planning-gate settings are unknown: the policy is unavailable');
      }
      return evaluator.planning(seat);
    },
  };
}

/**
 * Lists every active hold, a page of {@link MAX_HOLD_LIMIT} at a time, so
 * that the gate learns each (a held agent stays held if the store fails
 * before its first decision). Returns them. A store whose pages do not move
 * back (one that ignores `before`) fails with `store_failure` after its
 * first page, instead of being asked for the same page forever.
 *
 * @example
 * await listAllActive(gate.holds); // 2,500 holds: three pages
 */
export async function listAllActive(holds: Pick<Holds, 'list'>): Promise<Hold[]> {
  const all: Hold[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await holds.list({ limit: MAX_HOLD_LIMIT, ...(before !== undefined ? { before } : {}) });
    all.push(...page);
    if (page.length < MAX_HOLD_LIMIT) return all;
    const last = (page[page.length - 1] as Hold).id;
    if (before !== undefined && !(Number(last) < Number(before))) {
      throw new PlangateError(ErrorCode.StoreFailure, `the store's hold listing did not page back below hold ${before} (it ignores before): ${all.length} active holds read`);
    }
    before = last;
  }
}
