/**
 * The PostgreSQL store driver (`pg`): one database shared by several
 * stateless replicas. Nothing is cached in the process — every lookup asks
 * the database, so a plan or a hold written through one replica is in force
 * on every other at the next call. Writes that must not race across
 * replicas are decided by the database: a partial unique index for "one
 * active hold per agent", an advisory transaction lock for org changes.
 *
 * @example
 * const store = await openPostgresStore('postgres://127.0.0.1:5432/plangate');
 * await store.lineage('0xWORKER');
 * await store.close();
 */
import type pg from 'pg';
import { ErrorCode, PlangateError } from '../../core/errors.js';
import { migrate } from '../../core/migrations.js';
import type { Lineage, NewMessage } from '../../core/types.js';
import type { Agent, CandidateQuery, Crew, DecisionFacts, DecisionFactsQuery, DelegationStore, RunStore, Store } from '../port.js';
import {
  checkAgent,
  checkCandidateQuery,
  checkDecisionFactsQuery,
  checkCrew,
  checkCrewPlacement,
  checkListThread,
  checkNewMessage,
  dedupeNewestFirst,
  MAX_CREW_DEPTH,
  messageRowId,
} from '../validate.js';
import { toFact, toHold, toMessage, toRun, type FactRow, type HoldRow, type MessageRow, type RunRow } from '../rows.js';
import { createPostgresHolds } from './holds.js';
import { createPool, inTransaction, probeDatabase, storeFailure, type PostgresOptions } from './pool.js';
import { PROBE_TIMEOUT_MS } from '../../core/store-failures.js';
import { POSTGRES_URL, redactUrl } from './url.js';
import { createPostgresRuns } from './runs.js';
import { postgresQuotaCounts } from './quotas.js';
import { APPROVAL_MIGRATIONS, createPostgresApprovals } from './approvals.js';
import { prunePostgres } from './prune.js';
import { STORE_MIGRATIONS } from './migrations.js';
import { DECISION_FACTS_SQL, SQL } from './schema.js';

/** A PostgreSQL store: the whole port, plus its pool (shared with the PostgreSQL audit sink). */
export interface PostgresStore extends Store, RunStore, DelegationStore {
  /**
   * Every fact of one decision in one statement: one round trip instead of
   * lineage and hold, then candidates. The same facts as those lookups.
   */
  decisionFacts(query: DecisionFactsQuery): Promise<DecisionFacts>;
  readonly pool: pg.Pool;
  /** The database URL with its password redacted. */
  readonly where: string;
}

/**
 * The parameters of {@link SQL.candidates} for a query: the (author, thread)
 * pairs as two parallel arrays, then now, the run, and the context.
 *
 * @example
 * candidateParams({ now: 5, plansBy: [{ author: 'W', threads: ['agent:W', 'org'] }] })
 * // [['W', 'W'], ['agent:W', 'org'], 5, null, [], null, 0]
 */
function candidateParams(q: CandidateQuery): unknown[] {
  const authors: string[] = [];
  const threads: string[] = [];
  for (const { author, threads: ts } of q.plansBy) {
    for (const t of ts) {
      authors.push(author);
      threads.push(t);
    }
  }
  const ctx = q.context && q.context.perThread > 0 ? q.context : undefined;
  return [authors, threads, q.now, q.runId ?? null, ctx ? ctx.threads : [], ctx ? ctx.author : null, ctx ? ctx.perThread : 0];
}

/**
 * Opens a store on a `postgres://` URL: checks that the database answers,
 * applies the migrations (under an advisory lock, so replicas may start
 * together) and returns the store. Fails with `store_unavailable` and a
 * clear message when the database cannot be reached.
 */
export async function openPostgresStore(url: string, options: PostgresOptions = {}): Promise<PostgresStore> {
  if (typeof url !== 'string' || !POSTGRES_URL.test(url)) {
    throw new PlangateError(ErrorCode.InvalidInput, 'postgres store: the URL must start with postgres:// or postgresql://');
  }
  const where = redactUrl(url);
  const pool = createPool(url, options);
  try {
    const client = await pool.connect();
    try {
      await migrate(client, STORE_MIGRATIONS);
      await migrate(client, APPROVAL_MIGRATIONS);
    } finally {
      client.release();
    }
  } catch (err) {
    await pool.end().catch(() => {});
    throw storeFailure('opening', where, err);
  }
  return postgresStoreOn(pool, where, url);
}

/** The store on an open pool whose schema is up to date. `close()` ends the pool. */
function postgresStoreOn(pool: pg.Pool, where: string, url: string): PostgresStore {
  let closed = false;
  /** Runs `fn`, turning driver errors into store failures; refuses work after close. */
  async function run<T>(what: string, fn: () => Promise<T>): Promise<T> {
    if (closed) throw new PlangateError(ErrorCode.StoreFailure, `postgres store: ${what} failed: the store is closed`);
    try {
      return await fn();
    } catch (err) {
      throw storeFailure(what, where, err);
    }
  }

  async function chain(q: pg.PoolClient, text: string, id: string, whose: string): Promise<string[]> {
    const { rows } = await q.query<{ id: string }>(text, [id]);
    if (rows.length > MAX_CREW_DEPTH) {
      throw new PlangateError(ErrorCode.StoreFailure, `postgres store: the crew chain of ${whose} is deeper than ${MAX_CREW_DEPTH}`);
    }
    return rows.map((r) => r.id);
  }

  return {
    pool,
    where,
    ...createPostgresHolds(pool, run),
    ...createPostgresRuns(pool, run),
    quotaCounts: postgresQuotaCounts(pool, run),
    ...createPostgresApprovals(pool, run),

    putCrew: (crew) =>
      run('putCrew', async () => {
        const { id, parent } = checkCrew(crew);
        await inTransaction(pool, async (c) => {
          await c.query(SQL.lockOrg);
          if (parent !== null) {
            const parents = await chain(c, SQL.crewChain, parent, parent);
            if (parents.length === 0) throw new PlangateError(ErrorCode.NotFound, `unknown parent crew: ${parent}`);
            const { rows } = await c.query<{ height: number | null }>(SQL.subtreeHeight, [id]);
            checkCrewPlacement(id, parents, rows[0]?.height ?? 0);
          }
          await c.query(SQL.upsertCrew, [id, parent]);
        });
      }),

    putAgent: (agent) =>
      run('putAgent', async () => {
        const { id, crew } = checkAgent(agent);
        await inTransaction(pool, async (c) => {
          await c.query(SQL.lockOrg);
          const { rowCount } = await c.query(SQL.getCrew, [crew]);
          if (!rowCount) throw new PlangateError(ErrorCode.NotFound, `unknown crew: ${crew}`);
          await c.query(SQL.upsertAgent, [id, crew]);
        });
      }),

    getCrew: (id) =>
      run('getCrew', async () => {
        const { rows } = await pool.query<Crew>(SQL.getCrew, [id]);
        return rows[0] ? { id: rows[0].id, parent: rows[0].parent } : undefined;
      }),

    getAgent: (id) =>
      run('getAgent', async () => {
        const { rows } = await pool.query<Agent>(SQL.getAgent, [id]);
        return rows[0] ? { id: rows[0].id, crew: rows[0].crew } : undefined;
      }),

    listCrews: () => run('listCrews', async () => (await pool.query<Crew>(SQL.listCrews)).rows.map((r) => ({ id: r.id, parent: r.parent }))),

    listAgents: () => run('listAgents', async () => (await pool.query<Agent>(SQL.listAgents)).rows.map((r) => ({ id: r.id, crew: r.crew }))),

    lineage: (agentId) =>
      run('lineage', async (): Promise<Lineage> => {
        if (typeof agentId !== 'string') return { id: agentId, known: false, crews: [] };
        const { rows } = await pool.query<{ id: string }>({ name: 'plangate_lineage', text: SQL.agentLineage, values: [agentId] });
        if (rows.length > MAX_CREW_DEPTH) {
          throw new PlangateError(ErrorCode.StoreFailure, `postgres store: the crew chain of ${agentId} is deeper than ${MAX_CREW_DEPTH}`);
        }
        return { id: agentId, known: rows.length > 0, crews: rows.map((r) => r.id) };
      }),

    postMessage: (message: NewMessage) =>
      run('postMessage', async () => {
        const m = checkNewMessage(message);
        const { rows } = await pool.query<{ id: number }>(SQL.insertMessage, [m.thread, m.author, m.authorKind, m.kind, m.body, m.at, m.runId ?? null]);
        return { ...m, id: String(rows[0]?.id) };
      }),

    candidates: (q: CandidateQuery) =>
      run('candidates', async () => {
        checkCandidateQuery(q);
        // Named: prepared once per connection, not parsed and planned again on every decision.
        const { rows } = await pool.query<FactRow>({ name: 'plangate_candidates', text: SQL.candidates, values: candidateParams(q) });
        return dedupeNewestFirst(rows.map(toFact));
      }),

    decisionFacts: (q) =>
      run('decisionFacts', async () => {
        checkDecisionFactsQuery(q);
        const seats = [q.agent, ...q.delegatedBy];
        const context = q.context ?? 0;
        const { rows } = await pool.query<{ facts: { lineages: Array<{ id: string; crews: string[] }>; hold: HoldRow | null; run: RunRow | null; messages: FactRow[] } }>({
          name: 'plangate_decision_facts',
          text: DECISION_FACTS_SQL,
          values: [seats, q.now, q.runId ?? null, context],
        });
        const facts = rows[0]?.facts;
        if (!facts) throw new Error('the decision facts statement answered no row');
        const lineages = facts.lineages.map((l): Lineage => {
          if (l.crews.length > MAX_CREW_DEPTH) {
            throw new PlangateError(ErrorCode.StoreFailure, `postgres store: the crew chain of ${l.id} is deeper than ${MAX_CREW_DEPTH}`);
          }
          return { id: l.id, known: l.crews.length > 0, crews: l.crews };
        });
        const [agent, ...upstream] = lineages;
        if (!agent) throw new Error('the decision facts statement answered no lineage');
        const messages = dedupeNewestFirst(facts.messages.map(toFact));
        return {
          agent, upstream, messages,
          ...(facts.hold ? { hold: toHold(facts.hold) } : {}),
          ...(q.runId !== undefined ? { run: facts.run ? toRun(facts.run) : null } : {}),
        };
      }),

    listThread: (thread, limit) =>
      run('listThread', async () => {
        checkListThread(thread, limit);
        const { rows } = await pool.query<MessageRow>(SQL.listThread, [thread, limit]);
        return rows.map(toMessage);
      }),

    getMessage: (id) =>
      run('getMessage', async () => {
        const rowId = messageRowId(id);
        if (rowId === undefined) return undefined;
        const { rows } = await pool.query<MessageRow>(SQL.getMessage, [rowId]);
        return rows[0] === undefined ? undefined : toMessage(rows[0]);
      }),

    /** The health probe (core/store-failures.ts): SELECT 1 on a fresh connection, not one of the pool's. */
    probe: () => run('probe', () => probeDatabase(url, PROBE_TIMEOUT_MS)),
    prune: (cutoffs, options) => run('prune', () => prunePostgres(pool, cutoffs, options)),

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

export type { PostgresOptions } from './pool.js';
