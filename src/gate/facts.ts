/**
 * Gathering the facts for one call: the acting agent's lineage and active
 * planning hold, the recorded run of the call's run id, the live recorded
 * delegations behind each claimed link, the lineages of the claimed
 * managers the record backs, and the candidate plans (never bodies). The
 * seat, its hold, the backed managers' lineages, the candidate plans and
 * the run are read as one snapshot where the store can (`decisionFacts`,
 * one read transaction in SQLite). Every lookup is bounded by the lineage and the
 * claim, not by the size of the store.
 */
import type { Delegation, DelegationFact, PolicyInput, Run, RunFact } from '../core/types.js';
import type { DecisionFacts, DecisionFactsQuery, DelegationStore, HoldStore, OrgStore, MessageStore, RunStore, SnapshotReads } from '../facts/port.js';
import { toHoldFact } from '../facts/holds.js';
import { candidateQueryFor } from '../facts/snapshot.js';
import type { CheckedCall } from './call.js';

/** The store methods fact gathering uses; `decisionFacts` (one snapshot) when the store has it. */
export type FactSource = Pick<OrgStore, 'lineage'> & Pick<MessageStore, 'candidates'> & Pick<HoldStore, 'activeHold'>
  & Pick<RunStore, 'getRun'> & Pick<DelegationStore, 'delegationsTo'> & Partial<SnapshotReads>;

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
  // A call that names no run and claims no chain (the common case) reads nothing here.
  // The run is read with the other facts when the store can (one snapshot), else on its own.
  const runApart = call.runId !== undefined && !store.decisionFacts;
  let run: Run | undefined;
  let links: Delegation[][] = [];
  if (claimed.length === 0) {
    if (runApart) run = await store.getRun(call.runId as string);
  } else {
    [run, links] = await Promise.all([
      runApart ? store.getRun(call.runId as string) : undefined,
      claimedLinks(store, call),
    ]);
  }
  const backed = links.findIndex((ds) => ds.length === 0);
  const recorded = backed < 0 ? claimed : claimed.slice(0, backed);
  const q: DecisionFactsQuery = { agent: call.agent, delegatedBy: recorded, now: call.now };
  if (call.runId !== undefined) q.runId = call.runId;
  if (options.context) q.context = options.context;
  const facts = store.decisionFacts ? await store.decisionFacts(q) : await lookupByLookup(store, q);
  if (call.runId !== undefined && !runApart) {
    // A store whose snapshot does not include the run (`run` absent) is asked for it now.
    run = facts.run === undefined ? await store.getRun(call.runId) : facts.run ?? undefined;
  }
  const input: PolicyInput = {
    now: call.now,
    call: call.runId !== undefined
      ? { agent: call.agent, tool: call.tool, runId: call.runId, delegatedBy: claimed }
      : { agent: call.agent, tool: call.tool, delegatedBy: claimed },
    agent: facts.agent,
    upstream: facts.upstream,
    messages: facts.messages,
  };
  if (call.args !== undefined) input.call.args = call.args;
  if (call.omittedArgs !== undefined) input.call.omittedArgs = call.omittedArgs;
  if (call.annotations !== undefined) input.call.annotations = call.annotations;
  if (claimed.length > 0) input.delegations = links.slice(0, recorded.length).flat().map(toDelegationFact);
  if (run) input.run = toRunFact(run);
  if (facts.hold) input.hold = toHoldFact(facts.hold);
  return input;
}

/**
 * The live recorded delegations behind each claimed link, in claim order.
 * A link claimed twice (a chain that loops, `[X, W, X, W, …]`) is looked up
 * once: the chain's length is capped by the call schema (16), and the
 * lookups by the distinct (worker, manager) pairs in it, never by what it repeats.
 */
async function claimedLinks(store: FactSource, call: CheckedCall): Promise<Delegation[][]> {
  const claimed = call.delegatedBy;
  const workers = [call.agent, ...claimed.slice(0, -1)];
  const asked = new Map<string, Promise<Delegation[]>>();
  return Promise.all(claimed.map((manager, i) => {
    const worker = workers[i] as string;
    const key = JSON.stringify([worker, manager]);
    let found = asked.get(key);
    if (!found) {
      // Asked per manager: other seats' delegations to the same worker never crowd the claimed one out.
      found = store.delegationsTo(worker, call.now, call.runId, manager).then((ds) => ds.filter((d) => d.manager === manager));
      asked.set(key, found);
    }
    return found;
  }));
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

/** What the policy sees of a run. */
export function toRunFact(r: Run): RunFact {
  return { id: r.id, seat: r.seat, delegationId: r.delegationId, startedAt: r.startedAt, expiresAt: r.expiresAt, endedAt: r.endedAt };
}

/** What the policy sees of a delegation. */
export function toDelegationFact(d: Delegation): DelegationFact {
  return { id: d.id, manager: d.manager, worker: d.worker, runId: d.runId, createdAt: d.createdAt, expiresAt: d.expiresAt, revokedAt: d.revokedAt };
}
