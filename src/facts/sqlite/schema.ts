/**
 * The SQLite schema, its migrations and every statement the driver runs.
 * Statements live here, as data, so that a test can `EXPLAIN QUERY PLAN`
 * exactly what the driver prepares.
 */
import { MAX_CREW_DEPTH } from '../validate.js';

/**
 * Migrations, oldest first: `MIGRATIONS[n]` takes a database from schema
 * version `n` to `n + 1`. The version is SQLite's `user_version` pragma.
 * Never edit a released migration; append a new one.
 */
export const MIGRATIONS: readonly string[] = [
  // 0 → 1: the org and the messages.
  `
  CREATE TABLE crews (
    id     TEXT PRIMARY KEY NOT NULL,
    parent TEXT NULL REFERENCES crews(id),
    CHECK (parent IS NULL OR parent <> id)
  ) STRICT;
  CREATE INDEX crews_by_parent ON crews(parent);

  CREATE TABLE agents (
    id   TEXT PRIMARY KEY NOT NULL,
    crew TEXT NOT NULL REFERENCES crews(id)
  ) STRICT;
  CREATE INDEX agents_by_crew ON agents(crew);

  CREATE TABLE messages (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    thread      TEXT NOT NULL,
    author      TEXT NOT NULL,
    author_kind TEXT NOT NULL CHECK (author_kind IN ('agent', 'human')),
    kind        TEXT NOT NULL,
    body        TEXT NOT NULL,
    at          INTEGER NOT NULL,
    run_id      TEXT NULL
  ) STRICT;
  -- Context per thread, and listThread.
  CREATE INDEX messages_by_thread ON messages(thread, at);
  -- Context by author: everything an agent wrote, any thread.
  CREATE INDEX messages_by_agent ON messages(author, at) WHERE author_kind = 'agent';
  -- The newest plan per (author, thread).
  CREATE INDEX messages_plans ON messages(author, thread, at)
    WHERE kind = 'plan' AND author_kind = 'agent';
  -- The newest plan per (author, thread, run).
  CREATE INDEX messages_run_plans ON messages(author, thread, run_id, at)
    WHERE kind = 'plan' AND author_kind = 'agent' AND run_id IS NOT NULL;
  `,
  // 1 → 2: planning holds, with their history and the messages linked to them.
  `
  CREATE TABLE holds (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    agent       TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('reviewer', 'on_demand')),
    task        TEXT NULL,
    placed_by   TEXT NOT NULL,
    placed_at   INTEGER NOT NULL,
    state       TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'released', 'cleared')),
    released_by TEXT NULL,
    released_at INTEGER NULL,
    cleared_by  TEXT NULL,
    cleared_at  INTEGER NULL,
    plans       INTEGER NOT NULL DEFAULT 0,
    push_backs  INTEGER NOT NULL DEFAULT 0,
    last_plan_id INTEGER NULL REFERENCES messages(id),
    CHECK ((state = 'released') = (released_by IS NOT NULL AND released_at IS NOT NULL)),
    CHECK ((state = 'cleared') = (cleared_by IS NOT NULL AND cleared_at IS NOT NULL))
  ) STRICT;
  -- At most one active hold per agent, found with one seek.
  CREATE UNIQUE INDEX holds_active ON holds(agent) WHERE state = 'active';
  -- An agent's history.
  CREATE INDEX holds_by_agent ON holds(agent, id);

  CREATE TABLE hold_messages (
    hold_id    INTEGER NOT NULL REFERENCES holds(id),
    message_id INTEGER NOT NULL REFERENCES messages(id),
    role       TEXT NOT NULL CHECK (role IN ('plan', 'pushback')),
    PRIMARY KEY (hold_id, message_id)
  ) STRICT, WITHOUT ROWID;
  `,
  // 2 → 3: runs and delegations, recorded by a trusted party.
  `
  CREATE TABLE runs (
    id            TEXT PRIMARY KEY NOT NULL,
    seat          TEXT NOT NULL,
    delegation_id TEXT NULL,
    started_at    INTEGER NOT NULL,
    expires_at    INTEGER NOT NULL,
    ended_at      INTEGER NULL,
    started_by    TEXT NOT NULL,
    ended_by      TEXT NULL,
    CHECK (expires_at > started_at),
    CHECK ((ended_at IS NULL) = (ended_by IS NULL))
  ) STRICT;
  -- A seat's runs, newest first.
  CREATE INDEX runs_by_seat ON runs(seat, started_at);
  CREATE INDEX runs_by_start ON runs(started_at);

  CREATE TABLE delegations (
    id         TEXT PRIMARY KEY NOT NULL,
    manager    TEXT NOT NULL,
    worker     TEXT NOT NULL,
    run_id     TEXT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NULL,
    revoked_at INTEGER NULL,
    created_by TEXT NOT NULL,
    CHECK (manager <> worker)
  ) STRICT;
  -- The live delegations to a worker: one seek on the unrevoked ones.
  CREATE INDEX delegations_live_to ON delegations(worker, created_at) WHERE revoked_at IS NULL;
  `,
  // 3 → 4: one manager's live delegations to a worker, whatever other seats delegate to it.
  `
  CREATE INDEX delegations_live_from_to ON delegations(worker, manager, created_at) WHERE revoked_at IS NULL;
  `,
  // 4 → 5: a decision's delegation lookup bounded whatever a manager recorded. Each index holds only
  // the rows one branch of delegationsFrom can answer with, in the order it reads them, so that expired,
  // revoked and other runs' delegations are never filtered row by row.
  `
  CREATE INDEX delegations_open ON delegations(worker, manager, created_at)
    WHERE revoked_at IS NULL AND run_id IS NULL AND expires_at IS NULL;
  CREATE INDEX delegations_open_expiring ON delegations(worker, manager, expires_at)
    WHERE revoked_at IS NULL AND run_id IS NULL AND expires_at IS NOT NULL;
  CREATE INDEX delegations_run ON delegations(worker, manager, run_id, created_at)
    WHERE revoked_at IS NULL AND run_id IS NOT NULL AND expires_at IS NULL;
  CREATE INDEX delegations_run_expiring ON delegations(worker, manager, run_id, expires_at)
    WHERE revoked_at IS NULL AND run_id IS NOT NULL AND expires_at IS NOT NULL;
  CREATE INDEX delegations_revoked ON delegations(worker, manager, revoked_at)
    WHERE revoked_at IS NOT NULL;
  DROP INDEX delegations_live_from_to;
  `,
  // 5 → 6: a manager's delegations by time, for its quota (facts/quotas.ts).
  `
  CREATE INDEX delegations_by_manager ON delegations(manager, created_at);
  `,
];

/** The schema version this code writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.length;

const FACT_COLUMNS = 'id, thread, author, author_kind, kind, at, run_id';

/**
 * Every statement, prepared once per connection. The partial indexes above
 * are chosen only because these statements repeat their conditions
 * literally (`kind = 'plan' AND author_kind = 'agent'`): keep it that way.
 * Ties in time are broken by id, which every index carries as its rowid.
 */
export const SQL = {
  // candidates()
  newestPlan: `SELECT ${FACT_COLUMNS} FROM messages
    WHERE author = ? AND thread = ? AND kind = 'plan' AND author_kind = 'agent' AND at <= ?
    ORDER BY at DESC, id DESC LIMIT 1`,
  newestRunPlan: `SELECT ${FACT_COLUMNS} FROM messages
    WHERE author = ? AND thread = ? AND kind = 'plan' AND author_kind = 'agent' AND run_id = ? AND at <= ?
    ORDER BY at DESC, id DESC LIMIT 1`,
  contextThread: `SELECT ${FACT_COLUMNS} FROM messages
    WHERE thread = ? AND at <= ?
    ORDER BY at DESC, id DESC LIMIT ?`,
  contextAuthor: `SELECT ${FACT_COLUMNS} FROM messages
    WHERE author = ? AND author_kind = 'agent' AND at <= ?
    ORDER BY at DESC, id DESC LIMIT ?`,

  // messages
  insertMessage: `INSERT INTO messages (thread, author, author_kind, kind, body, at, run_id)
    VALUES (?, ?, ?, ?, ?, ?, ?)`,
  listThread: `SELECT id, thread, author, author_kind, kind, body, at, run_id FROM messages
    WHERE thread = ?
    ORDER BY at DESC, id DESC LIMIT ?`,
  getMessage: 'SELECT id, thread, author, author_kind, kind, body, at, run_id FROM messages WHERE id = ?',

  // org
  getCrew: 'SELECT id, parent FROM crews WHERE id = ?',
  listCrews: 'SELECT id, parent FROM crews ORDER BY id',
  upsertCrew: `INSERT INTO crews (id, parent) VALUES (?, ?)
    ON CONFLICT (id) DO UPDATE SET parent = excluded.parent`,
  getAgent: 'SELECT id, crew FROM agents WHERE id = ?',
  listAgents: 'SELECT id, crew FROM agents ORDER BY id',
  upsertAgent: `INSERT INTO agents (id, crew) VALUES (?, ?)
    ON CONFLICT (id) DO UPDATE SET crew = excluded.crew`,
  /** A crew and its ancestors, nearest first; one row past the cap reveals a too-deep chain. */
  crewChain: `WITH RECURSIVE chain(id, parent, depth) AS (
      SELECT id, parent, 1 FROM crews WHERE id = ?
      UNION ALL
      SELECT c.id, c.parent, chain.depth + 1 FROM crews AS c JOIN chain ON c.id = chain.parent
      WHERE chain.depth <= ${MAX_CREW_DEPTH}
    )
    SELECT id FROM chain ORDER BY depth`,
  /** An agent's crew and its ancestors, nearest first; no rows when the agent is unknown. */
  agentLineage: `WITH RECURSIVE chain(id, parent, depth) AS (
      SELECT c.id, c.parent, 1 FROM agents AS a JOIN crews AS c ON c.id = a.crew WHERE a.id = ?
      UNION ALL
      SELECT c.id, c.parent, chain.depth + 1 FROM crews AS c JOIN chain ON c.id = chain.parent
      WHERE chain.depth <= ${MAX_CREW_DEPTH}
    )
    SELECT id FROM chain ORDER BY depth`,
  /** How many levels of crews hang below a crew (0 for a leaf). */
  subtreeHeight: `WITH RECURSIVE below(id, depth) AS (
      SELECT ?, 0
      UNION ALL
      SELECT c.id, below.depth + 1 FROM crews AS c JOIN below ON c.parent = below.id
      WHERE below.depth <= ${MAX_CREW_DEPTH}
    )
    SELECT max(depth) AS height FROM below`,
} as const;

/** The statements `candidates()` runs: each must be an index seek, never a scan. */
export const CANDIDATE_STATEMENTS = ['newestPlan', 'newestRunPlan', 'contextThread', 'contextAuthor'] as const;

const HOLD_COLUMNS = `id, agent, kind, task, placed_by, placed_at, state, released_by, released_at,
  cleared_by, cleared_at, plans, push_backs, last_plan_id`;

/** The statements of the hold half of the store. `activeHold` runs on every decision: an index seek. */
export const HOLD_SQL = {
  activeHold: `SELECT ${HOLD_COLUMNS} FROM holds WHERE agent = ? AND state = 'active'`,
  insertHold: `INSERT INTO holds (agent, kind, task, placed_by, placed_at) VALUES (?, ?, ?, ?, ?)`,
  getHold: `SELECT ${HOLD_COLUMNS} FROM holds WHERE id = ?`,
  release: `UPDATE holds SET state = 'released', released_by = ?, released_at = ? WHERE id = ? AND state = 'active'`,
  clear: `UPDATE holds SET state = 'cleared', cleared_by = ?, cleared_at = ? WHERE id = ? AND state = 'active'`,
  countPlan: `UPDATE holds SET plans = plans + 1, last_plan_id = ? WHERE id = ?`,
  countPushBack: `UPDATE holds SET push_backs = push_backs + 1 WHERE id = ?`,
  link: `INSERT INTO hold_messages (hold_id, message_id, role) VALUES (?, ?, ?)`,
  // The listings read newest first, below a hold id (the largest integer for the first page).
  listActive: `SELECT ${HOLD_COLUMNS} FROM holds WHERE state = 'active' AND id < ? ORDER BY id DESC LIMIT ?`,
  listAll: `SELECT ${HOLD_COLUMNS} FROM holds WHERE id < ? ORDER BY id DESC LIMIT ?`,
  listAgentAll: `SELECT ${HOLD_COLUMNS} FROM holds WHERE agent = ? AND id < ? ORDER BY id DESC LIMIT ?`,
  // The newest `limit`, oldest of them first.
  holdMessages: `SELECT * FROM (SELECT l.role, m.id, m.thread, m.author, m.author_kind, m.kind, m.body, m.at, m.run_id
    FROM hold_messages AS l JOIN messages AS m ON m.id = l.message_id
    WHERE l.hold_id = ? ORDER BY m.id DESC LIMIT ?) ORDER BY id`,
} as const;

const RUN_COLUMNS = 'id, seat, delegation_id, started_at, expires_at, ended_at, started_by, ended_by';
const DELEGATION_COLUMNS = 'id, manager, worker, run_id, created_at, expires_at, revoked_at, created_by';

/** The statements of runs and delegations. `getRun` and `delegationsTo` run on decisions: index seeks. */
export const RUN_SQL = {
  getRun: `SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`,
  insertRun: `INSERT INTO runs (id, seat, delegation_id, started_at, expires_at, started_by)
    VALUES (?, ?, ?, ?, ?, ?)`,
  endRun: `UPDATE runs SET ended_at = ?, ended_by = ? WHERE id = ? AND ended_at IS NULL`,
  listRuns: `SELECT ${RUN_COLUMNS} FROM runs ORDER BY started_at DESC, rowid DESC LIMIT ?`,
  listSeatRuns: `SELECT ${RUN_COLUMNS} FROM runs WHERE seat = ? ORDER BY started_at DESC, rowid DESC LIMIT ?`,
  getDelegation: `SELECT ${DELEGATION_COLUMNS} FROM delegations WHERE id = ?`,
  insertDelegation: `INSERT INTO delegations (id, manager, worker, run_id, created_at, expires_at, created_by)
    VALUES (?, ?, ?, ?, ?, ?, ?)`,
  revoke: `UPDATE delegations SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`,
  delegationsTo: `SELECT ${DELEGATION_COLUMNS} FROM delegations
    WHERE worker = ? AND revoked_at IS NULL AND created_at <= ?
      AND (expires_at IS NULL OR expires_at > ?) AND (run_id IS NULL OR run_id = ?)
    ORDER BY created_at DESC LIMIT ?`,
  /**
   * One manager's delegations to a worker live at `$now` for run `$run`: five
   * range scans, each on a partial index holding only rows its branch can
   * answer with (migration 4 → 5), so that revoked, expired and other runs'
   * delegations are never walked row by row. A delegation revoked after
   * `$now` is returned too (a decision at an earlier time): the policy judges it.
   */
  delegationsFrom: `SELECT ${DELEGATION_COLUMNS} FROM (
    SELECT * FROM (SELECT ${DELEGATION_COLUMNS}, rowid AS seq FROM delegations INDEXED BY delegations_open
      WHERE worker = $worker AND manager = $manager AND revoked_at IS NULL AND run_id IS NULL AND expires_at IS NULL
        AND created_at <= $now
      ORDER BY created_at DESC LIMIT $limit)
    UNION ALL
    SELECT * FROM (SELECT ${DELEGATION_COLUMNS}, rowid AS seq FROM delegations INDEXED BY delegations_open_expiring
      WHERE worker = $worker AND manager = $manager AND revoked_at IS NULL AND run_id IS NULL
        AND expires_at IS NOT NULL AND expires_at > $now AND created_at <= $now
      ORDER BY expires_at DESC LIMIT $limit)
    UNION ALL
    SELECT * FROM (SELECT ${DELEGATION_COLUMNS}, rowid AS seq FROM delegations INDEXED BY delegations_run
      WHERE worker = $worker AND manager = $manager AND revoked_at IS NULL AND run_id IS NOT NULL AND run_id = $run
        AND expires_at IS NULL AND created_at <= $now
      ORDER BY created_at DESC LIMIT $limit)
    UNION ALL
    SELECT * FROM (SELECT ${DELEGATION_COLUMNS}, rowid AS seq FROM delegations INDEXED BY delegations_run_expiring
      WHERE worker = $worker AND manager = $manager AND revoked_at IS NULL AND run_id IS NOT NULL AND run_id = $run
        AND expires_at IS NOT NULL AND expires_at > $now AND created_at <= $now
      ORDER BY expires_at DESC LIMIT $limit)
    UNION ALL
    SELECT * FROM (SELECT ${DELEGATION_COLUMNS}, rowid AS seq FROM delegations INDEXED BY delegations_revoked
      WHERE worker = $worker AND manager = $manager AND revoked_at IS NOT NULL AND revoked_at > $now
        AND created_at <= $now AND (expires_at IS NULL OR expires_at > $now) AND (run_id IS NULL OR run_id = $run)
      ORDER BY revoked_at DESC LIMIT $limit)
    ) ORDER BY created_at DESC, seq DESC LIMIT $limit`,
} as const;

/** The statements a decision runs on runs and delegations: each must be an index seek. */
export const RUN_DECISION_STATEMENTS = ['getRun', 'delegationsTo', 'delegationsFrom'] as const;
