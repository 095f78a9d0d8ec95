/**
 * The engine self-test: a freshly loaded engine must answer one effective
 * lookup and one decision on a synthetic call before it is put in force.
 */
import type { PolicyInput, RulesData } from '../core/types.js';
import { Engine } from '../engine/policy.js';
import type { PolicyBytes } from '../engine/source.js';
import { compilePolicy } from './compile.js';

/**
 * Linear memory of the engines the runtime loads: 1 MiB to start (it grows
 * as evaluations need, up to 256 MiB). Smaller than a one-off engine's
 * start, because every reload allocates a fresh instance, and large fresh
 * allocations make the garbage collector pause decisions during reloads.
 */
export const RUNTIME_ENGINE_MEMORY = { initial: 16, maximum: 4096 } as const;

/**
 * Loads the policy with the rules and checks that it decides: one effective
 * lookup and one decision on a synthetic call. Throws `policy_unavailable`
 * (or `policy_result_invalid`) when it does not.
 *
 * @example
 * const engine = await loadCheckedEngine(inputs.data, inputs.policy, inputs.revision);
 */
export async function loadCheckedEngine(data: RulesData, policy: PolicyBytes, revision: string): Promise<Engine> {
  const module = await compilePolicy(policy);
  const engine = await Engine.load({ data, rulesRevision: revision, wasm: module, memory: RUNTIME_ENGINE_MEMORY });
  const seat = { id: 'plangate.selftest', known: false, crews: [] };
  const input: PolicyInput = { now: 0, call: { agent: seat.id, tool: 'plangate.selftest', delegatedBy: [] }, agent: seat, upstream: [], messages: [] };
  engine.effective(seat);
  engine.decide(input);
  return engine;
}

