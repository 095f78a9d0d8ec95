/**
 * Policy inputs for the policy benches (bench:policy-parts,
 * bench:policy-profile): calls of the bench's world (bench/world.ts) turned
 * into inputs by the gate, on a memory store of `messages` messages.
 */
import { createMemoryAuditSink } from '../src/audit/memory.js';
import type { PolicyInput, RulesData } from '../src/core/types.js';
import { Engine } from '../src/engine/policy.js';
import { createMemoryStore } from '../src/facts/memory/store.js';
import { createGate } from '../src/gate/gate.js';
import { benchRules, buildOrg, makeCalls, messageStream, NOW } from './world.js';

/**
 * @example
 * const { rules, inputs } = await policyInputs(300_000, 2_000);
 */
export async function policyInputs(messages: number, calls: number): Promise<{ rules: RulesData; inputs: PolicyInput[] }> {
  const org = buildOrg();
  const rules = benchRules(org);
  const store = createMemoryStore();
  for (const c of [...org.crews].sort((a, b) => a.depth - b.depth)) await store.putCrew({ id: c.id, parent: c.parent });
  for (const a of org.agents) await store.putAgent(a);
  const stream = messageStream(org, 1);
  const posted = Array.from({ length: messages }, () => stream.next()).sort((a, b) => a.at - b.at);
  for (const m of posted) {
    await store.postMessage({ thread: m.thread, author: m.author, authorKind: m.authorKind, kind: m.kind, body: m.body, at: m.at, ...(m.runId ? { runId: m.runId } : {}) });
  }
  const engine = await Engine.load({ data: rules, rulesRevision: 'bench' });
  const gate = createGate({ engine, store, audit: createMemoryAuditSink(), clock: () => NOW });
  const inputs: PolicyInput[] = [];
  for (const call of makeCalls(org, org.agents.map((a) => a.id), calls, 11, stream.runPlanOf)) inputs.push(await gate.inputFor(call));
  return { rules, inputs };
}
