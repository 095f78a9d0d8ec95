/**
 * The gate: decide(call) = validate → gather facts → evaluate the policy →
 * audit a refusal. It declares the narrow interfaces it needs; the
 * composition root (src/main) picks the concrete store, engine and sink.
 */
import { PlanRequiredError } from '../core/errors.js';
import type { Call, Decision, EffectiveSettings, NewMessage, PolicyInput, StoredMessage } from '../core/types.js';
import type { AuditSink, PlanRequiredBlocked } from '../audit/port.js';
import type { Evaluator } from '../engine/policy.js';
import type { MessageStore, OrgStore } from '../facts/port.js';
import { checkCall } from './call.js';
import { gatherInput } from './facts.js';

/** The store methods the gate uses. */
export type GateStore = Pick<OrgStore, 'lineage'> & Pick<MessageStore, 'candidates' | 'postMessage'>;

export interface GateOptions {
  /** The compiled policy with its rules; read once per decision, so a swap never mixes rule sets. */
  engine: Evaluator | { current(): Evaluator };
  store: GateStore;
  /** Where `PlanRequiredBlocked` events go; a failing sink never changes a decision. */
  audit?: AuditSink;
  /** Epoch milliseconds; defaults to Date.now. */
  clock?: () => number;
  /** Called when the audit sink fails (the decision stands). Defaults to a line on stderr. */
  onAuditError?: (error: unknown, event: PlanRequiredBlocked) => void;
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
   * Runs `effect` only when the call is allowed; otherwise throws a
   * `PlanRequiredError` and never invokes `effect`.
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

  async function inputFor(call: Call, opts: DecideOptions = {}): Promise<PolicyInput> {
    const checked = checkCall(call, clock());
    return gatherInput(options.store, checked, opts.explain ? { context: EXPLAIN_CONTEXT } : {});
  }

  async function record(input: PolicyInput, decision: Decision): Promise<void> {
    if (!options.audit) return;
    const event = blockedEvent(input, decision);
    try {
      await options.audit.record(event);
    } catch (error) {
      onAuditError(error, event);
    }
  }

  async function decide(call: Call, opts: DecideOptions = {}): Promise<Decision> {
    const input = await inputFor(call, opts);
    const decision = current().decide(input);
    if (!decision.allowed) await record(input, decision);
    return decision;
  }

  return {
    decide,
    inputFor,
    async explain(call) {
      const input = await inputFor(call, { explain: true });
      return { decision: current().decide(input), input };
    },
    async guard<T>(call: Call, effect: () => T | Promise<T>): Promise<T> {
      const decision = await decide(call);
      if (!decision.allowed) throw new PlanRequiredError(decision);
      return effect();
    },
    say: (message) => options.store.postMessage(message),
    async settingsFor(agent) {
      const seat = await options.store.lineage(checkCall({ agent, tool: 'x' }, 0).agent);
      return current().effective(seat);
    },
  };
}

/** The audit record of a refusal: who, what, under which rule. Never a message body. */
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
    code: decision.code ?? `plan_required:${decision.tool}:none`,
    runId: input.call.runId ?? null,
    rule: {
      scope: rule.scope,
      ...(rule.id !== undefined ? { id: rule.id } : {}),
      ...(rule.source !== undefined ? { source: rule.source } : {}),
    },
  };
}
