/**
 * The store port: what the gate needs from wherever the org and the
 * messages live. Drivers (memory/, sqlite/, later postgres/) implement it;
 * the same contract suite (test/facts/contract.ts) runs against each.
 *
 * Every method is async so that a networked driver fits the same port.
 */
import type { Lineage, MessageFact, NewMessage, StoredMessage } from '../core/types.js';

export interface Crew {
  id: string;
  /** The parent crew, or null for a top-level crew. */
  parent: string | null;
}

export interface Agent {
  id: string;
  crew: string;
}

/**
 * What to fetch for one decision. All lookups are indexed and bounded:
 * their cost depends on the number of authors and threads named here,
 * never on how many messages the store holds elsewhere.
 */
export interface CandidateQuery {
  /** Decision time (epoch ms): messages after it are not returned. */
  now: number;
  /** The call's run id, if any. */
  runId?: string;
  /**
   * For each author (the acting agent, then its delegation chain) the
   * threads to look in. For every (author, thread) pair the store returns
   * the newest message of kind `plan` by that author (as an agent) in that
   * thread, and, when `runId` is set, the newest such message tagged with
   * `runId`.
   */
  plansBy: Array<{ author: string; threads: string[] }>;
  /**
   * Context for explanations: the newest `perThread` messages of any kind
   * and author in each of these threads, and the newest `perThread`
   * messages of any kind written by `author` (as an agent) in any thread.
   */
  context?: { threads: string[]; author: string; perThread: number };
}

/** The org half of the store. */
export interface OrgStore {
  /** Creates or updates a crew. Fails with `not_found` for an unknown parent, `conflict` for a cycle. */
  putCrew(crew: Crew): Promise<void>;
  /** Creates or moves an agent. Fails with `not_found` for an unknown crew. */
  putAgent(agent: Agent): Promise<void>;
  getCrew(id: string): Promise<Crew | undefined>;
  getAgent(id: string): Promise<Agent | undefined>;
  listCrews(): Promise<Crew[]>;
  listAgents(): Promise<Agent[]>;
  /** The agent's crew and every ancestor, nearest first; `known: false` when the org does not know it. */
  lineage(agentId: string): Promise<Lineage>;
}

/** The message half of the store. */
export interface MessageStore {
  /** Stores a message and returns it with its id and time. */
  postMessage(message: NewMessage): Promise<StoredMessage>;
  /** The candidate plans and context for one decision, deduplicated by id, newest first. Never bodies. */
  candidates(query: CandidateQuery): Promise<MessageFact[]>;
  /** Messages of a thread, newest first (for people, not for decisions). */
  listThread(thread: string, limit: number): Promise<StoredMessage[]>;
}

export interface Store extends OrgStore, MessageStore {
  close(): Promise<void>;
}
