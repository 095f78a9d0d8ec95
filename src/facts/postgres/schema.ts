/**
 * Every statement the PostgreSQL driver runs, as data, so that a test can
 * `EXPLAIN` exactly what the driver sends; the tables and indexes they read
 * are in ./migrations.ts. Times are epoch milliseconds in `bigint` columns,
 * as in the SQLite driver.
 */
import { MAX_CREW_DEPTH } from '../validate.js';

const FACT_COLUMNS = 'id, thread, author, author_kind, kind, at, run_id';

/**
 * Every statement. The partial indexes of ./migrations.ts are chosen only because these
 * statements repeat their conditions literally (`kind = 'plan' AND
 * author_kind = 'agent'`): keep it that way. Ties in time go to the larger id.
 */
export const SQL = {
  /**
   * All of `candidates()` in one statement (one round trip, one snapshot):
   * `$1`/`$2` are parallel arrays of (author, thread) pairs; `$3` now; `$4`
   * the run id or null; `$5`/`$6` the context threads and author; `$7` the
   * context size per thread (0: none). Each branch is an index scan with a LIMIT.
   */
  candidates: `
    SELECT m.* FROM unnest($1::text[], $2::text[]) AS q(author, thread)
      CROSS JOIN LATERAL (SELECT ${FACT_COLUMNS} FROM messages
        WHERE author = q.author AND thread = q.thread AND kind = 'plan' AND author_kind = 'agent' AND at <= $3
        ORDER BY at DESC, id DESC LIMIT 1) AS m
    UNION ALL
    SELECT m.* FROM unnest($1::text[], $2::text[]) AS q(author, thread)
      CROSS JOIN LATERAL (SELECT ${FACT_COLUMNS} FROM messages
        WHERE author = q.author AND thread = q.thread AND kind = 'plan' AND author_kind = 'agent'
          AND run_id IS NOT NULL AND run_id = $4::text AND at <= $3
        ORDER BY at DESC, id DESC LIMIT 1) AS m
    UNION ALL
    SELECT m.* FROM unnest($5::text[]) AS q(thread)
      CROSS JOIN LATERAL (SELECT ${FACT_COLUMNS} FROM messages
        WHERE thread = q.thread AND at <= $3
        ORDER BY at DESC, id DESC LIMIT $7) AS m
    UNION ALL
    (SELECT ${FACT_COLUMNS} FROM messages
      WHERE author = $6::text AND author_kind = 'agent' AND at <= $3
      ORDER BY at DESC, id DESC LIMIT $7)`,

  insertMessage: `INSERT INTO messages (thread, author, author_kind, kind, body, at, run_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
  listThread: `SELECT id, thread, author, author_kind, kind, body, at, run_id FROM messages
    WHERE thread = $1 ORDER BY at DESC, id DESC LIMIT $2`,
  getMessage: 'SELECT id, thread, author, author_kind, kind, body, at, run_id FROM messages WHERE id = $1',

  getCrew: 'SELECT id, parent FROM crews WHERE id = $1',
  listCrews: 'SELECT id, parent FROM crews ORDER BY id COLLATE "C"',
  upsertCrew: `INSERT INTO crews (id, parent) VALUES ($1, $2)
    ON CONFLICT (id) DO UPDATE SET parent = excluded.parent`,
  getAgent: 'SELECT id, crew FROM agents WHERE id = $1',
  listAgents: 'SELECT id, crew FROM agents ORDER BY id COLLATE "C"',
  upsertAgent: `INSERT INTO agents (id, crew) VALUES ($1, $2)
    ON CONFLICT (id) DO UPDATE SET crew = excluded.crew`,
  /** Serialises org writes across replicas, so that two re-parentings cannot make a cycle together. */
  lockOrg: 'SELECT pg_advisory_xact_lock(7402)',
  crewChain: `WITH RECURSIVE chain(id, parent, depth) AS (
      SELECT id, parent, 1 FROM crews WHERE id = $1
      UNION ALL
      SELECT c.id, c.parent, chain.depth + 1 FROM crews AS c JOIN chain ON c.id = chain.parent
      WHERE chain.depth <= ${MAX_CREW_DEPTH}
    )
    SELECT id FROM chain ORDER BY depth`,
  agentLineage: `WITH RECURSIVE chain(id, parent, depth) AS (
      SELECT c.id, c.parent, 1 FROM agents AS a JOIN crews AS c ON c.id = a.crew WHERE a.id = $1
      UNION ALL
      SELECT c.id, c.parent, chain.depth + 1 FROM crews AS c JOIN chain ON c.id = chain.parent
      WHERE chain.depth <= ${MAX_CREW_DEPTH}
    )
    SELECT id FROM chain ORDER BY depth`,
  subtreeHeight: `WITH RECURSIVE below(id, depth) AS (
      SELECT $1::text, 0
      UNION ALL
      SELECT c.id, below.depth + 1 FROM crews AS c JOIN below ON c.parent = below.id
      WHERE below.depth <= ${MAX_CREW_DEPTH}
    )
    SELECT max(depth) AS height FROM below`,
} as const;

const HOLD_COLUMNS = `id, agent, kind, task, placed_by, placed_at, state, released_by, released_at,
  cleared_by, cleared_at, plans, push_backs, last_plan_id`;

/** The hold statements. `activeHold` runs on every decision: an index seek, never cached. */
export const HOLD_SQL = {
  activeHold: `SELECT ${HOLD_COLUMNS} FROM holds WHERE agent = $1 AND state = 'active'`,
  activeHoldForUpdate: `SELECT ${HOLD_COLUMNS} FROM holds WHERE agent = $1 AND state = 'active' FOR UPDATE`,
  /** The partial unique index decides a race between replicas: the loser inserts nothing. */
  insertHold: `INSERT INTO holds (agent, kind, task, placed_by, placed_at) VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (agent) WHERE state = 'active' DO NOTHING
    RETURNING ${HOLD_COLUMNS}`,
  end: `UPDATE holds SET state = $2,
      released_by = CASE WHEN $2 = 'released' THEN $3 END, released_at = CASE WHEN $2 = 'released' THEN $4::bigint END,
      cleared_by = CASE WHEN $2 = 'cleared' THEN $3 END, cleared_at = CASE WHEN $2 = 'cleared' THEN $4::bigint END
    WHERE agent = $1 AND state = 'active'
    RETURNING ${HOLD_COLUMNS}`,
  countPlan: `UPDATE holds SET plans = plans + 1, last_plan_id = $1 WHERE id = $2 RETURNING ${HOLD_COLUMNS}`,
  countPushBack: `UPDATE holds SET push_backs = push_backs + 1 WHERE id = $1 RETURNING ${HOLD_COLUMNS}`,
  link: 'INSERT INTO hold_messages (hold_id, message_id, role) VALUES ($1, $2, $3)',
  // The listings read newest first, below a hold id (the largest bigint for the first page).
  listActive: `SELECT ${HOLD_COLUMNS} FROM holds WHERE state = 'active' AND id < $2 ORDER BY id DESC LIMIT $1`,
  listAll: `SELECT ${HOLD_COLUMNS} FROM holds WHERE id < $2 ORDER BY id DESC LIMIT $1`,
  listAgentActive: `SELECT ${HOLD_COLUMNS} FROM holds WHERE agent = $1 AND state = 'active' AND id < $3 LIMIT $2`,
  listAgentAll: `SELECT ${HOLD_COLUMNS} FROM holds WHERE agent = $1 AND id < $3 ORDER BY id DESC LIMIT $2`,
  // The newest `limit`, oldest of them first.
  holdMessages: `SELECT * FROM (SELECT l.role, m.id, m.thread, m.author, m.author_kind, m.kind, m.body, m.at, m.run_id
    FROM hold_messages AS l JOIN messages AS m ON m.id = l.message_id
    WHERE l.hold_id = $1 ORDER BY m.id DESC LIMIT $2) AS newest ORDER BY id`,
} as const;

const RUN_COLUMNS = 'id, seat, delegation_id, started_at, expires_at, ended_at, started_by, ended_by';
const DELEGATION_COLUMNS = 'id, manager, worker, run_id, created_at, expires_at, revoked_at, created_by';

/** Runs and delegations. */
export const RUN_SQL = {
  insertRun: `INSERT INTO runs (id, seat, delegation_id, started_at, expires_at, started_by)
    VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING RETURNING id`,
  getRunForUpdate: `SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1 FOR UPDATE`,
  endRun: `UPDATE runs SET ended_at = $2, ended_by = $3 WHERE id = $1 AND ended_at IS NULL`,
  getRun: `SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1`,
  listRuns: `SELECT ${RUN_COLUMNS} FROM runs ORDER BY started_at DESC, seq DESC LIMIT $1`,
  listSeatRuns: `SELECT ${RUN_COLUMNS} FROM runs WHERE seat = $1 ORDER BY started_at DESC, seq DESC LIMIT $2`,
  insertDelegation: `INSERT INTO delegations (id, manager, worker, run_id, created_at, expires_at, created_by)
    VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING RETURNING id`,
  revokeDelegation: `UPDATE delegations SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1 RETURNING ${DELEGATION_COLUMNS}`,
  getDelegation: `SELECT ${DELEGATION_COLUMNS} FROM delegations WHERE id = $1`,
  delegationsTo: `SELECT ${DELEGATION_COLUMNS} FROM delegations
    WHERE worker = $1 AND revoked_at IS NULL AND created_at <= $2
      AND (expires_at IS NULL OR expires_at > $2)
      AND (run_id IS NULL OR run_id = $3::text)
    ORDER BY created_at DESC, seq DESC LIMIT $4`,
  /**
   * One manager's delegations to a worker that are live at `$2` for run `$3`:
   * five index range scans, each on a partial index that holds only rows its
   * branch can answer with (./migrations.ts, step 3), so that revoked,
   * expired and other runs' delegations are never walked row by row however
   * many of them the manager recorded. A delegation revoked after `$2` is
   * returned too (a decision at an earlier time): the policy judges it.
   */
  delegationsFrom: `SELECT ${DELEGATION_COLUMNS} FROM (
    (SELECT ${DELEGATION_COLUMNS}, seq FROM delegations
      WHERE worker = $1 AND manager = $5::text AND revoked_at IS NULL AND run_id IS NULL AND expires_at IS NULL
        AND created_at <= $2
      ORDER BY created_at DESC, seq DESC LIMIT $4)
    UNION ALL
    (SELECT ${DELEGATION_COLUMNS}, seq FROM delegations
      WHERE worker = $1 AND manager = $5::text AND revoked_at IS NULL AND run_id IS NULL
        AND expires_at IS NOT NULL AND expires_at > $2 AND created_at <= $2
      ORDER BY expires_at DESC LIMIT $4)
    UNION ALL
    (SELECT ${DELEGATION_COLUMNS}, seq FROM delegations
      WHERE worker = $1 AND manager = $5::text AND revoked_at IS NULL AND run_id IS NOT NULL AND run_id = $3::text
        AND expires_at IS NULL AND created_at <= $2
      ORDER BY created_at DESC, seq DESC LIMIT $4)
    UNION ALL
    (SELECT ${DELEGATION_COLUMNS}, seq FROM delegations
      WHERE worker = $1 AND manager = $5::text AND revoked_at IS NULL AND run_id IS NOT NULL AND run_id = $3::text
        AND expires_at IS NOT NULL AND expires_at > $2 AND created_at <= $2
      ORDER BY expires_at DESC LIMIT $4)
    UNION ALL
    (SELECT ${DELEGATION_COLUMNS}, seq FROM delegations
      WHERE worker = $1 AND manager = $5::text AND revoked_at IS NOT NULL AND revoked_at > $2
        AND created_at <= $2 AND (expires_at IS NULL OR expires_at > $2) AND (run_id IS NULL OR run_id = $3::text)
      ORDER BY revoked_at DESC LIMIT $4)
    ) AS live ORDER BY created_at DESC, seq DESC LIMIT $4`,
} as const;

/**
 * Every fact of one decision in one statement (one round trip, one
 * snapshot): `$1` the acting seat then its delegation chain, `$2` now, `$3`
 * the run id or null, `$4` the context size per thread (0: none). The
 * threads looked in are each seat's own, its crews' (nearest first) and the
 * org's, as `threadsToFetch` plans them. Answers one JSON document.
 */
export const DECISION_FACTS_SQL = `
  WITH RECURSIVE
  seat AS (SELECT s.id, s.ord FROM unnest($1::text[]) WITH ORDINALITY AS s(id, ord)),
  chain(ord, crew, parent, depth) AS (
    SELECT seat.ord, c.id, c.parent, 1 FROM seat JOIN agents AS a ON a.id = seat.id JOIN crews AS c ON c.id = a.crew
    UNION ALL
    -- LATERAL: one primary-key lookup per step, as the chain is a handful of rows, never a scan of every crew.
    SELECT chain.ord, c.id, c.parent, chain.depth + 1 FROM chain
      CROSS JOIN LATERAL (SELECT id, parent FROM crews WHERE id = chain.parent LIMIT 1) AS c
    WHERE chain.depth <= ${MAX_CREW_DEPTH}
  ),
  lineage AS (
    SELECT seat.ord, seat.id,
      coalesce(array_agg(chain.crew ORDER BY chain.depth) FILTER (WHERE chain.crew IS NOT NULL), '{}'::text[]) AS crews
    FROM seat LEFT JOIN chain ON chain.ord = seat.ord GROUP BY seat.ord, seat.id
  ),
  pairs AS (
    SELECT l.ord, l.id AS author, t.thread FROM lineage AS l
    CROSS JOIN LATERAL (
      SELECT 'agent:' || l.id AS thread
      UNION ALL SELECT 'crew:' || c FROM unnest(l.crews) AS c
      UNION ALL SELECT 'org'
    ) AS t
  ),
  facts AS (
    SELECT m.* FROM pairs AS p CROSS JOIN LATERAL (SELECT ${FACT_COLUMNS} FROM messages
      WHERE author = p.author AND thread = p.thread AND kind = 'plan' AND author_kind = 'agent' AND at <= $2
      ORDER BY at DESC, id DESC LIMIT 1) AS m
    UNION ALL
    SELECT m.* FROM pairs AS p CROSS JOIN LATERAL (SELECT ${FACT_COLUMNS} FROM messages
      WHERE author = p.author AND thread = p.thread AND kind = 'plan' AND author_kind = 'agent'
        AND run_id IS NOT NULL AND run_id = $3::text AND at <= $2
      ORDER BY at DESC, id DESC LIMIT 1) AS m
    UNION ALL
    SELECT m.* FROM pairs AS p CROSS JOIN LATERAL (SELECT ${FACT_COLUMNS} FROM messages
      WHERE thread = p.thread AND at <= $2
      ORDER BY at DESC, id DESC LIMIT $4) AS m
    WHERE p.ord = 1
    UNION ALL
    (SELECT ${FACT_COLUMNS} FROM messages
      WHERE author = ($1::text[])[1] AND author_kind = 'agent' AND at <= $2
      ORDER BY at DESC, id DESC LIMIT $4)
  )
  SELECT json_build_object(
    'lineages', (SELECT json_agg(json_build_object('id', id, 'crews', crews) ORDER BY ord) FROM lineage),
    'hold', (SELECT row_to_json(h) FROM (SELECT ${HOLD_COLUMNS} FROM holds WHERE agent = ($1::text[])[1] AND state = 'active') AS h),
    'run', (SELECT row_to_json(r) FROM (SELECT ${RUN_COLUMNS} FROM runs WHERE id = $3::text) AS r),
    'messages', (SELECT coalesce(json_agg(f), '[]'::json) FROM facts AS f)
  ) AS facts`;

/** The statements each decision runs: each must use an index, never a sequential scan of a table. */
export const DECISION_STATEMENTS = {
  decisionFacts: DECISION_FACTS_SQL,
  candidates: SQL.candidates,
  agentLineage: SQL.agentLineage,
  activeHold: HOLD_SQL.activeHold,
  delegationsTo: RUN_SQL.delegationsTo,
  delegationsFrom: RUN_SQL.delegationsFrom,
  getRun: RUN_SQL.getRun,
} as const;
