/**
 * The store port: what the gate needs from wherever the org and the
 * messages live. Drivers (memory/, sqlite/, later postgres/) implement it;
 * the same contract suite (test/facts/contract.ts) runs against each.
 *
 * Every method is async so that a networked driver fits the same port.
 */
import type { QuotaCountQuery, QuotaCounts } from '../core/quotas.js';
import type { Delegation, HoldKind, Lineage, MessageFact, NewDelegation, NewMessage, NewRun, Run, StoredMessage } from '../core/types.js';
import type { HoldCondition } from './holds.js';
import type { ApprovalStore } from './approvals.js';

export type { ApprovalStore, ApprovalQuery, ApprovalAnswer } from './approvals.js';
import type { Pruning } from './retention.js';

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
  /**
   * One message by id, with its body (for people: the plan an approval
   * request names); undefined when no message has that id, e.g. pruned by
   * retention, or an id no store gives. One indexed lookup.
   */
  getMessage(id: string): Promise<StoredMessage | undefined>;
}

/**
 * A planning hold as stored. An agent has at most one `active` hold; a
 * released or cleared hold stays, as history.
 */
export interface Hold {
  id: string;
  agent: string;
  kind: HoldKind;
  /** The task the hold is for, when one was named. */
  task: string | null;
  placedBy: string;
  placedAt: number;
  /** `released`: the reviewer approved the direction; `cleared`: an operator unblocked the agent. */
  state: 'active' | 'released' | 'cleared';
  releasedBy: string | null;
  releasedAt: number | null;
  clearedBy: string | null;
  clearedAt: number | null;
  /** Plans the agent sent through the reviewer channel, and the reviewer's push-backs. */
  plans: number;
  pushBacks: number;
  /** The newest plan's message id. */
  lastPlanId: string | null;
}

/** A hold to place. */
export interface NewHold {
  agent: string;
  kind: HoldKind;
  task?: string;
  placedBy: string;
  /** Epoch milliseconds; defaults to now. */
  placedAt?: number;
}

/** How a message is linked to a hold: the agent's plan, or the reviewer's push-back. */
export type HoldMessageRole = 'plan' | 'pushback';

/**
 * Which holds to list: active ones unless `all`, newest first, at most
 * `limit` (default 100, at most 1000), and with `before` only those placed
 * before the hold of that id (the next page after a page ending with it).
 */
export interface HoldQuery {
  agent?: string;
  all?: boolean;
  limit?: number;
  before?: string;
}

/** The planning-hold half of the store. */
export interface HoldStore {
  /** Places a hold. Fails with `already_held` when the agent already has an active one. */
  placeHold(hold: NewHold): Promise<Hold>;
  /** The agent's active hold, if any (one indexed lookup). */
  activeHold(agent: string): Promise<Hold | undefined>;
  /**
   * Posts `message` and links it to the agent's active hold as `role`, in one
   * step, counting it on the hold. Fails with `not_held` when there is none,
   * and, with `only`, when the active hold is not the one the caller saw
   * (checked in the same step, see HoldCondition in ./holds.ts).
   */
  postHoldMessage(agent: string, role: HoldMessageRole, message: NewMessage, only?: HoldCondition): Promise<{ hold: Hold; message: StoredMessage }>;
  /** Ends the agent's active hold (with `only`, if it is still the one the caller saw). Fails with `not_held` when there is none. */
  endHold(agent: string, end: { state: 'released' | 'cleared'; by: string; at?: number; only?: HoldCondition }): Promise<Hold>;
  listHolds(query?: HoldQuery): Promise<Hold[]>;
  /** The newest `limit` messages linked to a hold (default 100, at most 1000), oldest of them first. */
  holdMessages(holdId: string, limit?: number): Promise<Array<{ role: HoldMessageRole; message: StoredMessage }>>;
}

/**
 * The runs half of the store. Runs are started and ended by a trusted party
 * (host, CLI, operator, orchestrator), never by the agent's own token.
 */
export interface RunStore {
  /** Starts a run. Fails with `conflict` when a run with that id exists. */
  startRun(run: NewRun): Promise<Run>;
  /** Ends an open run. Fails with `not_found` for an unknown id; ending an ended run returns it unchanged. */
  endRun(id: string, end: { by: string; at?: number }): Promise<Run>;
  /** One indexed lookup by id. */
  getRun(id: string): Promise<Run | undefined>;
  /** Runs of a seat, newest first, at most `limit` (default 100, at most 1000). */
  listRuns(query?: { seat?: string; limit?: number }): Promise<Run[]>;
}

/** The delegations half of the store. */
export interface DelegationStore {
  /** Records a delegation. Fails with `invalid_input` when manager and worker are the same seat. */
  delegate(delegation: NewDelegation): Promise<Delegation>;
  /** Revokes a delegation. Fails with `not_found` for an unknown id. */
  revokeDelegation(id: string, at?: number): Promise<Delegation>;
  /**
   * The live delegations to `worker` at `now` (not revoked, not expired, and
   * for `runId` or for any run), newest first; one indexed lookup. With
   * `manager`, only that manager's: however many other seats delegate to
   * the worker, they never crowd its delegations out of the answer; and its
   * work is bounded by indexes that hold no revoked, expired or other runs'
   * delegation, whatever the manager recorded. With `manager`, a delegation
   * revoked after `now` is returned as well (a decision at an earlier time
   * judges it not yet revoked, in the policy).
   */
  delegationsTo(worker: string, now: number, runId?: string, manager?: string): Promise<Delegation[]>;
  getDelegation(id: string): Promise<Delegation | undefined>;
}

/** What one decision needs from the store: the acting seat, its delegation chain, its hold, the candidate plans. */
export interface DecisionFactsQuery {
  agent: string;
  /** The call's delegation chain, nearest manager first. */
  delegatedBy: string[];
  /** Decision time (epoch ms). */
  now: number;
  runId?: string;
  /** Context messages per thread for explanations (see {@link CandidateQuery.context}). */
  context?: number;
}

/** The facts of one decision, read as one snapshot. */
export interface DecisionFacts {
  agent: Lineage;
  upstream: Lineage[];
  hold?: Hold;
  messages: MessageFact[];
  /**
   * The recorded run of the query's `runId`, read in the same snapshot:
   * null when none is recorded. Absent when the query names no run, or when
   * the store does not read runs here (the gate then asks `getRun`).
   */
  run?: Run | null;
}

/**
 * A store that can read all the facts of one decision in one snapshot (one
 * read transaction) instead of one lookup at a time. Optional: the gate
 * falls back to `lineage`, `activeHold` and `candidates` without it.
 */
export interface SnapshotReads {
  decisionFacts(query: DecisionFactsQuery): Promise<DecisionFacts>;
}

/**
 * A store that can say whether it answers at all: `probe` resolves when one
 * trivial query succeeds, on a connection of its own where the store has
 * several, and rejects otherwise. The gate asks it to tell an outage from
 * one request's failure (core/store-failures.ts).
 */
export interface StoreProbe {
  probe(): Promise<void>;
}

/**
 * Counting a seat's writes for its quotas (facts/quotas.ts): the rows of a
 * kind in the window and the rows kept, each up to its limit, with one
 * index range scan each.
 */
export interface QuotaStore {
  quotaCounts(query: QuotaCountQuery): Promise<QuotaCounts>;
}

/** A store may prune what can no longer count (retention.ts); the memory store does not. */
export interface Store extends OrgStore, MessageStore, HoldStore, RunStore, DelegationStore, QuotaStore, ApprovalStore, Partial<SnapshotReads>, Partial<StoreProbe>, Partial<Pruning> {
  close(): Promise<void>;
}
