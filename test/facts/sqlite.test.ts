/** What only the SQLite driver promises: persistence, schema versioning, index use. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/core/errors.js';
import { CANDIDATE_STATEMENTS, HOLD_SQL, MIGRATIONS, RUN_SQL, SCHEMA_VERSION, SQL } from '../../src/facts/sqlite/schema.js';
import { openConnection } from '../../src/facts/sqlite/connection.js';
import { openSqliteStore } from '../../src/facts/sqlite/store.js';
import { keptFacts } from '../../src/facts/sqlite/kept-facts.js';
import { expectCode } from './contract.js';
import type { MessageFact } from '../../src/core/types.js';

const dir = mkdtempSync(join(tmpdir(), 'plangate-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => join(dir, `db-${n++}.db`);

describe('sqlite store', () => {
  it('creates the missing parent folders of the file', async () => {
    const path = join(dir, 'a', 'b', 'c', 'plangate.db');
    const store = openSqliteStore(path);
    await store.putCrew({ id: 'desk', parent: null });
    await store.close();
    expect(existsSync(path)).toBe(true);
  });

  it('keeps the org and the messages across a reopen, and ids keep growing', async () => {
    const path = fresh();
    const a = openSqliteStore(path);
    await a.putCrew({ id: 'root', parent: null });
    await a.putCrew({ id: 'desk', parent: 'root' });
    await a.putAgent({ id: 'W', crew: 'desk' });
    const plan = await a.postMessage({
      thread: 'crew:desk',
      author: 'W',
      authorKind: 'agent',
      kind: 'plan',
      body: 'merge #12',
      at: 1000,
      runId: 'r1',
    });
    await a.close();

    const b = openSqliteStore(path);
    expect(await b.lineage('W')).toEqual({ id: 'W', known: true, crews: ['desk', 'root'] });
    expect(await b.listCrews()).toEqual([
      { id: 'desk', parent: 'root' },
      { id: 'root', parent: null },
    ]);
    expect(await b.listThread('crew:desk', 5)).toEqual([plan]);
    const got = await b.candidates({ now: 5000, runId: 'r1', plansBy: [{ author: 'W', threads: ['crew:desk'] }] });
    expect(got).toEqual([
      { id: plan.id, thread: 'crew:desk', author: 'W', authorKind: 'agent', kind: 'plan', at: 1000, runId: 'r1' },
    ]);
    const next = await b.postMessage({ thread: 'org', author: 'W', authorKind: 'agent', kind: 'note', body: '' });
    expect(Number(next.id)).toBeGreaterThan(Number(plan.id));
    await b.close();
  });

  it('sees writes made by another connection to the same file', async () => {
    const path = fresh();
    const a = openSqliteStore(path);
    const b = openSqliteStore(path);
    await a.putCrew({ id: 'desk', parent: null });
    await b.putAgent({ id: 'W', crew: 'desk' });
    expect((await a.lineage('W')).crews).toEqual(['desk']);
    await a.close();
    await b.close();
  });

  it('decides on the org as it is now, after another connection (or a raw one) moved an agent or a crew', async () => {
    const path = fresh();
    const a = openSqliteStore(path);
    const b = openSqliteStore(path);
    const crewsOf = async (agent: string, upstream: string[] = []): Promise<string[][]> => {
      const f = await a.decisionFacts!({ agent, delegatedBy: upstream, now: 1 });
      return [f.agent.crews, ...f.upstream.map((l) => l.crews)];
    };
    await a.putCrew({ id: 'root', parent: null });
    await a.putCrew({ id: 'desk', parent: 'root' });
    await a.putCrew({ id: 'ops', parent: null });
    await a.putAgent({ id: 'W', crew: 'desk' });
    await a.putAgent({ id: 'M', crew: 'root' });
    expect(await crewsOf('W', ['M'])).toEqual([['desk', 'root'], ['root']]);
    expect(await crewsOf('W', ['M'])).toEqual([['desk', 'root'], ['root']]);
    // Another connection moves the agent, then re-parents its crew.
    await b.putAgent({ id: 'W', crew: 'ops' });
    expect(await crewsOf('W', ['M'])).toEqual([['ops'], ['root']]);
    await b.putCrew({ id: 'root', parent: 'ops' });
    expect(await crewsOf('W', ['M'])).toEqual([['ops'], ['root', 'ops']]);
    // This store's own writes.
    await a.putAgent({ id: 'W', crew: 'desk' });
    expect(await crewsOf('W')).toEqual([['desk', 'root', 'ops']]);
    await a.putCrew({ id: 'desk', parent: null });
    expect(await crewsOf('W')).toEqual([['desk']]);
    // A raw connection, outside any store.
    const raw = new Database(path);
    raw.prepare("UPDATE agents SET crew = 'root' WHERE id = 'W'").run();
    raw.close();
    expect(await crewsOf('W')).toEqual([['root', 'ops']]);
    // The run is read in the same snapshot.
    expect((await a.decisionFacts!({ agent: 'W', delegatedBy: [], now: 1, runId: 'R' })).run).toBeNull();
    const run = await b.startRun({ id: 'R', seat: 'W', startedBy: 'host', startedAt: 1, expiresAt: 10 });
    expect((await a.decisionFacts!({ agent: 'W', delegatedBy: [], now: 1, runId: 'R' })).run).toEqual(run);
    // What a caller does with the facts never reaches what the store keeps.
    (await a.decisionFacts!({ agent: 'W', delegatedBy: [], now: 1 })).agent.crews.push('tampered');
    expect(await crewsOf('W')).toEqual([['root', 'ops']]);
    await a.close();
    await b.close();
  });

  it('sets WAL and the schema version, with the tables and indexes of the schema', async () => {
    const path = fresh();
    // A commit is on disk before it is acknowledged, power loss included (2: FULL).
    const conn = openConnection(path);
    expect([conn.pragma('journal_mode', { simple: true }), conn.pragma('synchronous', { simple: true })]).toEqual(['wal', 2]);
    conn.close();
    await openSqliteStore(path).close();
    const db = new Database(path, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      const names = db
        .prepare<[], string>("SELECT name FROM sqlite_schema WHERE type IN ('table', 'index') AND name NOT LIKE 'sqlite_%'")
        .pluck()
        .all()
        .sort();
      expect(names).toEqual(
        [
          'agents',
          'agents_by_crew',
          'approvals',
          'approvals_by_call',
          'approvals_by_seat',
          'approvals_by_time',
          'approvals_one_pending',
          'crews',
          'crews_by_parent',
          'hold_messages',
          'holds',
          'holds_active',
          'holds_by_agent',
          'messages',
          'messages_by_agent',
          'messages_by_thread',
          'messages_plans',
          'messages_run_plans',
          'runs',
          'runs_by_seat',
          'runs_by_start',
          'delegations',
          'delegations_by_manager',
          'delegations_live_to',
          'delegations_open',
          'delegations_open_expiring',
          'delegations_run',
          'delegations_run_expiring',
          'delegations_revoked',
        ].sort(),
      );
    } finally {
      db.close();
    }
  });

  it('takes a page-cache size in MiB and refuses one out of range', async () => {
    const store = openSqliteStore(fresh(), { cacheSizeMiB: 64 });
    await store.putCrew({ id: 'desk', parent: null });
    expect((await store.lineage('W')).known).toBe(false);
    await store.close();
    for (const bad of [0, -1, 1.5, 70000]) {
      expect(() => openSqliteStore(fresh(), { cacheSizeMiB: bad })).toThrow(/cacheSizeMiB/);
    }
  });

  it('refuses a file whose schema is newer than this code, leaving it untouched', () => {
    const path = fresh();
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => openSqliteStore(path)).toThrowError(/newer/);
    try {
      openSqliteStore(path);
    } catch (err) {
      expect((err as { code: string }).code).toBe(ErrorCode.StoreFailure);
    }
    const again = new Database(path, { readonly: true });
    expect(again.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION + 1);
    again.close();
  });

  it('decides a seat on no crew as unknown until any connection records it', async () => {
    const path = fresh();
    const a = openSqliteStore(path);
    const b = openSqliteStore(path);
    const lineageOf = async (agent: string) => (await a.decisionFacts!({ agent, delegatedBy: [], now: 1 })).agent;
    await a.putCrew({ id: 'desk', parent: null });
    expect(await lineageOf('W')).toEqual({ id: 'W', known: false, crews: [] });
    expect(await lineageOf('W')).toEqual({ id: 'W', known: false, crews: [] });
    // Recorded by another connection: the next decision sees it.
    await b.putAgent({ id: 'W', crew: 'desk' });
    expect(await lineageOf('W')).toEqual({ id: 'W', known: true, crews: ['desk'] });
    // Recorded by this store: the same.
    expect(await lineageOf('V')).toEqual({ id: 'V', known: false, crews: [] });
    await a.putAgent({ id: 'V', crew: 'desk' });
    expect(await lineageOf('V')).toEqual({ id: 'V', known: true, crews: ['desk'] });
    // A raw connection, outside any store.
    expect(await lineageOf('U')).toEqual({ id: 'U', known: false, crews: [] });
    const raw = new Database(path);
    raw.prepare("INSERT INTO agents (id, crew) VALUES ('U', 'desk')").run();
    raw.close();
    expect(await lineageOf('U')).toEqual({ id: 'U', known: true, crews: ['desk'] });
    // What a caller does with an unknown seat's lineage never reaches what the store keeps.
    (await lineageOf('T')).crews.push('tampered');
    expect(await lineageOf('T')).toEqual({ id: 'T', known: false, crews: [] });
    await a.close();
    await b.close();
  });

  describe('facts kept from one decision to the next', () => {
    const plan = (author: string, at?: number) =>
      ({ thread: `agent:${author}`, author, authorKind: 'agent' as const, kind: 'plan', body: 'p', ...(at !== undefined ? { at } : {}) });
    const facts = (s: ReturnType<typeof openSqliteStore>, agent: string, now: number, runId?: string) =>
      s.decisionFacts!({ agent, delegatedBy: [], now, ...(runId !== undefined ? { runId } : {}) });
    const planIds = async (s: ReturnType<typeof openSqliteStore>, agent: string, now: number) => (await facts(s, agent, now)).messages.map((m) => m.id);

    it('sees a hold placed, released or cleared by this store, another connection or a raw one', async () => {
      const path = fresh();
      const a = openSqliteStore(path);
      const b = openSqliteStore(path);
      const now = Date.now() + 60_000;
      expect((await facts(a, 'W', now)).hold).toBeUndefined();
      expect((await facts(a, 'W', now)).hold).toBeUndefined();
      const h1 = await b.placeHold({ agent: 'W', kind: 'on_demand', placedBy: 'operator:o' });
      expect((await facts(a, 'W', now)).hold?.id).toBe(h1.id);
      await a.endHold('W', { state: 'released', by: 'operator:o' });
      expect((await facts(a, 'W', now)).hold).toBeUndefined();
      const h2 = await a.placeHold({ agent: 'W', kind: 'on_demand', placedBy: 'operator:o' });
      expect((await facts(a, 'W', now)).hold?.id).toBe(h2.id);
      const raw = new Database(path);
      raw.prepare("UPDATE holds SET state = 'cleared', cleared_by = 'raw', cleared_at = 1 WHERE agent = 'W' AND state = 'active'").run();
      raw.close();
      expect((await facts(a, 'W', now)).hold).toBeUndefined();
      await a.close();
      await b.close();
    });

    it('sees a plan posted by this store or another connection, and a run started since', async () => {
      const path = fresh();
      const a = openSqliteStore(path);
      const b = openSqliteStore(path);
      const now = Date.now() + 60_000;
      expect(await planIds(a, 'W', now)).toEqual([]);
      const p1 = await a.postMessage(plan('W'));
      expect(await planIds(a, 'W', now)).toEqual([p1.id]);
      const p2 = await b.postMessage(plan('W'));
      expect(await planIds(a, 'W', now)).toEqual([p2.id]);
      expect((await facts(a, 'W', now, 'R')).run).toBeNull();
      const run = await b.startRun({ id: 'R', seat: 'W', startedBy: 'host', startedAt: 1, expiresAt: now * 2 });
      expect((await facts(a, 'W', now, 'R')).run).toEqual(run);
      await a.close();
      await b.close();
    });

    it('counts a plan recorded with a later time from that time on, and never one newer than an earlier decision time', async () => {
      const path = fresh();
      const a = openSqliteStore(path);
      const early = await a.postMessage(plan('W', 1_000));
      const later = await a.postMessage(plan('W', 5_000));
      expect(await planIds(a, 'W', 2_000)).toEqual([early.id]);
      expect(await planIds(a, 'W', 4_999)).toEqual([early.id]);
      expect(await planIds(a, 'W', 5_000)).toEqual([later.id]);
      expect(await planIds(a, 'W', 9_000)).toEqual([later.id]);
      // Time read backwards (an explanation at an earlier time): the later plan is not there yet.
      expect(await planIds(a, 'W', 2_000)).toEqual([early.id]);
      expect(await planIds(a, 'W', 500)).toEqual([]);
      await a.close();
    });

    it('neither gives nor keeps facts inside a transaction the read did not open, and keeps each (seat, run) apart', () => {
      const db = openConnection(fresh());
      const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
      const kept = keptFacts(db, dataVersion);
      const q = { agent: 'A\u0000R', delegatedBy: [], now: 1_000 };
      const facts = { agent: { id: q.agent, known: false, crews: [] }, upstream: [], messages: [] };
      db.transaction(() => kept.keep(q, facts, { author: q.agent, threads: [`agent:${q.agent}`], version: dataVersion.get() as number }))();
      expect(kept.get(q)).toEqual(facts);
      // Another seat and run whose texts, run together, read the same.
      expect(kept.get({ agent: 'A', delegatedBy: [], now: 1_000, runId: 'R' })).toBeUndefined();
      // Inside a caller's transaction (it may be rolled back, and what was read with it).
      db.transaction(() => expect(kept.get(q)).toBeUndefined())();
      db.close();
    });

    it('gives each caller its own copy', async () => {
      const path = fresh();
      const a = openSqliteStore(path);
      await a.placeHold({ agent: 'W', kind: 'on_demand', placedBy: 'operator:o' });
      const p = await a.postMessage(plan('W', 1_000));
      const first = await facts(a, 'W', 2_000);
      first.agent.crews.push('tampered');
      (first.messages[0] as { id: string }).id = 'tampered';
      first.messages.push({ ...(first.messages[0] as MessageFact), id: 'extra' });
      (first.hold as { state: string }).state = 'released';
      // The first read, then two given from what is kept: each one's own.
      for (let i = 0; i < 2; i++) {
        const again = await facts(a, 'W', 2_000);
        expect(again.agent.crews).toEqual([]);
        expect(again.messages.map((m) => m.id)).toEqual([p.id]);
        expect(again.hold?.state).toBe('active');
        again.agent.crews.push('tampered');
        (again.messages[0] as { id: string }).id = 'tampered';
        (again.hold as { state: string }).state = 'released';
      }
      await a.close();
    });
  });

  it('reports a file another connection keeps locked past the busy timeout as store_unavailable, and works once it is free', async () => {
    const path = fresh();
    const store = openSqliteStore(path, { busyTimeoutMs: 50 });
    await store.putCrew({ id: 'desk', parent: null });
    const other = new Database(path);
    other.exec('BEGIN EXCLUSIVE');
    try {
      await expect(store.postMessage({ thread: 'org', author: 'ops', authorKind: 'human', kind: 'note', body: 'hi', at: 1 })).rejects.toMatchObject({
        code: ErrorCode.StoreUnavailable,
        message: expect.stringMatching(/^sqlite store: .* failed: the database file is locked by another connection \(/),
      });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect((await store.postMessage({ thread: 'org', author: 'ops', authorKind: 'human', kind: 'note', body: 'hi', at: 1 })).id).toBeTruthy();
    await store.close();
  });

  it('refuses a path that is not one, and reports a file it cannot open as store_failure', async () => {
    expect(() => openSqliteStore('')).toThrowError(/path/);
    expect(() => openSqliteStore(dir)).toThrowError(/sqlite store/);
  });

  it('enforces the schema itself: author_kind and foreign keys', async () => {
    const path = fresh();
    const store = openSqliteStore(path);
    await store.close();
    const db = new Database(path);
    db.pragma('foreign_keys = ON');
    try {
      expect(() =>
        db.prepare(SQL.insertMessage).run('org', 'W', 'robot', 'plan', '', 1, null),
      ).toThrowError(/CHECK/);
      expect(() => db.prepare(SQL.upsertAgent).run('W', 'ghost')).toThrowError(/FOREIGN KEY/);
    } finally {
      db.close();
    }
    const again = openSqliteStore(path);
    await expectCode(again.putAgent({ id: 'W', crew: 'ghost' }), ErrorCode.NotFound);
    await again.close();
  });

  describe('candidates() lookups are index seeks', () => {
    const expected: Record<(typeof CANDIDATE_STATEMENTS)[number], string> = {
      newestPlan: 'messages_plans',
      newestRunPlan: 'messages_run_plans',
      contextThread: 'messages_by_thread',
      contextAuthor: 'messages_by_agent',
    };
    const args: Record<(typeof CANDIDATE_STATEMENTS)[number], unknown[]> = {
      newestPlan: ['W', 'agent:W', 1000],
      newestRunPlan: ['W', 'agent:W', 'r1', 1000],
      contextThread: ['agent:W', 1000, 5],
      contextAuthor: ['W', 1000, 5],
    };

    /** The EXPLAIN QUERY PLAN detail lines of every candidates statement (and listThread). */
    function plans(db: Database.Database): Array<[string, string[]]> {
      const stmts: Array<[string, string, unknown[]]> = [
        ...CANDIDATE_STATEMENTS.map((k): [string, string, unknown[]] => [k, SQL[k], args[k]]),
        ['listThread', SQL.listThread, ['agent:W', 5]],
      ];
      return stmts.map(([name, sql, params]) => [
        name,
        db
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...params)
          .map((r) => (r as { detail: string }).detail),
      ]);
    }

    function check(db: Database.Database): void {
      for (const [name, details] of plans(db)) {
        const text = details.join(' | ');
        expect(text, name).toMatch(/USING (COVERING )?INDEX/);
        expect(text, name).not.toMatch(/\bSCAN\b/);
        expect(text, name).not.toMatch(/TEMP B-TREE/);
        const index = name === 'listThread' ? 'messages_by_thread' : expected[name as keyof typeof expected];
        expect(text, name).toContain(`INDEX ${index} `);
      }
    }

    it('on an empty store, on a populated one, and after ANALYZE', async () => {
      const path = fresh();
      const store = openSqliteStore(path);
      const db = new Database(path);
      try {
        check(db);
        // A skewed history: many messages by one author in one thread, many human notes, few plans.
        for (let i = 0; i < 3000; i++) {
          await store.postMessage({
            thread: i % 3 === 0 ? 'agent:W' : `agent:A${i % 50}`,
            author: i % 5 === 0 ? 'W' : `A${i % 50}`,
            authorKind: i % 7 === 0 ? 'human' : 'agent',
            kind: i % 11 === 0 ? 'plan' : 'note',
            body: 'x',
            at: i,
            ...(i % 13 === 0 ? { runId: `r${i % 4}` } : {}),
          });
        }
        check(db);
        db.exec('ANALYZE');
        check(db);
      } finally {
        db.close();
        await store.close();
      }
    });
  });

  describe('planning holds', () => {
    it('upgrades a version-1 file, keeping its messages, and then stores holds', async () => {
      const path = fresh();
      const v1 = new Database(path);
      v1.exec(MIGRATIONS[0] as string);
      v1.pragma('user_version = 1');
      v1.prepare(SQL.insertMessage).run('agent:W', 'W', 'agent', 'plan', 'old plan', 5, null);
      v1.close();

      const store = openSqliteStore(path);
      expect((await store.listThread('agent:W', 5)).map((m) => m.body)).toEqual(['old plan']);
      const hold = await store.placeHold({ agent: 'W', kind: 'on_demand', placedBy: 'ops', placedAt: 10 });
      expect(hold).toMatchObject({ id: '1', state: 'active' });
      await store.close();
      const db = new Database(path, { readonly: true });
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      db.close();
    });

    it('keeps holds, their links and their history across a reopen', async () => {
      const path = fresh();
      const a = openSqliteStore(path);
      await a.placeHold({ agent: 'W', kind: 'reviewer', task: 'refactor auth', placedBy: 'rev', placedAt: 100 });
      const { message } = await a.postHoldMessage('W', 'plan', { thread: 'agent:W', author: 'W', authorKind: 'agent', kind: 'plan', body: 'p1', at: 110 });
      await a.close();

      const b = openSqliteStore(path);
      const held = await b.activeHold('W');
      expect(held).toMatchObject({ kind: 'reviewer', task: 'refactor auth', plans: 1, lastPlanId: message.id });
      await b.endHold('W', { state: 'released', by: 'rev', at: 120 });
      await b.close();

      const c = openSqliteStore(path);
      expect(await c.activeHold('W')).toBeUndefined();
      const [past] = await c.listHolds({ all: true });
      expect(past).toMatchObject({ state: 'released', releasedBy: 'rev', releasedAt: 120, plans: 1 });
      expect((await c.holdMessages(past?.id ?? '')).map((l) => [l.role, l.message.body])).toEqual([['plan', 'p1']]);
      await c.close();
    });

    it('enforces one active hold per agent in the schema itself', async () => {
      const path = fresh();
      await openSqliteStore(path).close();
      const db = new Database(path);
      try {
        db.prepare(HOLD_SQL.insertHold).run('W', 'on_demand', null, 'ops', 1);
        expect(() => db.prepare(HOLD_SQL.insertHold).run('W', 'reviewer', null, 'rev', 2)).toThrowError(/UNIQUE/);
        expect(() => db.prepare("UPDATE holds SET state = 'released'").run()).toThrowError(/CHECK/);
      } finally {
        db.close();
      }
    });

    it('finds the active hold of an agent with one index seek', async () => {
      const path = fresh();
      const store = openSqliteStore(path);
      for (let i = 0; i < 200; i++) {
        await store.placeHold({ agent: `A${i % 20}`, kind: 'on_demand', placedBy: 'ops', placedAt: i });
        await store.endHold(`A${i % 20}`, { state: 'cleared', by: 'ops', at: i });
      }
      await store.close();
      const db = new Database(path);
      try {
        for (const analyzed of [false, true]) {
          if (analyzed) db.exec('ANALYZE');
          const detail = db
            .prepare(`EXPLAIN QUERY PLAN ${HOLD_SQL.activeHold}`)
            .all('A1')
            .map((r) => (r as { detail: string }).detail)
            .join(' | ');
          expect(detail).toMatch(/USING (COVERING )?INDEX holds_active /);
          expect(detail).not.toMatch(/\bSCAN\b/);
        }
      } finally {
        db.close();
      }
    });
  });
});

describe('sqlite store: runs and delegations', () => {
  it('finds a run and the live delegations to a worker with index seeks, never a scan', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'plangate-runs-')), 'store.db');
    const store = openSqliteStore(path);
    for (let i = 0; i < 300; i++) {
      await store.startRun({ id: `R${i}`, seat: `A${i % 30}`, startedBy: 'host', startedAt: i, expiresAt: i + 1000 });
      await store.delegate({ manager: `M${i % 7}`, worker: `A${i % 30}`, createdBy: 'host', createdAt: i });
    }
    await store.close();
    const db = new Database(path);
    try {
      const plans: Array<[string, unknown[], RegExp]> = [
        [RUN_SQL.getRun, ['R1'], /USING INDEX sqlite_autoindex_runs_1 \(id=\?\)/],
        [RUN_SQL.delegationsTo, ['A1', 500, 500, null, 100], /USING INDEX delegations_live_to \(worker=\? AND created_at<\?\)/],
        [RUN_SQL.delegationsFrom, [{ worker: 'A1', manager: 'M1', now: 500, run: null, limit: 100 }], /USING INDEX delegations_open \(worker=\? AND manager=\? AND created_at<\?\)/],
        [RUN_SQL.listSeatRuns, ['A1', 10], /USING INDEX runs_by_seat \(seat=\?\)/],
      ];
      for (const analyzed of [false, true]) {
        if (analyzed) db.exec('ANALYZE');
        for (const [sql, args, want] of plans) {
          const detail = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args).map((r) => (r as { detail: string }).detail).join(' | ');
          expect(detail, sql).toMatch(want);
          // A table is never scanned; a subquery under its own LIMIT is read back (SCAN (subquery-N)).
          expect(detail, sql).not.toMatch(/\bSCAN (?!\(subquery-\d+\))/);
        }
      }
    } finally {
      db.close();
    }
  });

  it('upgrades a version-3 file, keeping its delegations, found by manager afterwards', async () => {
    const path = fresh();
    const v3 = new Database(path);
    for (const step of MIGRATIONS.slice(0, 3)) v3.exec(step);
    v3.pragma('user_version = 3');
    v3.prepare(RUN_SQL.insertDelegation).run('d1', 'M', 'W', null, 1, null, 'host');
    v3.close();
    const store = openSqliteStore(path);
    expect((await store.delegationsTo('W', 2, undefined, 'M')).map((d) => d.id)).toEqual(['d1']);
    await store.close();
  });

  it('keeps runs and delegations across reopening the file', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'plangate-runs-')), 'store.db');
    const a = openSqliteStore(path);
    await a.startRun({ id: 'R1', seat: 'W', startedBy: 'host', startedAt: 1, expiresAt: 100 });
    await a.delegate({ id: 'd1', manager: 'M', worker: 'W', createdBy: 'host', createdAt: 1 });
    await a.close();
    const b = openSqliteStore(path);
    expect((await b.getRun('R1'))?.seat).toBe('W');
    expect((await b.delegationsTo('W', 2)).map((d) => d.id)).toEqual(['d1']);
    await b.close();
  });
});
