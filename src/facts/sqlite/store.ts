/**
 * The SQLite store driver (better-sqlite3): the embedded default.
 *
 * One connection per store (connection.ts): WAL journal, `synchronous=FULL`
 * (a commit is on disk before it is acknowledged, power loss included),
 * foreign keys on, and a busy timeout so that several processes can
 * share one file. Every statement is prepared once; every `candidates()` lookup
 * is an index seek with a LIMIT (see schema.ts and its EXPLAIN test).
 */
import { ErrorCode, PlangateError } from '../../core/errors.js';
import type { AuthorKind, Lineage, MessageFact, NewMessage, StoredMessage } from '../../core/types.js';
import type { Agent, CandidateQuery, Crew, DecisionFacts, DecisionFactsQuery, Store } from '../port.js';
import { threadsToFetch } from '../../core/threads.js';
import {
  checkAgent,
  checkCandidateQuery,
  checkCrew,
  checkCrewPlacement,
  checkDecisionFactsQuery,
  checkListThread,
  checkNewMessage,
  MAX_CREW_DEPTH,
  messageRowId,
} from '../validate.js';
import { createSqliteHolds } from './holds.js';
import { factsOf, type FactTuple } from './rows.js';
import { toMessage, type MessageRow } from '../rows.js';
import { createSqliteRuns } from './runs.js';
import { createSqliteApprovals } from './approvals.js';
import { keptFacts } from './kept-facts.js';
import { guard } from './guard.js';
import { openConnection, type SqliteStoreOptions } from './connection.js';
import { SQL } from './schema.js';
import { sqliteQuotaCounts } from './quotas.js';

export type { SqliteStoreOptions } from './connection.js';

/** Most agents whose crew chain a store keeps for decisions. */
const SEAT_CACHE = 100_000;
/**
 * Most ids a store remembers as on no crew, apart from the known seats so
 * that many unknown ids never crowd a known one out. Without an org every
 * seat is such an id, and a decision reads its lineage from here.
 */
const UNKNOWN_SEAT_CACHE = 10_000;
/** The crews of an id on no crew. */
const NO_CREWS: readonly string[] = [];

/**
 * Opens (creating when missing, along with its folder) a SQLite store and
 * brings its schema up to date. `':memory:'` opens a private in-memory
 * database.
 *
 * Posting a message does not require the thread's agent or crew to exist
 * in the org: the org and the messages are independent, and whether a
 * thread counts for an agent is the policy's question.
 *
 * @example
 * const store = openSqliteStore('.data/plangate.db');
 * const lineage = await store.lineage('0xWORKER');
 * await store.close();
 */
export function openSqliteStore(path: string | ':memory:', options: SqliteStoreOptions = {}): Store {
  const db = openConnection(path, options);

  const st = guard('preparing statements', () => ({
    // raw(): rows as arrays, not objects (the candidate lookups run many times per decision).
    newestPlan: db.prepare<[string, string, number], FactTuple>(SQL.newestPlan).raw(),
    newestRunPlan: db.prepare<[string, string, string, number], FactTuple>(SQL.newestRunPlan).raw(),
    contextThread: db.prepare<[string, number, number], FactTuple>(SQL.contextThread).raw(),
    contextAuthor: db.prepare<[string, number, number], FactTuple>(SQL.contextAuthor).raw(),
    insertMessage: db.prepare<[string, string, AuthorKind, string, string, number, string | null]>(
      SQL.insertMessage,
    ),
    listThread: db.prepare<[string, number], MessageRow>(SQL.listThread),
    getMessage: db.prepare<[number], MessageRow>(SQL.getMessage),
    getCrew: db.prepare<[string], Crew>(SQL.getCrew),
    listCrews: db.prepare<[], Crew>(SQL.listCrews),
    upsertCrew: db.prepare<[string, string | null]>(SQL.upsertCrew),
    getAgent: db.prepare<[string], Agent>(SQL.getAgent),
    listAgents: db.prepare<[], Agent>(SQL.listAgents),
    upsertAgent: db.prepare<[string, string]>(SQL.upsertAgent),
    // pluck(): these return the first column's value instead of a row object.
    crewChain: db.prepare<[string], string>(SQL.crewChain).pluck(),
    agentLineage: db.prepare<[string], string>(SQL.agentLineage).pluck(),
    subtreeHeight: db.prepare<[string], number | null>(SQL.subtreeHeight).pluck(),
    // Changes with every commit by another connection to the file (SQLite's PRAGMA data_version).
    dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
  }));

  /** Ancestor chains are capped at MAX_CREW_DEPTH on write; a longer one means a damaged file. */
  function capped(chain: string[], whose: string): string[] {
    if (chain.length > MAX_CREW_DEPTH) {
      throw new PlangateError(
        ErrorCode.StoreFailure,
        `sqlite store: the crew chain of ${whose} is deeper than ${MAX_CREW_DEPTH}`,
      );
    }
    return chain;
  }

  const putCrew = db.transaction((crew: Crew) => {
    const { id, parent } = checkCrew(crew);
    if (parent !== null) {
      const chain = st.crewChain.all(parent);
      if (chain.length === 0) throw new PlangateError(ErrorCode.NotFound, `unknown parent crew: ${parent}`);
      const height = st.subtreeHeight.get(id) ?? 0;
      checkCrewPlacement(id, chain, height);
    }
    st.upsertCrew.run(id, parent);
  });

  const putAgent = db.transaction((agent: Agent) => {
    const { id, crew } = checkAgent(agent);
    if (!st.getCrew.get(crew)) throw new PlangateError(ErrorCode.NotFound, `unknown crew: ${crew}`);
    st.upsertAgent.run(id, crew);
  });

  function lineageOf(agentId: string): Lineage {
    const crews = capped(st.agentLineage.all(agentId), agentId);
    return { id: agentId, known: crews.length > 0, crews };
  }

  /**
   * Known agents' crew chains as decisions read them, so a decision does not
   * walk the crews table each time. Valid while the file's `data_version`
   * is the one they were read at (every commit by another connection, in
   * this process or another, changes it), and emptied by this store's own
   * org writes (which do not change it). At most SEAT_CACHE agents, and
   * UNKNOWN_SEAT_CACHE ids on no crew, under the same rules.
   */
  const chains = new Map<string, readonly string[]>();
  const unknown = new Set<string>();
  let chainsVersion: number | undefined;

  /** The lineage in the current read transaction; call {@link checkChains} first in it. */
  function snapshotLineageOf(agentId: string): Lineage {
    let crews = chains.get(agentId) ?? (unknown.has(agentId) ? NO_CREWS : undefined);
    if (crews === undefined) {
      crews = capped(st.agentLineage.all(agentId), agentId);
      if (crews.length > 0) {
        if (chains.size < SEAT_CACHE) chains.set(agentId, crews);
      } else if (unknown.size < UNKNOWN_SEAT_CACHE) {
        unknown.add(agentId);
      }
    }
    // A copy: what a caller does with the lineage never reaches the cache.
    return { id: agentId, known: crews.length > 0, crews: crews.slice() };
  }

  function forgetChains(): void {
    chains.clear();
    unknown.clear();
  }

  /**
   * Empties the chains when another connection committed since they were
   * read, and returns the file's `data_version` in this snapshot. After the
   * transaction's first read (it fixes the snapshot).
   */
  function checkChains(): number {
    const version = st.dataVersion.get() as number;
    if (version !== chainsVersion) {
      forgetChains();
      chainsVersion = version;
    }
    return version;
  }

  /** The newest plan by `author` in each of `threads` (and the newest tagged `runId`), into `rows`. */
  function plansInto(rows: FactTuple[], author: string, threads: readonly string[], now: number, runId: string | undefined): void {
    for (const thread of threads) {
      const plan = st.newestPlan.get(author, thread, now);
      // No plan there means no run-tagged one either; a newest plan tagged with the run is the newest run-tagged one.
      if (!plan) continue;
      rows.push(plan);
      if (runId !== undefined && plan[6] !== runId) {
        const runPlan = st.newestRunPlan.get(author, thread, runId, now);
        if (runPlan) rows.push(runPlan);
      }
    }
  }

  /** The newest `perThread` messages in each of `threads` and by `author` (as an agent), into `rows`. */
  function contextInto(rows: FactTuple[], threads: readonly string[], author: string, now: number, perThread: number): void {
    if (perThread <= 0) return;
    for (const thread of threads) rows.push(...st.contextThread.all(thread, now, perThread));
    rows.push(...st.contextAuthor.all(author, now, perThread));
  }

  /** Every lookup of one candidate query; run inside a read transaction. */
  function candidatesOf(q: CandidateQuery): MessageFact[] {
    const rows: FactTuple[] = [];
    for (const { author, threads } of q.plansBy) plansInto(rows, author, threads, q.now, q.runId);
    if (q.context) contextInto(rows, q.context.threads, q.context.author, q.now, q.context.perThread);
    return factsOf(rows);
  }

  /** Runs every lookup in one read transaction, so the answer is one snapshot. */
  const candidates = db.transaction(candidatesOf);

  const { readActiveHold, ...holds } = createSqliteHolds(db);
  const { readRun, ...runs } = createSqliteRuns(db);

  const kept = keptFacts(db, st.dataVersion);

  /** The whole decision's facts in one read transaction: one snapshot, one lock (kept for the next decision where they may be). */
  const decisionFacts = db.transaction((q: DecisionFactsQuery, keep: boolean): DecisionFacts => {
    // The first read fixes the snapshot; then the chains read before are checked against it.
    const hold = readActiveHold(q.agent);
    const version = checkChains();
    const agent = snapshotLineageOf(q.agent);
    const upstream = q.delegatedBy.length === 0 ? [] : q.delegatedBy.map(snapshotLineageOf);
    // The lookups of candidates(candidateQueryFor(q, agent, upstream)), without building the query.
    const rows: FactTuple[] = [];
    const own = threadsToFetch(agent);
    plansInto(rows, agent.id, own, q.now, q.runId);
    for (const seat of upstream) plansInto(rows, seat.id, threadsToFetch(seat), q.now, q.runId);
    if (q.context) contextInto(rows, own, agent.id, q.now, q.context);
    const facts: DecisionFacts = hold ? { agent, upstream, hold, messages: factsOf(rows) } : { agent, upstream, messages: factsOf(rows) };
    if (q.runId !== undefined) facts.run = readRun(q.runId) ?? null;
    if (keep) kept.keep(q, facts, { author: agent.id, threads: own, version });
    return facts;
  });

  return {
    ...holds,
    ...runs,
    ...createSqliteApprovals(db),

    async putCrew(crew: Crew): Promise<void> {
      try {
        guard('putCrew', () => putCrew.immediate(crew));
      } finally {
        forgetChains();
      }
    },

    async putAgent(agent: Agent): Promise<void> {
      try {
        guard('putAgent', () => putAgent.immediate(agent));
      } finally {
        forgetChains();
      }
    },

    async getCrew(id: string): Promise<Crew | undefined> {
      return guard('getCrew', () => {
        const row = st.getCrew.get(id);
        return row ? { id: row.id, parent: row.parent } : undefined;
      });
    },

    async getAgent(id: string): Promise<Agent | undefined> {
      return guard('getAgent', () => {
        const row = st.getAgent.get(id);
        return row ? { id: row.id, crew: row.crew } : undefined;
      });
    },

    async listCrews(): Promise<Crew[]> {
      return guard('listCrews', () => st.listCrews.all().map((r) => ({ id: r.id, parent: r.parent })));
    },

    async listAgents(): Promise<Agent[]> {
      return guard('listAgents', () => st.listAgents.all().map((r) => ({ id: r.id, crew: r.crew })));
    },

    async lineage(agentId: string): Promise<Lineage> {
      return guard('lineage', () => lineageOf(agentId));
    },

    async postMessage(message: NewMessage): Promise<StoredMessage> {
      return guard('postMessage', () => {
        const m = checkNewMessage(message);
        const info = st.insertMessage.run(m.thread, m.author, m.authorKind, m.kind, m.body, m.at, m.runId ?? null);
        return { ...m, id: String(info.lastInsertRowid) };
      });
    },

    async candidates(q: CandidateQuery): Promise<MessageFact[]> {
      return guard('candidates', () => {
        checkCandidateQuery(q);
        return candidates(q);
      });
    },

    async decisionFacts(q: DecisionFactsQuery): Promise<DecisionFacts> {
      return guard('decisionFacts', () => {
        checkDecisionFactsQuery(q);
        // Read in a transaction already open (it could be rolled back): nothing given from what is kept, nothing kept.
        const outer = db.inTransaction;
        return (outer ? undefined : kept.get(q)) ?? decisionFacts(q, !outer);
      });
    },

    async listThread(thread: string, limit: number): Promise<StoredMessage[]> {
      return guard('listThread', () => {
        checkListThread(thread, limit);
        return st.listThread.all(thread, limit).map(toMessage);
      });
    },

    async getMessage(id: string): Promise<StoredMessage | undefined> {
      return guard('getMessage', () => {
        const rowId = messageRowId(id);
        const row = rowId === undefined ? undefined : st.getMessage.get(rowId);
        return row === undefined ? undefined : toMessage(row);
      });
    },

    quotaCounts: sqliteQuotaCounts(db),

    /** The health probe (core/store-failures.ts): one trivial read of the schema, on the open file. */
    async probe(): Promise<void> {
      guard('probe', () => {
        db.prepare('SELECT count(*) FROM sqlite_schema').get();
      });
    },

    async prune(cutoffs, options) {
      try {
        // Loaded when a prune runs: a process that decides one call never does.
        return await (await import('./prune.js')).pruneSqlite(db, cutoffs, options);
      } catch (error) {
        return guard('prune', () => {
          throw error;
        });
      }
    },

    async close(): Promise<void> {
      guard('close', () => {
        if (db.open) db.close();
      });
    },
  };
}
