/**
 * The gate: decide(call) = validate → gather facts → evaluate the policy →
 * audit a refusal. It declares the narrow interfaces it needs; the
 * composition root (src/main) picks the concrete store, engine and sink.
 */
import { ErrorCode, PlangateError, refusalCode, toError } from '../core/errors.js';
import { FAIL_CLOSED_REVIEWER_CHANNEL, heldWhileFailing, HOLD_ON_STORE_FAILURE } from '../core/failclosed.js';
import { failOpenDecision, PLAN_REQUIRED_ON_STORE_FAILURE } from '../core/failopen.js';
import type { Call, Decision, EffectiveSettings, HoldKind, NewMessage, PolicyInput, StoredMessage } from '../core/types.js';
import type { AuditEvent, AuditSink, PlanningHoldBlocked, PlanRequiredBlocked } from '../audit/port.js';
import type { Evaluator } from '../engine/policy.js';
import type { HoldStore, MessageStore, OrgStore } from '../facts/port.js';
import { checkCall } from './call.js';
import { gatherInput } from './facts.js';
import { createHolds, type Holds } from './holds.js';
import { KnownHolds } from './known-holds.js';
import { decideWithFacts, planningRefusalEvent, refusalError, type Resolutions } from './refusals.js';

/** The store methods the gate uses. */
export type GateStore = Pick<OrgStore, 'lineage'> & Pick<MessageStore, 'candidates' | 'postMessage'> & HoldStore;

export interface GateOptions {
  /** The compiled policy with its rules; read once per decision, so a swap never mixes rule sets. */
  engine: Evaluator | { current(): Evaluator };
  store: GateStore;
  /** Where `PlanRequiredBlocked` events go; a failing sink never changes a decision. */
  audit?: AuditSink;
  /** Epoch milliseconds; defaults to Date.now. */
  clock?: () => number;
  /** Called when the audit sink fails (the decision stands). Defaults to a line on stderr. */
  onAuditError?: (error: unknown, event: AuditEvent) => void;
  /**
   * The directories the read guard may look in (read roots); a relative path
   * in a call resolves against the first, and a whole-file read outside every
   * root is refused. A function is asked at each decision (the roots may come
   * from the rules in force). Defaults to `[readBase]`, else the working directory.
   */
  readRoots?: readonly string[] | (() => readonly string[]);
  /** One read root (kept for older hosts): the same as `readRoots: [readBase]`. */
  readBase?: string;
  /** Called with every decision `decide`/`guard` return (not `explain`), e.g. to count them. */
  onDecision?: (decision: Decision) => void;
  /**
   * Called when the store fails while gathering the facts; the call then
   * fails open (see core/failopen.ts), or, for an agent known to be held,
   * closed (core/failclosed.ts). Defaults to a line on stderr.
   */
  onStoreError?: (error: unknown, call: Call) => void;
}

export interface DecideOptions {
  /** Also consider recent non-plan messages, so the decision's candidates explain more. */
  explain?: boolean;
}

/** The plan-required gate. */
export interface Gate {
  /** Decides a call. A refusal is a decision (`allowed: false`), not an error. */
  decide(call: Call, options?: DecideOptions): Promise<Decision>;
  /**
   * Runs `effect` only when the call is allowed; otherwise throws (a
   * `PlanRequiredError`, or a `CallRefusedError` for a planning hold or the
   * read guard) and never invokes `effect`.
   */
  guard<T>(call: Call, effect: () => T | Promise<T>): Promise<T>;
  /** Posts a message (a plan, a note, …). Posting is never an effect. */
  say(message: NewMessage): Promise<StoredMessage>;
  /** The plan-required settings in force for an agent, with where each came from. */
  settingsFor(agent: string): Promise<EffectiveSettings>;
  /** The policy input a call would be decided on (for debugging). */
  inputFor(call: Call, options?: DecideOptions): Promise<PolicyInput>;
  /**
   * Decides a call for a person asking why, with recent context messages and
   * the facts used. Not an attempt: nothing is audited.
   */
  explain(call: Call): Promise<{ decision: Decision; input: PolicyInput }>;
  /** Planning holds: place, the reviewer channel (submitPlan), push back, release, unblock, list. */
  holds: Holds;
  /** The last known active holds, kept for when the store fails (core/failclosed.ts). */
  knownHolds: KnownHolds;
}

/** Messages of context per thread fetched for explanations. */
const EXPLAIN_CONTEXT = 5;

/**
 * Creates a gate.
 *
 * @example
 * const gate = createGate({ engine, store, audit });
 * const d = await gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' });
 * if (!d.allowed) console.log(d.code, d.message);
 */
export function createGate(options: GateOptions): Gate {
  const clock = options.clock ?? Date.now;
  const current = (): Evaluator => ('current' in options.engine ? options.engine.current() : options.engine);
  const onAuditError = options.onAuditError ?? ((error: unknown) => {
    process.stderr.write(`plangate: audit sink failed, decision unchanged: ${String(error)}\n`);
  });
  const fixedRoots = Array.isArray(options.readRoots) ? [...options.readRoots] : [options.readBase ?? process.cwd()];
  const readRoots = typeof options.readRoots === 'function' ? options.readRoots : () => fixedRoots;
  const onStoreError = options.onStoreError ?? ((error: unknown, call: Call) => {
    const held = known.get(call.agent) ? 'is held, so it FAILS CLOSED' : 'FAILS OPEN';
    process.stderr.write(`plangate: the store failed, ${call.agent} → ${call.tool} ${held}: ${toError(error).message}\n`);
  });
  const known = new KnownHolds();

  async function inputFor(call: Call, opts: DecideOptions = {}): Promise<PolicyInput> {
    const checked = checkCall(call, clock());
    return gatherInput(options.store, checked, opts.explain ? { context: EXPLAIN_CONTEXT } : {});
  }

  async function record(input: PolicyInput, decision: Decision, resolutions: Resolutions): Promise<void> {
    await audit(planningRefusalEvent(input, decision, resolutions) ?? blockedEvent(input, decision));
  }

  async function audit(event: AuditEvent): Promise<void> {
    if (!options.audit) return;
    try {
      await options.audit.record(event);
    } catch (error) {
      onAuditError(error, event);
    }
  }

  async function decide(call: Call, opts: DecideOptions = {}): Promise<Decision> {
    let input: PolicyInput;
    try {
      input = await inputFor(call, opts);
    } catch (error) {
      // A malformed call is an error; a failing store fails open (plan-required guards legibility).
      if (error instanceof PlangateError && error.code === ErrorCode.InvalidInput) throw error;
      const reason = `the store failed while gathering the facts: ${toError(error).message}`;
      const hold = known.get(call.agent);
      if (hold && HOLD_ON_STORE_FAILURE === 'fail_closed') {
        // A held agent stays held: the last known hold decides, by the host's one rule.
        onStoreError(error, call);
        const closed = heldWhileFailing(call, hold, hold.channel ?? FAIL_CLOSED_REVIEWER_CHANNEL, reason);
        if (!closed.allowed) await audit(heldBlockedEvent(call, closed, hold, clock()));
        options.onDecision?.(closed);
        return closed;
      }
      if (PLAN_REQUIRED_ON_STORE_FAILURE !== 'fail_open') throw error;
      onStoreError(error, call);
      const failed = failOpenDecision(call, reason);
      options.onDecision?.(failed);
      return failed;
    }
    const resolutions: Resolutions = new Map();
    const decision = await decideWithFacts(current(), input, readRoots(), resolutions);
    // What the store said about the agent's hold, with its reviewer channel when the policy named it.
    const channel = decision.failClosed ? undefined : decision.checks?.planningHold.channel;
    known.set(input.agent.id, input.hold ? { ...input.hold, ...(channel !== undefined ? { channel } : {}) } : undefined);
    // A refusal, and a shadow-mode would-be refusal, are audited alike (the latter marked shadow).
    if (!decision.allowed || decision.shadow === true) await record(input, decision, resolutions);
    options.onDecision?.(decision);
    return decision;
  }

  return {
    decide,
    inputFor,
    async explain(call) {
      const input = await inputFor(call, { explain: true });
      return { decision: await decideWithFacts(current(), input, readRoots()), input };
    },
    async guard<T>(call: Call, effect: () => T | Promise<T>): Promise<T> {
      const decision = await decide(call);
      if (!decision.allowed) throw refusalError(decision);
      return effect();
    },
    say: (message) => options.store.postMessage(message),
    holds: createHolds({ store: options.store, evaluator: current, clock, audit, onHold: (agent, hold) => known.set(agent, hold) }),
    knownHolds: known,
    async settingsFor(agent) {
      const seat = await options.store.lineage(checkCall({ agent, tool: 'x' }, 0).agent);
      return current().effective(seat);
    },
  };
}

/** The audit record of a held agent's call refused while the store failed. */
function heldBlockedEvent(call: Call, decision: Decision, hold: { id: string; kind: HoldKind }, now: number): PlanningHoldBlocked {
  return {
    type: 'PlanningHoldBlocked',
    time: new Date(now).toISOString(),
    agent: call.agent,
    crew: null,
    tool: call.tool,
    toolClass: decision.class,
    code: refusalCode(decision),
    runId: call.runId ?? null,
    holdId: hold.id,
    holdKind: hold.kind,
  };
}

/** The audit record of a refusal (or a shadow-mode would-be refusal): who, what, under which rule. Never a message body. */
export function blockedEvent(input: PolicyInput, decision: Decision): PlanRequiredBlocked {
  const rule = decision.settings.mode;
  return {
    type: 'PlanRequiredBlocked',
    time: new Date(input.now).toISOString(),
    agent: input.agent.id,
    crew: input.agent.crews[0] ?? null,
    tool: decision.tool,
    toolClass: decision.class,
    mode: rule.value,
    code: refusalCode(decision),
    runId: input.call.runId ?? null,
    rule: {
      scope: rule.scope,
      ...(rule.id !== undefined ? { id: rule.id } : {}),
      ...(rule.source !== undefined ? { source: rule.source } : {}),
    },
    ...(decision.allowed && decision.shadow === true ? { shadow: true as const } : {}),
  };
}
