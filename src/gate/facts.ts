/**
 * Gathering the facts for one call: the acting agent's lineage and active
 * planning hold, its delegation chain's lineages, and the candidate plans
 * (never bodies).
 * Every lookup is bounded by the lineage, not by the size of the store.
 */
import { threadsToFetch } from '../core/threads.js';
import type { PolicyInput } from '../core/types.js';
import type { CandidateQuery, HoldStore, OrgStore, MessageStore } from '../facts/port.js';
import { toHoldFact } from '../facts/holds.js';
import type { CheckedCall } from './call.js';

/** The store methods fact gathering uses. */
export type FactSource = Pick<OrgStore, 'lineage'> & Pick<MessageStore, 'candidates'> & Pick<HoldStore, 'activeHold'>;

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
  const [hold, lineages] = await Promise.all([
    store.activeHold(call.agent),
    Promise.all([call.agent, ...call.delegatedBy].map((id) => store.lineage(id))),
  ]);
  const [agent, ...upstream] = lineages;
  if (!agent) throw new Error('unreachable: lineage of the acting agent');
  const ownThreads = threadsToFetch(agent);
  const query: CandidateQuery = {
    now: call.now,
    ...(call.runId !== undefined ? { runId: call.runId } : {}),
    plansBy: [{ author: agent.id, threads: ownThreads }, ...upstream.map((seat) => ({ author: seat.id, threads: threadsToFetch(seat) }))],
    ...(options.context ? { context: { threads: ownThreads, author: agent.id, perThread: options.context } } : {}),
  };
  const messages = await store.candidates(query);
  return {
    now: call.now,
    call: {
      agent: call.agent,
      tool: call.tool,
      ...(call.runId !== undefined ? { runId: call.runId } : {}),
      delegatedBy: call.delegatedBy,
      ...(call.args !== undefined ? { args: call.args } : {}),
      ...(call.omittedArgs !== undefined ? { omittedArgs: call.omittedArgs } : {}),
      ...(call.annotations !== undefined ? { annotations: call.annotations } : {}),
    },
    agent,
    upstream,
    messages,
    ...(hold ? { hold: toHoldFact(hold) } : {}),
  };
}
