/**
 * The PostgreSQL audit sink and reader: events from every replica in one
 * table, read back newest first with every filter of `AuditQuery`, only the
 * declared fields stored.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent, PlanRequiredBlocked } from '../../src/audit/port.js';
import { createPostgresAuditSink, type PostgresAuditSink } from '../../src/audit/postgres.js';
import { ErrorCode } from '../../src/core/errors.js';
import { createPool } from '../../src/facts/postgres/pool.js';
import { expectCode } from '../facts/contract.js';
import { freshSchemaUrl, havePostgres } from '../support/postgres.js';
import { auditReaderContract } from './reader-contract.js';

const run = havePostgres('the PostgreSQL audit sink and reader');

const t = (s: number) => new Date(Date.UTC(2026, 5, 1, 12, 0, s)).toISOString();
const blocked = (s: number, agent: string, extra: Partial<PlanRequiredBlocked> = {}): PlanRequiredBlocked => ({
  type: 'PlanRequiredBlocked', time: t(s), agent, crew: 'desk', tool: 'github.merge_pull_request', toolClass: 'effect',
  mode: 'side_effects', code: 'plan_required:github.merge_pull_request:none', runId: null, rule: { scope: 'crew', id: 'desk' }, ...extra,
});

if (run) {
  auditReaderContract('postgres', async () => {
    const fresh = await freshSchemaUrl('auditc');
    const sink = await createPostgresAuditSink(createPool(fresh.url), { ownsPool: true });
    return { sink, reader: sink, close: async () => { await sink.close(); await fresh.drop(); } };
  });
}

describe.runIf(run)('postgres audit', () => {
  let url: string;
  let drop: () => Promise<void>;
  let a: PostgresAuditSink;
  let b: PostgresAuditSink;
  const events: AuditEvent[] = [
    blocked(1, '0xW'),
    { type: 'HoldPlaced', time: t(2), agent: '0xH', holdId: '7', kind: 'on_demand', task: null, by: 'ops' },
    blocked(3, '0xW', { shadow: true }),
    { type: 'PlanningHoldBlocked', time: t(4), agent: '0xH', crew: null, tool: 'fs.write', toolClass: 'effect', code: 'planning_hold:fs.write', runId: null, holdId: '7', holdKind: 'on_demand' },
    blocked(5, '0xV', { crew: 'ops', tool: 'wallet.propose_spend', code: 'plan_required:wallet.propose_spend:stale' }),
  ];

  beforeAll(async () => {
    const fresh = await freshSchemaUrl('audit');
    url = fresh.url;
    drop = fresh.drop;
    // Two replicas: two pools, two sinks, one table.
    [a, b] = await Promise.all([createPostgresAuditSink(createPool(url), { ownsPool: true }), createPostgresAuditSink(createPool(url), { ownsPool: true })]);
    for (const [i, e] of events.entries()) await (i % 2 ? b : a).record(e);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await drop?.();
  });

  it('reads every replica’s events back, newest first, as recorded', async () => {
    expect(await a.query({})).toEqual([...events].reverse());
    expect(await b.query({ limit: 2 })).toEqual([events[4], events[3]]);
  });

  it('filters by type, check, agent, crew, tool, code, shadow and time', async () => {
    const ids = async (q: Parameters<PostgresAuditSink['query']>[0]) => (await a.query(q)).map((e) => events.findIndex((x) => JSON.stringify(x) === JSON.stringify(e)));
    expect(await ids({ type: 'HoldPlaced' })).toEqual([1]);
    expect(await ids({ type: ['HoldPlaced', 'PlanningHoldBlocked'] })).toEqual([3, 1]);
    expect(await ids({ check: 'planning_hold' })).toEqual([3]);
    expect(await ids({ check: 'plan_required', type: 'HoldPlaced' })).toEqual([]);
    expect(await ids({ agent: '0xW' })).toEqual([2, 0]);
    expect(await ids({ crew: 'ops' })).toEqual([4]);
    expect(await ids({ tool: 'github.merge_pull_request' })).toEqual([2, 0]);
    expect(await ids({ code: 'plan_required:wallet.propose_spend:stale' })).toEqual([4]);
    expect(await ids({ shadow: true })).toEqual([2]);
    expect(await ids({ shadow: false, agent: '0xW' })).toEqual([0]);
    expect(await ids({ since: Date.parse(t(2)), until: Date.parse(t(4)) })).toEqual([3, 2, 1]);
  });

  it('refuses a malformed query with invalid_input, and treats a hostile value as data', async () => {
    await expectCode(a.query({ check: 'nope' }), ErrorCode.InvalidInput, /check must be one of/);
    await expectCode(a.query({ limit: 1001 }), ErrorCode.InvalidInput, /limit/);
    await expectCode(a.query({ since: 'yesterday' as unknown as number }), ErrorCode.InvalidInput, /since/);
    await expectCode(a.query({ check: '__proto__' }), ErrorCode.InvalidInput);
    expect(await a.query({ agent: "0xW' OR '1'='1" })).toEqual([]);
  });

  it('stores only the declared fields: a body spread in by mistake never reaches the table', async () => {
    await a.record({ ...blocked(9, '0xSECRET'), body: 'the secret plan' } as AuditEvent);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const { rows } = await c.query("SELECT event::text AS e FROM audit_events WHERE agent = '0xSECRET'");
    await c.end();
    expect(rows).toHaveLength(1);
    expect(rows[0].e).not.toContain('secret plan');
  });

  it('refuses records after close', async () => {
    const s = await createPostgresAuditSink(createPool(url), { ownsPool: true });
    await s.close();
    await expect(s.record(blocked(10, '0xW'))).rejects.toThrow(/closed/);
  });
});
