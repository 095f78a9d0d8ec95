/**
 * The policy in force, swappable. A reload builds a complete new snapshot
 * (a freshly loaded engine with its rules, or a fail-open evaluator) and
 * swaps it in with one reference assignment. A decision reads `current()`
 * once and evaluates synchronously on what it got, so every decision sees
 * either the old snapshot or the new one, never a mix; an engine that was
 * swapped out stays valid for whoever still holds it.
 */
import { FAIL_CLOSED_REVIEWER_CHANNEL, heldWhileFailing, HOLD_ON_POLICY_FAILURE } from '../core/failclosed.js';
import { explanationOf, failOpenDecision, failOpenSettings } from '../core/failopen.js';
import type { Decision, EffectiveSettings, Lineage, PolicyInput, RulesData } from '../core/types.js';
import type { Engine, Evaluator } from './policy.js';

/** The rules a snapshot was built from. */
export interface RulesInfo {
  /** The rules directory (absolute). */
  dir: string;
  /** The content revision of the rules in force (sha256 over the files, and the environment overlay when there is one). */
  revision: string;
  files: string[];
  data: RulesData;
  loadedAt: Date;
}

/** The compiled policy a snapshot runs. */
export interface PolicyInfo {
  /** sha256 (hex) of the WASM module. */
  sha256: string;
  loadedAt: Date;
}

/** One immutable state of the policy: enforcing with an engine, or failing open. */
export type PolicySnapshot =
  | { readonly kind: 'enforcing'; readonly evaluator: Engine; readonly engine: Engine; readonly rules: RulesInfo; readonly policy: PolicyInfo }
  | { readonly kind: 'failing_open'; readonly evaluator: Evaluator; readonly failOpen: { readonly reason: string; readonly since: Date } };

/**
 * An evaluator for when there is no policy to ask: a held agent's call gets
 * the host's fail-closed hold rule (core/failclosed.ts), every other call
 * the fail-open decision (core/failopen.ts).
 *
 * @example
 * failOpenEvaluator('the rules directory rules is missing').decide(input).failOpen?.reason
 */
export function failOpenEvaluator(reason: string): Evaluator {
  const decide = (input: PolicyInput): Decision => {
    const call = { agent: input.call.agent, tool: input.call.tool, agentKnown: input.agent.known };
    if (input.hold && HOLD_ON_POLICY_FAILURE === 'fail_closed') {
      return heldWhileFailing(call, input.hold, FAIL_CLOSED_REVIEWER_CHANNEL, { cause: 'policy', reason: `the policy is unavailable: ${reason}` });
    }
    return failOpenDecision(call, { cause: 'policy', reason });
  };
  return {
    decide,
    // The same answer as decide, as an explanation: a held agent's is the refusal it gets.
    explain: (input) => explanationOf(decide(input)),
    effective(_seat: Lineage): EffectiveSettings {
      return failOpenSettings();
    },
  };
}

/**
 * Holds the current snapshot; the gate takes it as `engine` and calls
 * `current()` once per decision.
 *
 * @example
 * const holder = new PolicyHolder(failingOpen('starting'));
 * const gate = createGate({ engine: holder, store });
 * holder.swap(enforcing(engine, rules, policy)); // the next decision uses it
 */
export class PolicyHolder {
  private snap: PolicySnapshot;

  constructor(initial: PolicySnapshot) {
    this.snap = initial;
  }

  /** The evaluator in force now. */
  current(): Evaluator {
    return this.snap.evaluator;
  }

  /** The whole snapshot in force now (rules, policy, or why it fails open). */
  snapshot(): PolicySnapshot {
    return this.snap;
  }

  /** Puts `next` in force; decisions already evaluating keep the one they read. */
  swap(next: PolicySnapshot): void {
    this.snap = next;
  }
}

/**
 * A snapshot that enforces with `engine`.
 *
 * @example
 * holder.swap(enforcing(engine, { dir, revision, files, data, loadedAt: new Date() }, { sha256, loadedAt: new Date() }));
 */
export function enforcing(engine: Engine, rules: RulesInfo, policy: PolicyInfo): PolicySnapshot {
  return Object.freeze({ kind: 'enforcing', evaluator: engine, engine, rules: Object.freeze(rules), policy: Object.freeze(policy) });
}

/**
 * A snapshot that fails open for `reason`.
 *
 * @example
 * new PolicyHolder(failingOpen('policy.wasm cannot be read: ENOENT'))
 */
export function failingOpen(reason: string, since: Date = new Date()): PolicySnapshot {
  return Object.freeze({ kind: 'failing_open', evaluator: failOpenEvaluator(reason), failOpen: Object.freeze({ reason, since }) });
}
