/**
 * What only the PostgreSQL driver has: migrations that several replicas may
 * run at once, every decision query an index scan with a LIMIT (EXPLAIN),
 * one hold out of many racing placements, org writes serialised across
 * connections, and a clear error when the database cannot be reached.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/core/errors.js';
import { threadsToFetch } from '../../src/core/threads.js';
import type { Lineage } from '../../src/core/types.js';
import { openPostgresStore, type PostgresStore } from '../../src/facts/postgres/store.js';
import { watchHoldChanges, type HoldChange } from '../../src/facts/postgres/listen.js';
import { failingOpen } from '../../src/engine/holder.js';
import { migrate } from '../../src/core/migrations.js';
import { createGate } from '../../src/gate/gate.js';
import { followHoldChanges } from '../../src/main/hold-watch.js';
import { STORE_MIGRATIONS } from '../../src/facts/postgres/migrations.js';
import { DECISION_STATEMENTS } from '../../src/facts/postgres/schema.js';
import { freshSchemaUrl, havePostgres } from '../support/postgres.js';
import { expectCode } from './contract.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** Every scan node of a plan, with whether a Limit is above it. */
function scans(node: PlanNode, underLimit = false, out: Array<{ node: PlanNode; underLimit: boolean }> = []) {
  const limited = underLimit || node['Node Type'] === 'Limit';
  if (node['Relation Name']) out.push({ node, underLimit: limited });
  for (const child of node.Plans ?? []) scans(child, limited, out);
  return out;
}

const run = havePostgres('the PostgreSQL driver tests (migrations, EXPLAIN, hold races, unreachable database)');

describe.runIf(run)('postgres store', () => {
  const drops: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const d of drops) await d();
  });
  const fresh = async () => {
    const f = await freshSchemaUrl('pgtest');
    drops.push(f.drop);
    return f.url;
  };

  it('migrates once when several replicas start at once, and again is a no-op', async () => {
    const url = await fresh();
    const stores = await Promise.all(Array.from({ length: 6 }, () => openPostgresStore(url)));
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const { rows } = await c.query("SELECT version FROM plangate_migrations WHERE component = 'store' ORDER BY version");
    expect(rows.map((r) => r.version)).toEqual(STORE_MIGRATIONS.steps.map((_, i) => i + 1));
    await c.end();
    await stores[0]?.putCrew({ id: 'desk', parent: null });
    const again = await openPostgresStore(url);
    expect(await again.listCrews()).toEqual([{ id: 'desk', parent: null }]);
    await Promise.all([...stores, again].map((s) => s.close()));
  });

  it('upgrades a database of the first schema, keeping its delegations, found by manager afterwards', async () => {
    const url = await fresh();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await migrate(c, { component: 'store', steps: STORE_MIGRATIONS.steps.slice(0, 1) });
      await c.query("INSERT INTO delegations (id, manager, worker, created_at, created_by) VALUES ('d1', 'M', 'W', 1, 'host')");
    } finally {
      await c.end();
    }
    const s = await openPostgresStore(url);
    expect((await s.delegationsTo('W', 2, undefined, 'M')).map((d) => d.id)).toEqual(['d1']);
    await s.close();
  });

  it('refuses a database whose schema is newer than this code', async () => {
    const url = await fresh();
    const s = await openPostgresStore(url);
    await s.pool.query("INSERT INTO plangate_migrations (component, version) VALUES ('store', 99)");
    await s.close();
    await expectCode(openPostgresStore(url), ErrorCode.StoreFailure, /schema version 99 is newer/);
  });

  it('fails with a clear store_unavailable when the database cannot be reached, and never leaks the password', async () => {
    await expectCode(
      openPostgresStore('postgres://app:s3cret@127.0.0.1:1/plangate', { connectTimeoutMs: 500 }),
      ErrorCode.StoreUnavailable,
      /^postgres store: opening failed: the database at postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/plangate cannot be reached/,
    );
  });

  it('answers a value the database refuses as data with invalid_input, never as a failing store; a gate refuses a NUL run id before asking it', async () => {
    const store = await openPostgresStore(await fresh());
    try {
      await store.putCrew({ id: 'desk', parent: null });
      await store.putAgent({ id: 'W', crew: 'desk' });
      // PostgreSQL cannot hold U+0000 in text (SQLSTATE 22021): the request's fault, whatever path it came by.
      await expectCode(store.decisionFacts({ agent: 'W', delegatedBy: [], now: 100, runId: 'r\u0000' }), ErrorCode.InvalidInput, /the store cannot take a value of this request/);
      const gate = createGate({ engine: failingOpen('no policy in this test').evaluator, store, onStoreError: () => {} });
      await expectCode(gate.decide({ agent: 'W', tool: 'wallet.pay', runId: '\u0000' }), ErrorCode.InvalidInput, /call\.runId: a NUL character/);
    } finally {
      await store.close();
    }
  });

  it('gives exactly one hold to 20 placements racing on one agent from separate pools', async () => {
    const url = await fresh();
    const stores = await Promise.all([openPostgresStore(url), openPostgresStore(url)]);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => (stores[i % 2] as PostgresStore).placeHold({ agent: 'W', kind: 'on_demand', placedBy: `ops${i}` })),
    );
    const placed = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.code);
    expect(placed).toHaveLength(1);
    expect(refused).toEqual(Array(19).fill(ErrorCode.AlreadyHeld));
    expect(await stores[1]?.listHolds({ all: true })).toHaveLength(1);
    await Promise.all(stores.map((s) => s.close()));
  });

  it('serialises org writes across connections: two re-parentings racing cannot make a cycle', async () => {
    const url = await fresh();
    const [a, b] = await Promise.all([openPostgresStore(url), openPostgresStore(url)]);
    for (let i = 0; i < 10; i++) {
      await a!.putCrew({ id: `x${i}`, parent: null });
      await a!.putCrew({ id: `y${i}`, parent: null });
      const both = await Promise.allSettled([a!.putCrew({ id: `x${i}`, parent: `y${i}` }), b!.putCrew({ id: `y${i}`, parent: `x${i}` })]);
      expect(both.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    }
    await Promise.all([a!.close(), b!.close()]);
  });

  it('announces every hold change from any replica at commit, and the listener reconnects by itself', async () => {
    const url = await fresh();
    const [a, b] = await Promise.all([openPostgresStore(url), openPostgresStore(url)]);
    const seen: HoldChange[] = [];
    const watch = watchHoldChanges(url, (c) => seen.push(c), () => {}, 100);
    let reconnects = 0;
    watch.onReconnect = () => { reconnects++; };
    await watch.ready;
    const until = async (n: number) => { for (let i = 0; i < 100 && seen.length < n; i++) await new Promise((r) => setTimeout(r, 20)); };

    const h = await a!.placeHold({ agent: 'W', kind: 'on_demand', placedBy: 'ops' });
    await b!.postHoldMessage('W', 'plan', { thread: 'agent:W', author: 'W', authorKind: 'agent', kind: 'plan', body: 'p' });
    await b!.endHold('W', { state: 'released', by: 'reviewer' });
    await until(3);
    expect(seen).toEqual([
      { agent: 'W', holdId: h.id, state: 'active' },
      { agent: 'W', holdId: h.id, state: 'active' },
      { agent: 'W', holdId: h.id, state: 'released' },
    ]);

    await a!.pool.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'plangate-listen'");
    for (let i = 0; i < 100 && reconnects === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(reconnects).toBe(1);
    await b!.placeHold({ agent: 'V', kind: 'on_demand', placedBy: 'ops' });
    await until(4);
    expect(seen.slice(3).map((c) => [c.agent, c.state])).toEqual([['V', 'active']]);
    await watch.close();
    await Promise.all([a!.close(), b!.close()]);
  });

  it('reads a hold again until it can, when the read after its change fails', async () => {
    const url = await fresh();
    const [a, b] = await Promise.all([openPostgresStore(url), openPostgresStore(url)]);
    const gate = createGate({ engine: failingOpen('no policy in this test').evaluator, store: a!, onStoreError: () => {} });
    // The first two reads after a change fail, as a database blip would make them.
    let failures = 2;
    const holds = { ...gate.holds, get: (agent: string) => (failures-- > 0 ? Promise.reject(new Error('connection reset')) : gate.holds.get(agent)) };
    const logged: string[] = [];
    const watch = await followHoldChanges(url, { holds, knownHolds: gate.knownHolds }, (l) => void logged.push(l), { firstMs: 20, maxMs: 100 });
    await b!.placeHold({ agent: 'W', kind: 'on_demand', placedBy: 'ops' });
    for (let i = 0; i < 200 && gate.knownHolds.get('W') === undefined; i++) await new Promise((r) => setTimeout(r, 25));
    expect(gate.knownHolds.get('W')).toBeDefined();
    expect(logged.filter((l) => l.includes("reading W's hold after a change failed (trying again)"))).toHaveLength(2);
    await watch.close();
    await Promise.all([a!.close(), b!.close()]);
  });

  it("forgets, after the hold watch reconnects, a hold that ended while it was away", async () => {
    const url = await fresh();
    const [a, b] = await Promise.all([openPostgresStore(url), openPostgresStore(url)]);
    const gate = createGate({ engine: failingOpen('no policy in this test').evaluator, store: a!, onStoreError: () => {} });
    const watch = await followHoldChanges(url, gate, () => {});
    const until = async (ok: () => boolean) => { for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 25)); };
    await b!.placeHold({ agent: 'W', kind: 'on_demand', placedBy: 'ops' });
    await until(() => gate.knownHolds.get('W') !== undefined);
    expect(gate.knownHolds.get('W')).toBeDefined();

    // The watch's connection drops; the hold ends before it is back, so its NOTIFY is never heard.
    await a!.pool.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'plangate-listen'");
    await b!.endHold('W', { state: 'released', by: 'reviewer' });
    await until(() => gate.knownHolds.get('W') === undefined);
    expect(gate.knownHolds.get('W')).toBeUndefined();
    await watch.close();
    await Promise.all([a!.close(), b!.close()]);
  });

  describe('the queries of a decision', () => {
    let store: PostgresStore;
    beforeAll(async () => {
      // Seeding 200k rows on a busy machine can take longer than the serving timeout.
      store = await openPostgresStore(await fresh(), { statementTimeoutMs: 120_000 });
      const q = store.pool;
      // Enough rows that the planner would rather scan than seek if an index were missing.
      await q.query(`INSERT INTO crews (id, parent) SELECT 'c' || i, NULL FROM generate_series(1, 2000) AS i`);
      await q.query(`INSERT INTO agents (id, crew) SELECT 'a' || i, 'c' || (1 + i % 2000) FROM generate_series(1, 10000) AS i`);
      await q.query(`INSERT INTO messages (thread, author, author_kind, kind, body, at, run_id)
        SELECT 'agent:a' || (i % 10000), 'a' || (i % 10000), CASE WHEN i % 7 = 0 THEN 'human' ELSE 'agent' END,
               CASE WHEN i % 3 = 0 THEN 'note' ELSE 'plan' END, 'b', i, CASE WHEN i % 5 = 0 THEN 'r' || (i % 100) END
        FROM generate_series(1, 200000) AS i`);
      await q.query(`INSERT INTO holds (agent, kind, placed_by, placed_at, state, cleared_by, cleared_at)
        SELECT 'a' || i, 'on_demand', 'ops', i, 'cleared', 'ops', i FROM generate_series(1, 5000) AS i`);
      await q.query(`INSERT INTO runs (id, seat, started_at, expires_at, started_by) SELECT 'r' || i, 'a' || (i % 10000), i, i + 1000, 'host' FROM generate_series(1, 20000) AS i`);
      await q.query(`INSERT INTO delegations (id, manager, worker, created_at, created_by) SELECT 'd' || i, 'm' || i, 'a' || (i % 10000), i, 'host' FROM generate_series(1, 20000) AS i`);
      await q.query('ANALYZE');
    }, 60_000);
    afterAll(() => store.close());

    const params: Record<keyof typeof DECISION_STATEMENTS, unknown[]> = {
      decisionFacts: [['a42', 'a7'], 150_000, 'r2', 5],
      candidates: [['a42', 'a42', 'a7'], ['agent:a42', 'org', 'crew:c1'], 150_000, 'r2', ['agent:a42', 'org'], 'a42', 5],
      agentLineage: ['a42'],
      activeHold: ['a42'],
      delegationsTo: ['a42', 150_000, 'r2', 100],
      delegationsFrom: ['a42', 150_000, 'r2', 100, 'm42'],
      getRun: ['r42'],
    };

    for (const [name, text] of Object.entries(DECISION_STATEMENTS)) {
      it(`${name} uses indexes only${name === 'candidates' ? ', each messages scan under a LIMIT' : ''}`, async () => {
        // The plan the driver runs: prepared, generic (the pool sets plan_cache_mode = force_generic_plan).
        const c = await store.pool.connect();
        let plan: PlanNode;
        try {
          await c.query(`PREPARE explained AS ${text}`);
          const values = params[name as keyof typeof DECISION_STATEMENTS].map((v) => c.escapeLiteral(Array.isArray(v) ? `{${v.map((x) => `"${x}"`).join(',')}}` : String(v)));
          const { rows } = await c.query(`EXPLAIN (FORMAT JSON) EXECUTE explained(${values.join(', ')})`);
          plan = (rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan;
          expect(JSON.stringify(rows[0]['QUERY PLAN']), 'a generic plan keeps its parameters').toMatch(/\$\d/);
        } finally {
          await c.query('DEALLOCATE explained').catch(() => {});
          c.release();
        }
        const found = scans(plan);
        expect(found.length).toBeGreaterThan(0);
        for (const { node, underLimit } of found) {
          expect(node['Node Type'], `${name}: ${node['Relation Name']} via ${node['Node Type']}`).toMatch(/^Index (Only )?Scan$|^Bitmap Heap Scan$/);
          if (name === 'candidates') {
            expect(node['Relation Name']).toBe('messages');
            expect(underLimit, `${name}: a messages scan without a LIMIT`).toBe(true);
          }
        }
      });
    }

    it('reads the same facts in one statement as lineage, activeHold and candidates do one at a time', async () => {
      await store.pool.query("UPDATE crews SET parent = 'c1' WHERE id IN ('c2', 'c3')");
      await store.pool.query("UPDATE crews SET parent = 'c2' WHERE id = 'c4'");
      await store.placeHold({ agent: 'a3', kind: 'on_demand', placedBy: 'ops', task: 't' });
      for (const id of ['rq1', 'rq5', 'rq7']) await store.startRun({ id, seat: 'a1', startedBy: 'host', startedAt: 1, expiresAt: 10 ** 9 });
      for (let i = 0; i < 60; i++) {
        const agent = `a${(i * 37) % 10_050}`; // some unknown to the org
        const delegatedBy = i % 3 === 0 ? [`a${i + 1}`, `a${i + 2000}`] : [];
        const q = { agent, delegatedBy, now: 100_000 + i * 1000, ...(i % 2 ? { runId: `rq${i % 10}` } : {}), ...(i % 4 === 0 ? { context: 3 } : {}) };
        const [one, hold, run, ...lineages] = await Promise.all([
          store.decisionFacts(q),
          store.activeHold(agent),
          q.runId ? store.getRun(q.runId) : undefined,
          ...[agent, ...delegatedBy].map((id) => store.lineage(id)),
        ]);
        const [own, ...upstream] = lineages as Lineage[];
        const plansBy = [own!, ...upstream].map((l) => ({ author: l.id, threads: threadsToFetch(l) }));
        const messages = await store.candidates({
          now: q.now, plansBy, ...(q.runId ? { runId: q.runId } : {}),
          ...(q.context ? { context: { threads: threadsToFetch(own!), author: agent, perThread: q.context } } : {}),
        });
        expect(one).toEqual({ agent: own, upstream, messages, ...(hold ? { hold } : {}), ...(q.runId ? { run: run ?? null } : {}) });
      }
      expect((await store.decisionFacts({ agent: 'a3', delegatedBy: [], now: 1 })).hold?.task).toBe('t');
      expect((await store.decisionFacts({ agent: 'a4', delegatedBy: [], now: 1 })).agent.crews).toEqual(['c5']);
      expect((await store.decisionFacts({ agent: 'a3', delegatedBy: [], now: 1 })).agent.crews).toEqual(['c4', 'c2', 'c1']);
    });

    it('answers a decision’s candidates from 200k messages in one statement', async () => {
      const facts = await store.candidates({ now: 150_000, runId: 'r2', plansBy: [{ author: 'a42', threads: ['agent:a42', 'org'] }] });
      expect(facts.every((f) => f.author === 'a42' && f.kind === 'plan' && f.at <= 150_000)).toBe(true);
      expect(facts.length).toBeGreaterThan(0);
    });
  });
});
