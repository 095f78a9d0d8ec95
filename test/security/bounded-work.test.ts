/**
 * Nothing the governed agent does switches the gate off.
 *
 * - The delegation flood: an agent records many delegations as manager with
 *   its own token (a run that never starts), then claims an unrecorded
 *   16-link chain through that link. The claim is refused 403
 *   `claim_refused`, audited, never failing open; an uninvolved agent is
 *   decided as before. On SQLite and on PostgreSQL.
 * - Outage or the request's failure: one request whose fact gathering is
 *   slow on a healthy store is refused `store_failure` (audited
 *   `StoreFailureRefused`, never let through) while others are decided; a
 *   store that fails for everyone (PostgreSQL stopped; an SQLite store whose
 *   every query fails) fails open for plan-required, closed for a hold, and
 *   /health says degraded.
 */
import { createServer } from 'node:net';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DECISION_FACTS_BUDGET_MS } from '../../src/core/store-failures.js';
import type { Store } from '../../src/facts/port.js';
import { openSqliteStore } from '../../src/facts/sqlite/store.js';
import { openPostgresStore } from '../../src/facts/postgres/store.js';
import { call, serve, TOKENS, type Served } from '../http/support.js';
import { freshSchemaUrl, havePostgres } from '../support/postgres.js';
import { postgresBin, startCluster, type Cluster } from '../replicas/support.js';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';

const MERGE = 'github.merge_pull_request';
/** Rows the flooding agent has recorded: enough that a row-by-row filter would show, few enough for a test. */
const FLOOD = 100_000;
/** 0xWORKER claims a chain through its own flooded link to 0xMGR: 16 links, the first unrecorded. */
const CHAIN = Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? '0xMGR' : '0xWORKER'));

const floodSql = (series: string, now: number) => `
  INSERT INTO delegations (id, manager, worker, run_id, created_at, expires_at, created_by)
  SELECT 'flood-' || i, '0xWORKER', '0xMGR', 'never-started', ${now} - i, NULL, 'agent:0xWORKER' FROM ${series}`;

const pgOn = havePostgres('the delegation flood and store failures on PostgreSQL');

for (const kind of ['sqlite', 'postgres'] as const) {
  describe.runIf(kind === 'sqlite' || pgOn)(`${kind}: an agent's delegation flood`, () => {
    let s: Served;
    let drop: (() => Promise<void>) | undefined;
    let before: Record<string, unknown>;

    beforeAll(async () => {
      let store: string | undefined;
      if (kind === 'postgres') {
        const f = await freshSchemaUrl('flood');
        store = f.url;
        drop = f.drop;
      }
      s = await serve(store ? { store } : {});
      before = (await call(s.url, 'POST', '/v1/decide', { token: TOKENS.bot, json: { tool: MERGE } })).json;
      // Any agent may record a delegation as manager with its own token: the door the flood goes through.
      const first = await call(s.url, 'POST', '/v1/delegations', { token: TOKENS.worker, json: { worker: '0xMGR', runId: 'never-started' } });
      expect(first.status).toBe(201);
      const now = Date.now();
      if (kind === 'sqlite') {
        const db = new Database(join(s.dir, 'store.db'));
        db.exec(floodSql(`(WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${FLOOD}) SELECT i FROM n)`, now));
        db.close();
      } else {
        const c = new pg.Client({ connectionString: store });
        await c.connect();
        await c.query(floodSql(`generate_series(1, ${FLOOD}) AS i`, now));
        await c.query('ANALYZE delegations');
        await c.end();
      }
    }, 120_000);
    afterAll(async () => {
      await s?.close();
      await drop?.();
    });

    it('refuses the unrecorded 16-link claim 403 claim_refused, audited, never failing open', async () => {
      for (const path of ['/v1/decide', '/mcp/call']) {
        const json = path === '/v1/decide' ? { tool: MERGE, delegatedBy: CHAIN } : { name: MERGE, delegatedBy: CHAIN };
        const res = await call(s.url, 'POST', path, { token: TOKENS.worker, json });
        expect(res.status, res.text).toBe(403);
        expect(res.json.error.code).toBe('claim_refused');
        expect(res.text).not.toMatch(/failOpen/);
      }
      expect(s.upstream.received).toHaveLength(0);
      const refused = s.audit().filter((e) => e['type'] === 'ClaimRefused');
      expect(refused).toHaveLength(2);
      expect(refused[0]).toMatchObject({ agent: '0xWORKER', claim: 'delegation', claimed: CHAIN, refused: '0xMGR' });
      expect(s.audit().filter((e) => e['type'] === 'StoreFailureRefused')).toEqual([]);
    });

    it("decides an uninvolved agent as before, whatever the flood", async () => {
      const res = await call(s.url, 'POST', '/v1/decide', { token: TOKENS.bot, json: { tool: MERGE } });
      expect(res.status, res.text).toBe(200);
      expect(res.json.failOpen).toBeUndefined();
      expect(res.json).toEqual(before);
      const health = await call(s.url, 'GET', '/health');
      expect(health.json).toEqual({ status: 'ok' });
    });
  });
}

/** The store with `delegationsTo` made slow for one manager's claims: one request's facts outlast its budget. */
function slowFor(store: Store, manager: string): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (prop !== 'delegationsTo') return (value as (...a: unknown[]) => unknown).bind(target);
      return async (worker: string, now: number, runId?: string, m?: string) => {
        if (m === manager) await new Promise((r) => setTimeout(r, DECISION_FACTS_BUDGET_MS * 2));
        return target.delegationsTo(worker, now, runId, m);
      };
    },
  });
}

/** The store with every query and its probe failing while `down`: an outage. */
function failing(store: Store): { store: Store; state: { down: boolean } } {
  const state = { down: false };
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (state.down && prop !== 'close') throw new Error('SQLITE_IOERR: disk I/O error');
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, state };
}

async function expectRequestFailureRefused(s: Served): Promise<void> {
  const alone = (await call(s.url, 'POST', '/v1/decide', { token: TOKENS.bot, json: { tool: MERGE } })).json;
  // The poisoned request and an uninvolved one, at the same time.
  const [poisoned, other] = await Promise.all([
    call(s.url, 'POST', '/v1/decide', { token: TOKENS.worker, json: { tool: MERGE, delegatedBy: ['0xPOISON'] } }),
    call(s.url, 'POST', '/v1/decide', { token: TOKENS.bot, json: { tool: MERGE } }),
  ]);
  expect(poisoned.status, poisoned.text).toBe(500);
  expect(poisoned.json.error.code).toBe('store_failure');
  expect(poisoned.text).not.toMatch(/failOpen|"allowed":true/);
  expect(other.status, other.text).toBe(200);
  expect(other.json).toEqual(alone);
  expect(other.json.failOpen).toBeUndefined();
  // Through the gateway too: refused, the effect never forwarded.
  const mcp = await call(s.url, 'POST', '/mcp/call', { token: TOKENS.worker, json: { name: MERGE, delegatedBy: ['0xPOISON'] } });
  expect(mcp.status).toBe(500);
  expect(s.upstream.received).toHaveLength(0);
  const events = s.audit().filter((e) => e['type'] === 'StoreFailureRefused');
  expect(events).toHaveLength(2);
  expect(events[0]).toMatchObject({ agent: '0xWORKER', tool: MERGE, delegatedBy: ['0xPOISON'], reason: expect.stringContaining(`${DECISION_FACTS_BUDGET_MS} ms budget`) });
  expect((await call(s.url, 'GET', '/health')).json).toEqual({ status: 'ok' });
}

describe('sqlite: a slow request is refused as its own failure; an outage fails open, holds closed', () => {
  it("refuses one request whose facts outlast the budget on a healthy store, and decides the others", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plangate-slow-'));
    const real = openSqliteStore(join(dir, 'store.db'));
    const s = await serve({ storeInstance: slowFor(real, '0xPOISON') });
    try {
      await expectRequestFailureRefused(s);
    } finally {
      await s.close();
      await real.close();
    }
  });

  it('fails open for plan-required and closed for a hold when every query fails, and says degraded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plangate-down-'));
    const real = openSqliteStore(join(dir, 'store.db'));
    const { store, state } = failing(real);
    const s = await serve({ storeInstance: store });
    try {
      expect((await call(s.url, 'POST', '/v1/holds/0xBOT', { token: TOKENS.operator, json: {} })).status).toBe(201);
      state.down = true;
      await expectOutage(s);
    } finally {
      state.down = false;
      await s.close();
      await real.close();
    }
  });
});

async function expectOutage(s: Served): Promise<void> {
  const open = await call(s.url, 'POST', '/v1/decide', { token: TOKENS.worker, json: { tool: MERGE } });
  expect(open.status, open.text).toBe(200);
  expect(open.json).toMatchObject({ allowed: true, failOpen: { cause: 'store' } });
  const held = await call(s.url, 'POST', '/v1/decide', { token: TOKENS.bot, json: { tool: MERGE } });
  expect(held.json).toMatchObject({ allowed: false, failClosed: { cause: 'store' } });
  expect(s.audit().filter((e) => e['type'] === 'StoreFailureRefused')).toEqual([]);
  expect((await call(s.url, 'GET', '/health')).json).toEqual({ status: 'degraded' });
  const details = await call(s.url, 'GET', '/health', { token: TOKENS.operator });
  expect(details.json.reasons.join(' ')).toMatch(/calls fail open on a store outage/);
}

const bin = postgresBin();
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

describe.runIf(pgOn)('postgres: a slow request is refused as its own failure', () => {
  it("refuses one request whose facts outlast the budget while the database answers, and decides the others", async () => {
    const f = await freshSchemaUrl('slow');
    const real = await openPostgresStore(f.url);
    const s = await serve({ storeInstance: slowFor(real, '0xPOISON') });
    try {
      await expectRequestFailureRefused(s);
    } finally {
      await s.close();
      await real.close();
      await f.drop();
    }
  });
});

describe.runIf(pgOn && Boolean(bin))('postgres stopped: fails open for plan-required, closed for a hold', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = startCluster(bin as string, await freePort());
  }, 60_000);
  afterAll(() => cluster?.destroy());

  it('fails open and closed as specified, says degraded, and decides on the facts again once it is back', async () => {
    const s = await serve({ store: cluster.url });
    try {
      expect((await call(s.url, 'POST', '/v1/holds/0xBOT', { token: TOKENS.operator, json: {} })).status).toBe(201);
      cluster.stop();
      await expectOutage(s);
      cluster.start();
      const back = await call(s.url, 'POST', '/v1/decide', { token: TOKENS.worker, json: { tool: MERGE } });
      expect(back.json).toMatchObject({ allowed: false, code: `plan_required:${MERGE}:none` });
    } finally {
      await s.close();
    }
  }, 60_000);
});
