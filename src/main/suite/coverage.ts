/**
 * Which rules no case exercised: every plan-required rule (by scope), every
 * tool pattern and every planning-gate profile. What a decision used is read
 * from the policy's own answers — the scopes its settings came from, the
 * profile in force for the seat — and whether a pattern matches a tool is
 * asked of the policy too, with a probe rule set holding that one pattern.
 */
import type { Decision, Lineage, PolicyInput, RulesData } from '../../core/types.js';
import { Engine, type CompiledPolicy } from '../../engine/policy.js';
import { emptyRulesData } from '../../rules/normalize.js';

/** A rule no case exercised, with where it is defined. */
export interface Unexercised {
  kind: 'workspace' | 'crew' | 'agent' | 'pattern' | 'profile';
  /** The crew or agent id, the pattern, or the profile name (absent for the workspace rule). */
  name?: string;
  source: string;
}

/** What the cases of one directory used. */
export class CoverageRecorder {
  readonly scopes = new Set<string>();
  readonly profiles = new Set<string>();
  /** Tools the cases called that no exact name classifies. */
  readonly tools = new Set<string>();

  /** Notes what one decision used. */
  record(decision: Decision, seat: Lineage, engine: Engine): void {
    for (const s of Object.values(decision.settings)) {
      if (s.scope === 'workspace') this.scopes.add('workspace');
      else if (s.scope !== 'default') this.scopes.add(`${s.scope}:${s.id}`);
    }
    const profile = engine.planning(seat).profile.name;
    if (profile !== null) this.profiles.add(profile);
    this.tools.add(decision.tool);
  }
}

/**
 * The rules of `data` that the recorded cases did not exercise.
 *
 * @example
 * const unexercised = await coverageOf(data, policyBytes, recorder); // [{ kind: 'pattern', name: 'payments.*', source: 'tools.yaml:9:7' }]
 */
export async function coverageOf(data: RulesData, policy: Uint8Array, used: CoverageRecorder): Promise<Unexercised[]> {
  const out: Unexercised[] = [];
  const { workspace, crews, agents } = data.planRequired;
  if (workspace && !used.scopes.has('workspace')) out.push({ kind: 'workspace', source: workspace.source });
  for (const [id, rule] of Object.entries(crews)) if (!used.scopes.has(`crew:${id}`)) out.push({ kind: 'crew', name: id, source: rule.source });
  for (const [id, rule] of Object.entries(agents)) if (!used.scopes.has(`agent:${id}`)) out.push({ kind: 'agent', name: id, source: rule.source });
  const tools = [...used.tools].filter((t) => data.tools.exact[t] === undefined);
  if (data.tools.patterns.length > 0) {
    const module = await compile(policy);
    for (const p of data.tools.patterns) {
      if (!(await patternMatchesAny(module, p.pattern, tools))) out.push({ kind: 'pattern', name: p.pattern, source: p.source });
    }
  }
  for (const [name, profile] of Object.entries(data.planningGate?.profiles ?? {})) {
    if (!used.profiles.has(name)) out.push({ kind: 'profile', name, source: profile.source });
  }
  return out;
}

/** Whether the policy, given only this pattern (as `spend`, everything else `say`), classifies any of the tools by it. */
async function patternMatchesAny(module: CompiledPolicy, pattern: string, tools: readonly string[]): Promise<boolean> {
  if (tools.length === 0) return false;
  const data = emptyRulesData();
  data.tools.default = 'say';
  data.tools.patterns = [{ pattern, class: 'spend', source: 'probe' }];
  const probe = await Engine.load({ data, wasm: module, memory: { initial: 16, maximum: 256 } });
  const seat = { id: 'plangate.probe', known: false, crews: [] };
  return tools.some((tool) => {
    const input: PolicyInput = { now: 0, call: { agent: seat.id, tool, delegatedBy: [] }, agent: seat, upstream: [], messages: [] };
    return probe.decide(input).class === 'spend';
  });
}

async function compile(bytes: Uint8Array): Promise<CompiledPolicy> {
  const wasm = (globalThis as unknown as { WebAssembly: { compile(b: Uint8Array): Promise<CompiledPolicy> } }).WebAssembly;
  return wasm.compile(bytes);
}
