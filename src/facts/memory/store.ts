/**
 * The in-memory store driver: for tests, embedding and `--store memory`.
 * Nothing survives the process.
 *
 * Messages are kept in sorted arrays (by time, then id) inside maps keyed
 * the way `candidates()` looks them up, so a decision costs a few map hits
 * and binary searches whatever else the store holds. The org, holds and
 * runs are halves of their own (org.ts, holds.ts, runs.ts).
 */
import { ErrorCode, PlangateError } from '../../core/errors.js';
import type { Lineage, MessageFact, NewMessage, StoredMessage } from '../../core/types.js';
import type { CandidateQuery, DecisionFacts, DecisionFactsQuery, Store } from '../port.js';
import { threadsToFetch } from '../../core/threads.js';
import { checkCandidateQuery, checkDecisionFactsQuery, checkListThread, checkNewMessage, messageRowId } from '../validate.js';
import { createMemoryHolds } from './holds.js';
import { createMemoryOrg } from './org.js';
import { copy, entry, factsOf, insertSorted, newest, newestOne, type Row, type Sorted } from './rows.js';
import { createMemoryRuns } from './runs.js';
import { countTimes } from './quotas.js';
import { agentThread } from '../../core/threads.js';
import type { QuotaCountQuery, QuotaCounts } from '../../core/quotas.js';
import { checkQuotaCountQuery } from '../quotas.js';
import { createMemoryApprovals } from './approvals.js';

/** What a known agent's decisions look up: its crews, nearest first, and the threads it speaks in. */
interface Seat {
  crews: readonly string[];
  threads: readonly string[];
  /** The agent's plans in each of `threads` (the live sorted lists, undefined for none yet). */
  plans: ReadonlyArray<Sorted | undefined>;
}

/**
 * Opens an empty in-memory store.
 *
 * Posting a message does not require the thread's agent or crew to exist
 * in the org: the org and the messages are independent, and whether a
 * thread counts for an agent is the policy's question.
 *
 * @example
 * const store = createMemoryStore();
 * await store.putCrew({ id: 'desk', parent: null });
 * await store.putAgent({ id: '0xWORKER', crew: 'desk' });
 * await store.postMessage({ thread: 'agent:0xWORKER', author: '0xWORKER', authorKind: 'agent', kind: 'plan', body: 'merge #12' });
 */
export function createMemoryStore(): Store {
  let closed = false;
  let nextId = 1;
  /** thread → all messages. */
  const byThread = new Map<string, Sorted>();
  /** id → message: ids are 1, 2, 3…, so a dense array. */
  const byId: Row[] = [];
  /** author → messages written as an agent, any thread. */
  const byAgentAuthor = new Map<string, Sorted>();
  /** author → thread → `plan` messages written as an agent. */
  const plans = new Map<string, Map<string, Sorted>>();
  /** author → thread → run id → run-tagged `plan` messages written as an agent. */
  const runPlans = new Map<string, Map<string, Map<string, Sorted>>>();

  function open(): void {
    if (closed) throw new PlangateError(ErrorCode.StoreFailure, 'the memory store is closed');
  }

  /**
   * Known agents' crews, threads and plan lists, kept between org changes
   * (every putCrew and putAgent empties it; an agent's first plan in a
   * thread drops its entry), so a decision does not walk the crew chain,
   * build thread names or look its lists up. Unknown ids are not kept: the
   * cache is bounded by the org.
   */
  const seats = new Map<string, Seat>();
  const org = createMemoryOrg(open, () => seats.clear());

  /**
   * One string per distinct thread, author, kind and run id: rows share
   * them, so a store of many messages holds each name once and the facts
   * of a decision point at a few strings read often.
   */
  const names = new Map<string, string>();
  function name(s: string): string {
    const known = names.get(s);
    if (known !== undefined) return known;
    names.set(s, s);
    return s;
  }

  /** Stores a message (validated); synchronous, so a hold can link it in the same step. */
  function insert(message: NewMessage): StoredMessage {
    const m = checkNewMessage(message);
    const seq = nextId++;
    const row: Row = {
      thread: name(m.thread), author: name(m.author), authorKind: m.authorKind, kind: name(m.kind), body: m.body, at: m.at,
      id: String(seq), seq,
    };
    if (m.runId !== undefined) row.runId = name(m.runId);
    byId[seq] = row;
    insertSorted(entry(byThread, row.thread, () => []), row);
    if (row.authorKind === 'agent') {
      insertSorted(entry(byAgentAuthor, row.author, () => []), row);
      if (row.kind === 'plan') {
        const byThreadPlans = entry(plans, row.author, () => new Map<string, Sorted>());
        let list = byThreadPlans.get(row.thread);
        if (list === undefined) {
          byThreadPlans.set(row.thread, (list = []));
          // The author's kept seat has no list for this thread yet.
          seats.delete(row.author);
        }
        insertSorted(list, row);
        if (row.runId !== undefined) {
          const byThreadRun = entry(runPlans, row.author, () => new Map<string, Map<string, Sorted>>());
          insertSorted(entry(entry(byThreadRun, row.thread, () => new Map()), row.runId, () => []), row);
        }
      }
    }
    return copy(row);
  }

  const { readActiveHold, ...holds } = createMemoryHolds(open, insert);
  const { readRun, runTimes, delegationTimes, ...runs } = createMemoryRuns(open);
  const { approvalTimes, ...approvals } = createMemoryApprovals(open);

  /** A seat's rows of a kind, their times ascending (messages and plans from their sorted lists). */
  function quotaCountsOf(query: QuotaCountQuery): QuotaCounts {
    const q = checkQuotaCountQuery(query);
    const times = (rows: Sorted | undefined): Sorted => rows ?? [];
    switch (q.kind) {
      case 'messages': return countTimes(times(byAgentAuthor.get(q.seat)), q);
      case 'holdPlans': return countTimes(times(plans.get(q.seat)?.get(agentThread(q.seat))), q, readActiveHold(q.seat)?.plans ?? 0);
      case 'runs': return countTimes(runTimes.of(q.seat), q);
      case 'approvalRequests': return countTimes(approvalTimes.of(q.seat), q);
      default: return countTimes(delegationTimes.of(q.seat), q);
    }
  }

  function seatOf(agentId: string): Seat | undefined {
    let seat = seats.get(agentId);
    if (seat === undefined) {
      const crew = org.crewOf(agentId);
      if (crew === undefined) return undefined;
      const crews = org.chain(crew);
      const threads = threadsToFetch({ id: agentId, known: true, crews }).map((t) => names.get(t) ?? t);
      const byThread = plans.get(agentId);
      seat = { crews, threads, plans: threads.map((t) => byThread?.get(t)) };
      seats.set(agentId, seat);
    }
    return seat;
  }

  function lineageOf(agentId: string): Lineage {
    const seat = seatOf(agentId);
    // A copy: what a caller does with the lineage never reaches the record.
    return seat === undefined ? { id: agentId, known: false, crews: [] } : { id: agentId, known: true, crews: seat.crews.slice() };
  }

  /** The newest plan by `author` in each of `threads` (and the newest tagged `runId`), into `found`. */
  function plansInto(found: Row[], author: string, threads: readonly string[], now: number, runId: string | undefined): void {
    const byThread = plans.get(author);
    // Run-tagged plans are plans: an author with none has neither.
    if (byThread === undefined) return;
    const runByThread = runId === undefined ? undefined : runPlans.get(author);
    for (const thread of threads) {
      const plan = newestOne(byThread.get(thread), now);
      if (plan) found.push(plan);
      if (runByThread !== undefined) {
        const runPlan = newestOne(runByThread.get(thread)?.get(runId as string), now);
        if (runPlan) found.push(runPlan);
      }
    }
  }

  /** {@link plansInto} for a seat's own threads, through the lists its kept seat holds. */
  function seatPlansInto(found: Row[], author: string, now: number, runId: string | undefined): void {
    const seat = seatOf(author);
    if (seat === undefined) return plansInto(found, author, threadsOf(author), now, runId);
    const runByThread = runId === undefined ? undefined : runPlans.get(author);
    for (let i = 0; i < seat.threads.length; i++) {
      const plan = newestOne(seat.plans[i], now);
      if (plan) found.push(plan);
      if (runByThread !== undefined) {
        const runPlan = newestOne(runByThread.get(seat.threads[i] as string)?.get(runId as string), now);
        if (runPlan) found.push(runPlan);
      }
    }
  }

  function candidatesOf(q: CandidateQuery): MessageFact[] {
    checkCandidateQuery(q);
    const found: Row[] = [];
    for (const { author, threads } of q.plansBy) plansInto(found, author, threads, q.now, q.runId);
    if (q.context) contextInto(found, q.context.threads, q.context.author, q.now, q.context.perThread);
    return factsOf(found);
  }

  /** The newest `perThread` messages in each of `threads` and by `author` (as an agent), into `found`. */
  function contextInto(found: Row[], threads: readonly string[], author: string, now: number, perThread: number): void {
    for (const thread of threads) found.push(...newest(byThread.get(thread), now, perThread));
    found.push(...newest(byAgentAuthor.get(author), now, perThread));
  }

  /** The threads a seat's plans are looked up in (the candidate query's, see facts/snapshot.ts). */
  function threadsOf(agentId: string): readonly string[] {
    return seatOf(agentId)?.threads ?? threadsToFetch({ id: agentId, known: false, crews: [] });
  }

  return {
    ...holds,
    ...runs,
    ...approvals,
    putCrew: org.putCrew,
    putAgent: org.putAgent,
    getCrew: org.getCrew,
    getAgent: org.getAgent,
    listCrews: org.listCrews,
    listAgents: org.listAgents,

    async lineage(agentId: string): Promise<Lineage> {
      open();
      return lineageOf(agentId);
    },

    async postMessage(message: NewMessage): Promise<StoredMessage> {
      open();
      return insert(message);
    },

    async candidates(q: CandidateQuery): Promise<MessageFact[]> {
      open();
      return candidatesOf(q);
    },

    /**
     * Synchronous from start to end, so the facts are one snapshot. Looks
     * up what `candidates(candidateQueryFor(q, …))` would, without building
     * the query.
     */
    async decisionFacts(q: DecisionFactsQuery): Promise<DecisionFacts> {
      open();
      checkDecisionFactsQuery(q);
      const agent = lineageOf(q.agent);
      const upstream = q.delegatedBy.length === 0 ? [] : q.delegatedBy.map(lineageOf);
      const hold = readActiveHold(q.agent);
      const found: Row[] = [];
      const own = threadsOf(q.agent);
      seatPlansInto(found, q.agent, q.now, q.runId);
      for (const seat of q.delegatedBy) seatPlansInto(found, seat, q.now, q.runId);
      if (q.context) contextInto(found, own, q.agent, q.now, q.context);
      const facts: DecisionFacts = hold ? { agent, upstream, hold, messages: factsOf(found) } : { agent, upstream, messages: factsOf(found) };
      if (q.runId !== undefined) facts.run = readRun(q.runId) ?? null;
      return facts;
    },

    async quotaCounts(q: QuotaCountQuery): Promise<QuotaCounts> {
      open();
      return quotaCountsOf(q);
    },

    async listThread(thread: string, limit: number): Promise<StoredMessage[]> {
      open();
      checkListThread(thread, limit);
      return newest(byThread.get(thread), Infinity, limit).map(copy);
    },

    async getMessage(id: string): Promise<StoredMessage | undefined> {
      open();
      const seq = messageRowId(id);
      const row = seq === undefined ? undefined : byId[seq];
      return row === undefined ? undefined : copy(row);
    },

    async close(): Promise<void> {
      closed = true;
    },
  };
}
