/**
 * The PostgreSQL store's schema: its migrations, applied in order at start
 * under an advisory lock (core/migrations.ts). The statements that read and
 * write it are in ./schema.ts, which the indexes here are made for.
 */
import type { MigrationSet } from '../../core/migrations.js';

/** The store's migrations. Never edit a released step; append a new one. */
export const STORE_MIGRATIONS: MigrationSet = {
  component: 'store',
  steps: [
    // 0 → 1: the org, the messages, planning holds with their history, runs and delegations.
    `
    CREATE TABLE crews (
      id     text PRIMARY KEY,
      parent text NULL REFERENCES crews(id),
      CHECK (parent IS NULL OR parent <> id)
    );
    CREATE INDEX crews_by_parent ON crews(parent);

    CREATE TABLE agents (
      id   text PRIMARY KEY,
      crew text NOT NULL REFERENCES crews(id)
    );
    CREATE INDEX agents_by_crew ON agents(crew);

    CREATE TABLE messages (
      id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      thread      text NOT NULL,
      author      text NOT NULL,
      author_kind text NOT NULL CHECK (author_kind IN ('agent', 'human')),
      kind        text NOT NULL,
      body        text NOT NULL,
      at          bigint NOT NULL,
      run_id      text NULL
    );
    -- Context per thread, and listThread.
    CREATE INDEX messages_by_thread ON messages(thread, at DESC, id DESC);
    -- Context by author: everything an agent wrote, any thread.
    CREATE INDEX messages_by_agent ON messages(author, at DESC, id DESC) WHERE author_kind = 'agent';
    -- The newest plan per (author, thread).
    CREATE INDEX messages_plans ON messages(author, thread, at DESC, id DESC)
      WHERE kind = 'plan' AND author_kind = 'agent';
    -- The newest plan per (author, thread, run), and the plans of a run.
    CREATE INDEX messages_run_plans ON messages(author, thread, run_id, at DESC, id DESC)
      WHERE kind = 'plan' AND author_kind = 'agent' AND run_id IS NOT NULL;

    CREATE TABLE holds (
      id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      agent        text NOT NULL,
      kind         text NOT NULL CHECK (kind IN ('reviewer', 'on_demand')),
      task         text NULL,
      placed_by    text NOT NULL,
      placed_at    bigint NOT NULL,
      state        text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'released', 'cleared')),
      released_by  text NULL,
      released_at  bigint NULL,
      cleared_by   text NULL,
      cleared_at   bigint NULL,
      plans        integer NOT NULL DEFAULT 0,
      push_backs   integer NOT NULL DEFAULT 0,
      last_plan_id bigint NULL REFERENCES messages(id),
      CHECK ((state = 'released') = (released_by IS NOT NULL AND released_at IS NOT NULL)),
      CHECK ((state = 'cleared') = (cleared_by IS NOT NULL AND cleared_at IS NOT NULL))
    );
    -- At most one active hold per agent, whichever replica places it; found with one seek.
    CREATE UNIQUE INDEX holds_active ON holds(agent) WHERE state = 'active';
    CREATE INDEX holds_by_agent ON holds(agent, id DESC);
    CREATE INDEX holds_active_by_id ON holds(id DESC) WHERE state = 'active';

    -- Every change of a hold, from any replica, is announced at commit on the channel plangate_holds,
    -- so that a replica keeping anything about holds in memory can bring it up to date at once.
    CREATE FUNCTION plangate_notify_hold() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('plangate_holds', json_build_object('agent', NEW.agent, 'holdId', NEW.id::text, 'state', NEW.state)::text);
      RETURN NULL;
    END $$;
    CREATE TRIGGER holds_notify AFTER INSERT OR UPDATE ON holds FOR EACH ROW EXECUTE FUNCTION plangate_notify_hold();

    CREATE TABLE hold_messages (
      hold_id    bigint NOT NULL REFERENCES holds(id),
      message_id bigint NOT NULL REFERENCES messages(id),
      role       text NOT NULL CHECK (role IN ('plan', 'pushback')),
      PRIMARY KEY (hold_id, message_id)
    );

    CREATE TABLE runs (
      seq           bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      id            text PRIMARY KEY,
      seat          text NOT NULL,
      delegation_id text NULL,
      started_at    bigint NOT NULL,
      expires_at    bigint NOT NULL,
      ended_at      bigint NULL,
      started_by    text NOT NULL,
      ended_by      text NULL
    );
    -- Newest first; runs started in the same millisecond in the order they were recorded.
    CREATE INDEX runs_by_seat ON runs(seat, started_at DESC, seq DESC);
    CREATE INDEX runs_by_start ON runs(started_at DESC, seq DESC);

    CREATE TABLE delegations (
      seq        bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      id         text PRIMARY KEY,
      manager    text NOT NULL,
      worker     text NOT NULL,
      run_id     text NULL,
      created_at bigint NOT NULL,
      expires_at bigint NULL,
      revoked_at bigint NULL,
      created_by text NOT NULL,
      CHECK (manager <> worker)
    );
    -- The live delegations to a worker.
    CREATE INDEX delegations_to ON delegations(worker, created_at DESC, seq DESC) WHERE revoked_at IS NULL;
    `,
    // 1 → 2: one manager's live delegations to a worker, whatever other seats delegate to it.
    `
    CREATE INDEX delegations_from_to ON delegations(worker, manager, created_at DESC, seq DESC) WHERE revoked_at IS NULL;
    `,
    // 2 → 3: the delegation lookup of a decision bounded whatever a manager recorded. Each index holds
    // only the rows one branch of delegationsFrom can answer with, in the order it reads them, so that
    // expired, revoked and other runs' delegations are never filtered row by row: a manager's million
    // run-bound delegations would otherwise make one claim's lookup outlast the statement timeout.
    `
    CREATE INDEX delegations_open ON delegations(worker, manager, created_at DESC, seq DESC)
      WHERE revoked_at IS NULL AND run_id IS NULL AND expires_at IS NULL;
    CREATE INDEX delegations_open_expiring ON delegations(worker, manager, expires_at DESC)
      WHERE revoked_at IS NULL AND run_id IS NULL AND expires_at IS NOT NULL;
    CREATE INDEX delegations_run ON delegations(worker, manager, run_id, created_at DESC, seq DESC)
      WHERE revoked_at IS NULL AND run_id IS NOT NULL AND expires_at IS NULL;
    CREATE INDEX delegations_run_expiring ON delegations(worker, manager, run_id, expires_at DESC)
      WHERE revoked_at IS NULL AND run_id IS NOT NULL AND expires_at IS NOT NULL;
    CREATE INDEX delegations_revoked ON delegations(worker, manager, revoked_at DESC)
      WHERE revoked_at IS NOT NULL;
    DROP INDEX delegations_from_to;
    `,
  ],
};
