/** What only the SQLite driver promises: persistence, schema versioning, index use. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/core/errors.js';
import { CANDIDATE_STATEMENTS, SCHEMA_VERSION, SQL } from '../../src/facts/sqlite/schema.js';
import { openSqliteStore } from '../../src/facts/sqlite/store.js';
import { expectCode } from './contract.js';

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

  it('sets WAL and the schema version, with the tables and indexes of the schema', async () => {
    const path = fresh();
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
          'crews',
          'crews_by_parent',
          'messages',
          'messages_by_agent',
          'messages_by_thread',
          'messages_plans',
          'messages_run_plans',
        ].sort(),
      );
    } finally {
      db.close();
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
});
