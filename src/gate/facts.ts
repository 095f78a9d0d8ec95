/**
 * Gathering the facts for one call, as one snapshot where the store can: the acting agent's lineage and active
 * planning hold, its delegation chain's lineages, and the candidate plans
 * (never bodies).
 * Every lookup is bounded by the lineage, not by the size of the store.
 */
import type { PolicyInput } from '../core/types.js';
import type { DecisionFacts, DecisionFactsQuery, HoldStore, OrgStore, MessageStore, SnapshotReads } from '../facts/port.js';
import { candidateQueryFor } from '../facts/snapshot.js';
import { toHoldFact } from '../facts/holds.js';
import type { CheckedCall } from './call.js';

/** The store methods fact gathering uses; `decisionFacts` (one snapshot) when the store has it. */
export type FactSource = Pick<OrgStore, 'lineage'> & Pick<MessageStore, 'candidates'> & Pick<HoldStore, 'activeHold'> & Partial<SnapshotReads>;

export interface GatherOptions {
  /** Also fetch recent non-candidate messages so an explanation can say why they did not count. */
  context?: number;
}

/**
 * Builds the policy input for a validated call.
 *
 * @example
 * const input = await gatherInput(store, checkCall(call, Date.now()));
 */
export async function gatherInput(store: FactSource, call: CheckedCall, options: GatherOptions = {}): Promise<PolicyInput> {
  const q: DecisionFactsQuery = { agent: call.agent, delegatedBy: call.delegatedBy, now: call.now };
  if (call.runId !== undefined) q.runId = call.runId;
  if (options.context) q.context = options.context;
  const facts = store.decisionFacts ? await store.decisionFacts(q) : await lookupByLookup(store, q);
  const input: PolicyInput = {
    now: call.now,
    call: call.runId !== undefined
      ? { agent: call.agent, tool: call.tool, runId: call.runId, delegatedBy: call.delegatedBy }
      : { agent: call.agent, tool: call.tool, delegatedBy: call.delegatedBy },
    agent: facts.agent,
    upstream: facts.upstream,
    messages: facts.messages,
  };
  if (call.args !== undefined) input.call.args = call.args;
  if (call.omittedArgs !== undefined) input.call.omittedArgs = call.omittedArgs;
  if (facts.hold) input.hold = toHoldFact(facts.hold);
  return input;
}

/** For a store without `decisionFacts`: the same facts, one lookup at a time (not one snapshot). */
async function lookupByLookup(store: FactSource, q: DecisionFactsQuery): Promise<DecisionFacts> {
  const [hold, lineages] = await Promise.all([
    store.activeHold(q.agent),
    Promise.all([q.agent, ...q.delegatedBy].map((id) => store.lineage(id))),
  ]);
  const [agent, ...upstream] = lineages;
  if (!agent) throw new Error('unreachable: lineage of the acting agent');
  const messages = await store.candidates(candidateQueryFor(q, agent, upstream));
  return hold ? { agent, upstream, hold, messages } : { agent, upstream, messages };
}
