/**
 * The in-memory store driver: for tests, embedding and `--store memory`.
 * Nothing survives the process.
 *
 * Messages are kept in sorted arrays (by time, then id) inside maps keyed
 * the way `candidates()` looks them up, so a decision costs a few map hits
 * and binary searches whatever else the store holds.
 */
import { ErrorCode, PlangateError } from '../../core/errors.js';
import type { AuthorKind, Lineage, MessageFact, NewMessage, StoredMessage } from '../../core/types.js';
import type { Agent, CandidateQuery, Crew, Store } from '../port.js';
import {
  checkAgent,
  checkCandidateQuery,
  checkCrew,
  checkCrewPlacement,
  checkListThread,
  checkNewMessage,
  dedupeNewestFirst,
  MAX_CREW_DEPTH,
  toFact,
} from '../validate.js';
import { createMemoryHolds } from './holds.js';
import { createMemoryRuns } from './runs.js';

/** A safety stop for walking crew chains; placement checks keep real chains within MAX_CREW_DEPTH. */
const MAX_CHAIN = MAX_CREW_DEPTH + 1;

interface Row {
  id: string;
  thread: string;
  author: string;
  authorKind: AuthorKind;
  kind: string;
  body: string;
  at: number;
  runId?: string;
}

/** Sorted by `at` ascending, then by insertion (= id) order. */
type Sorted = Row[];

/** The first index whose `at` is greater than `t` (binary search). */
function upperBound(rows: Sorted, t: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((rows[mid] as Row).at <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Inserts after every row with the same or an earlier time: ids grow, so order stays (at, id). */
function insertSorted(rows: Sorted, row: Row): void {
  rows.splice(upperBound(rows, row.at), 0, row);
}

/** The newest `n` rows with `at <= now`, newest first. */
function newest(rows: Sorted | undefined, now: number, n: number): Row[] {
  if (!rows || n <= 0) return [];
  const end = upperBound(rows, now);
  return rows.slice(Math.max(0, end - n), end).reverse();
}

/** `map.get(key)`, creating the entry with `make()` when absent. */
function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    map.set(key, v);
  }
  return v;
}

function copy(row: Row): StoredMessage {
  return { ...toFact(row), body: row.body };
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
  const crews = new Map<string, string | null>();
  const children = new Map<string, Set<string>>();
  const agents = new Map<string, string>();

  /** thread → all messages. */
  const byThread = new Map<string, Sorted>();
  /** author → messages written as an agent, any thread. */
  const byAgentAuthor = new Map<string, Sorted>();
  /** author → thread → `plan` messages written as an agent. */
  const plans = new Map<string, Map<string, Sorted>>();
  /** author → thread → run id → run-tagged `plan` messages written as an agent. */
  const runPlans = new Map<string, Map<string, Map<string, Sorted>>>();

  function open(): void {
    if (closed) throw new PlangateError(ErrorCode.StoreFailure, 'the memory store is closed');
  }

  /** The crew and its ancestors, nearest first. */
  function chain(crewId: string): string[] {
    const out: string[] = [];
    let cur: string | null | undefined = crewId;
    while (cur !== null && cur !== undefined && out.length <= MAX_CHAIN) {
      out.push(cur);
      cur = crews.get(cur);
    }
    return out;
  }

  /** How many levels of crews hang below `id` (0 for a leaf or an unknown crew). */
  function height(id: string, depth = 0): number {
    if (depth > MAX_CHAIN) return depth;
    let h = 0;
    for (const c of children.get(id) ?? []) h = Math.max(h, 1 + height(c, depth + 1));
    return h;
  }

  /** Stores a message (validated); synchronous, so a hold can link it in the same step. */
  function insert(message: NewMessage): StoredMessage {
    const m = checkNewMessage(message);
    const row: Row = { ...m, id: String(nextId++) };
    insertSorted(entry(byThread, row.thread, () => []), row);
    if (row.authorKind === 'agent') {
      insertSorted(entry(byAgentAuthor, row.author, () => []), row);
      if (row.kind === 'plan') {
        insertSorted(entry(entry(plans, row.author, () => new Map()), row.thread, () => []), row);
        if (row.runId !== undefined) {
          const byThreadRun = entry(runPlans, row.author, () => new Map<string, Map<string, Sorted>>());
          insertSorted(entry(entry(byThreadRun, row.thread, () => new Map()), row.runId, () => []), row);
        }
      }
    }
    return copy(row);
  }

  return {
    ...createMemoryHolds(open, insert),
    ...createMemoryRuns(open),

    async putCrew(crew: Crew): Promise<void> {
      open();
      const { id, parent } = checkCrew(crew);
      if (parent !== null) {
        if (!crews.has(parent)) throw new PlangateError(ErrorCode.NotFound, `unknown parent crew: ${parent}`);
        checkCrewPlacement(id, chain(parent), height(id));
      }
      const old = crews.get(id);
      if (old) children.get(old)?.delete(id);
      if (parent !== null) entry(children, parent, () => new Set()).add(id);
      crews.set(id, parent);
    },

    async putAgent(agent: Agent): Promise<void> {
      open();
      const { id, crew } = checkAgent(agent);
      if (!crews.has(crew)) throw new PlangateError(ErrorCode.NotFound, `unknown crew: ${crew}`);
      agents.set(id, crew);
    },

    async getCrew(id: string): Promise<Crew | undefined> {
      open();
      const parent = crews.get(id);
      return parent === undefined ? undefined : { id, parent };
    },

    async getAgent(id: string): Promise<Agent | undefined> {
      open();
      const crew = agents.get(id);
      return crew === undefined ? undefined : { id, crew };
    },

    async listCrews(): Promise<Crew[]> {
      open();
      return [...crews].map(([id, parent]) => ({ id, parent })).sort(byId);
    },

    async listAgents(): Promise<Agent[]> {
      open();
      return [...agents].map(([id, crew]) => ({ id, crew })).sort(byId);
    },

    async lineage(agentId: string): Promise<Lineage> {
      open();
      const crew = agents.get(agentId);
      if (crew === undefined) return { id: agentId, known: false, crews: [] };
      return { id: agentId, known: true, crews: chain(crew) };
    },

    async postMessage(message: NewMessage): Promise<StoredMessage> {
      open();
      return insert(message);
    },

    async candidates(q: CandidateQuery): Promise<MessageFact[]> {
      open();
      checkCandidateQuery(q);
      const found: Row[] = [];
      for (const { author, threads } of q.plansBy) {
        for (const thread of threads) {
          found.push(...newest(plans.get(author)?.get(thread), q.now, 1));
          if (q.runId !== undefined) {
            found.push(...newest(runPlans.get(author)?.get(thread)?.get(q.runId), q.now, 1));
          }
        }
      }
      if (q.context) {
        const { threads, author, perThread } = q.context;
        for (const thread of threads) found.push(...newest(byThread.get(thread), q.now, perThread));
        found.push(...newest(byAgentAuthor.get(author), q.now, perThread));
      }
      return dedupeNewestFirst(found.map(toFact));
    },

    async listThread(thread: string, limit: number): Promise<StoredMessage[]> {
      open();
      checkListThread(thread, limit);
      return newest(byThread.get(thread), Infinity, limit).map(copy);
    },

    async close(): Promise<void> {
      closed = true;
    },
  };
}

function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
