/**
 * Gathering the facts for one call: the acting agent's lineage and active
 * planning hold, the recorded run of the call's run id, the live recorded
 * delegations behind each claimed link, the lineages of the claimed
 * managers the record backs, and the candidate plans (never bodies).
 * Every lookup is bounded by the lineage and the claim, not by the size of
 * the store.
 */
import { threadsToFetch } from '../core/threads.js';
import type { Delegation, DelegationFact, Lineage, PolicyInput, Run, RunFact } from '../core/types.js';
import type { CandidateQuery, DelegationStore, HoldStore, OrgStore, MessageStore, RunStore } from '../facts/port.js';
import { toHoldFact } from '../facts/holds.js';
import type { CheckedCall } from './call.js';

/** The store methods fact gathering uses. */
export type FactSource = Pick<OrgStore, 'lineage'> & Pick<MessageStore, 'candidates'> & Pick<HoldStore, 'activeHold'>
  & Pick<RunStore, 'getRun'> & Pick<DelegationStore, 'delegationsTo'>;

export interface GatherOptions {
  /** Also fetch recent non-candidate messages so an explanation can say why they did not count. */
  context?: number;
}

/**
 * Builds the policy input for a validated call. The claimed chain is
 * looked up, never believed: only the managers whose every link down to the
 * agent has a live recorded delegation get their lineage and plans fetched;
 * the policy walks the same records to decide how far the claim counts.
 *
 * @example
 * const input = await gatherInput(store, checkCall(call, Date.now()));
 */
export async function gatherInput(store: FactSource, call: CheckedCall, options: GatherOptions = {}): Promise<PolicyInput> {
  const claimed = call.delegatedBy;
  const workers = [call.agent, ...claimed.slice(0, -1)];
  const [hold, agent, run, links] = await Promise.all([
    store.activeHold(call.agent),
    store.lineage(call.agent),
    call.runId !== undefined ? store.getRun(call.runId) : Promise.resolve(undefined),
    Promise.all(claimed.map((manager, i) => store.delegationsTo(workers[i] as string, call.now, call.runId)
      .then((ds) => ds.filter((d) => d.manager === manager)))),
  ]);
  const backed = links.findIndex((ds) => ds.length === 0);
  const recorded = backed < 0 ? claimed : claimed.slice(0, backed);
  const upstream: Lineage[] = await Promise.all(recorded.map((id) => store.lineage(id)));
  const ownThreads = threadsToFetch(agent);
  const query: CandidateQuery = {
    now: call.now,
    ...(call.runId !== undefined ? { runId: call.runId } : {}),
    plansBy: [{ author: agent.id, threads: ownThreads }, ...upstream.map((seat) => ({ author: seat.id, threads: threadsToFetch(seat) }))],
    ...(options.context ? { context: { threads: ownThreads, author: agent.id, perThread: options.context } } : {}),
  };
  const messages = await store.candidates(query);
  const delegations = links.slice(0, recorded.length).flat().map(toDelegationFact);
  return {
    now: call.now,
    call: {
      agent: call.agent,
      tool: call.tool,
      ...(call.runId !== undefined ? { runId: call.runId } : {}),
      delegatedBy: claimed,
      ...(call.args !== undefined ? { args: call.args } : {}),
    },
    agent,
    upstream,
    ...(claimed.length > 0 ? { delegations } : {}),
    ...(run ? { run: toRunFact(run) } : {}),
    messages,
    ...(hold ? { hold: toHoldFact(hold) } : {}),
  };
}

/** What the policy sees of a run. */
export function toRunFact(r: Run): RunFact {
  return { id: r.id, seat: r.seat, delegationId: r.delegationId, startedAt: r.startedAt, expiresAt: r.expiresAt, endedAt: r.endedAt };
}

/** What the policy sees of a delegation. */
export function toDelegationFact(d: Delegation): DelegationFact {
  return { id: d.id, manager: d.manager, worker: d.worker, runId: d.runId, createdAt: d.createdAt, expiresAt: d.expiresAt, revokedAt: d.revokedAt };
}
