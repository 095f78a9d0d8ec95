/**
 * The candidate query of one decision, shared by the drivers that read a
 * decision's facts in one snapshot and by the gate's lookup-at-a-time path.
 */
import { threadsToFetch } from '../core/threads.js';
import type { Lineage } from '../core/types.js';
import type { CandidateQuery, DecisionFactsQuery } from './port.js';

/**
 * The plans to look up for a seat and its delegation chain, each in the
 * threads its author speaks in, plus context for explanations.
 *
 * @example
 * candidateQueryFor({ agent: 'w', delegatedBy: [], now: 0 }, { id: 'w', known: false, crews: [] }, [])
 * // { now: 0, plansBy: [{ author: 'w', threads: ['agent:w', 'org'] }] }
 */
export function candidateQueryFor(q: DecisionFactsQuery, agent: Lineage, upstream: readonly Lineage[]): CandidateQuery {
  const ownThreads = threadsToFetch(agent);
  const plansBy = [{ author: agent.id, threads: ownThreads }];
  for (const seat of upstream) plansBy.push({ author: seat.id, threads: threadsToFetch(seat) });
  const query: CandidateQuery = { now: q.now, plansBy };
  if (q.runId !== undefined) query.runId = q.runId;
  if (q.context) query.context = { threads: ownThreads, author: agent.id, perThread: q.context };
  return query;
}
