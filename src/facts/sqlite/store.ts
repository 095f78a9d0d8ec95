/**
 * The SQLite store driver (better-sqlite3): the embedded default.
 *
 * One connection per store, WAL journal, `synchronous=NORMAL` (a commit
 * survives a process crash; the last commits may be lost on power loss),
 * foreign keys on, and a busy timeout so that several processes can share
 * one file. Every statement is prepared once; every `candidates()` lookup
 * is an index seek with a LIMIT (see schema.ts and its EXPLAIN test).
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
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
} from '../validate.js';
import { createSqliteHolds } from './holds.js';
import { createSqliteRuns } from './runs.js';
import { guard } from './guard.js';
import { MIGRATIONS, SCHEMA_VERSION, SQL } from './schema.js';

export interface SqliteStoreOptions {
  /** How long to wait for another connection's write lock, in ms. Default 5000. */
  busyTimeoutMs?: number;
}

interface FactRow {
  id: number;
  thread: string;
  author: string;
  author_kind: AuthorKind;
  kind: string;
  at: number;
  run_id: string | null;
}

interface MessageRow extends FactRow {
  body: string;
}

function toFact(r: FactRow): MessageFact {
  const f: MessageFact = {
    id: String(r.id),
    thread: r.thread,
    author: r.author,
    authorKind: r.author_kind,
    kind: r.kind,
    at: r.at,
  };
  if (r.run_id !== null) f.runId = r.run_id;
  return f;
}

function toMessage(r: MessageRow): StoredMessage {
  const { id, thread, author, authorKind, kind, at, runId } = toFact(r);
  const m: StoredMessage = { id, thread, author, authorKind, kind, body: r.body, at };
  if (runId !== undefined) m.runId = runId;
  return m;
}


/** Brings the schema to {@link SCHEMA_VERSION}, in one write transaction. */
function migrate(db: Database.Database): void {
  db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new PlangateError(
        ErrorCode.StoreFailure,
        `sqlite store: schema version ${version} is newer than this plangate supports (${SCHEMA_VERSION})`,
      );
    }
    for (let v = version; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v] as string);
    if (version !== SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

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
  if (typeof path !== 'string' || path === '') {
    throw new PlangateError(ErrorCode.InvalidInput, 'sqlite store: path must be a file path or ":memory:"');
  }
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new PlangateError(ErrorCode.InvalidInput, 'sqlite store: busyTimeoutMs must be a non-negative integer');
  }

  const db = guard(`opening ${path}`, () => {
    if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
    const conn = new Database(path, { timeout: busyTimeoutMs });
    try {
      conn.pragma('journal_mode = WAL');
      conn.pragma('synchronous = NORMAL');
      conn.pragma('foreign_keys = ON');
      conn.pragma(`busy_timeout = ${busyTimeoutMs}`);
      migrate(conn);
    } catch (err) {
      conn.close();
      throw err;
    }
    return conn;
  });

  const st = guard('preparing statements', () => ({
    newestPlan: db.prepare<[string, string, number], FactRow>(SQL.newestPlan),
    newestRunPlan: db.prepare<[string, string, string, number], FactRow>(SQL.newestRunPlan),
    contextThread: db.prepare<[string, number, number], FactRow>(SQL.contextThread),
    contextAuthor: db.prepare<[string, number, number], FactRow>(SQL.contextAuthor),
    insertMessage: db.prepare<[string, string, AuthorKind, string, string, number, string | null]>(
      SQL.insertMessage,
    ),
    listThread: db.prepare<[string, number], MessageRow>(SQL.listThread),
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

  /** Runs every lookup in one read transaction, so the answer is one snapshot. */
  const candidates = db.transaction((q: CandidateQuery): MessageFact[] => {
    const rows: FactRow[] = [];
    for (const { author, threads } of q.plansBy) {
      for (const thread of threads) {
        const plan = st.newestPlan.get(author, thread, q.now);
        if (plan) rows.push(plan);
        if (q.runId !== undefined) {
          const runPlan = st.newestRunPlan.get(author, thread, q.runId, q.now);
          if (runPlan) rows.push(runPlan);
        }
      }
    }
    if (q.context && q.context.perThread > 0) {
      const { threads, author, perThread } = q.context;
      for (const thread of threads) rows.push(...st.contextThread.all(thread, q.now, perThread));
      rows.push(...st.contextAuthor.all(author, q.now, perThread));
    }
    return dedupeNewestFirst(rows.map(toFact));
  });

  return {
    ...createSqliteHolds(db),
    ...createSqliteRuns(db),

    async putCrew(crew: Crew): Promise<void> {
      guard('putCrew', () => putCrew.immediate(crew));
    },

    async putAgent(agent: Agent): Promise<void> {
      guard('putAgent', () => putAgent.immediate(agent));
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
      return guard('lineage', () => {
        const crews = capped(st.agentLineage.all(agentId), agentId);
        return { id: agentId, known: crews.length > 0, crews };
      });
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

    async listThread(thread: string, limit: number): Promise<StoredMessage[]> {
      return guard('listThread', () => {
        checkListThread(thread, limit);
        return st.listThread.all(thread, limit).map(toMessage);
      });
    },

    async close(): Promise<void> {
      guard('close', () => {
        if (db.open) db.close();
      });
    },
  };
}
