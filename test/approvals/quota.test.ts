/**
 * The approvalRequests quota, through the gate with the real policy, on the
 * memory, SQLite and PostgreSQL stores: a new request over the seat's quota
 * is refused naming the quota and nothing is recorded; a retry joining a
 * pending request is no new request and is never refused for it; the
 * window frees the rate; a count that fails refuses the call (fails closed).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryAuditSink } from '../../src/audit/memory.js';
import { argsDigest } from '../../src/core/digest.js';
import { Engine } from '../../src/engine/policy.js';
import { createMemoryStore } from '../../src/facts/memory/store.js';
import { openPostgresStore } from '../../src/facts/postgres/store.js';
import { openSqliteStore } from '../../src/facts/sqlite/store.js';
import type { Store } from '../../src/facts/port.js';
import { createGate } from '../../src/gate/gate.js';
import { MIN, NOW, rulesFrom } from '../planning/support.js';
import { freshSchemaUrl, havePostgres } from '../support/postgres.js';
import { seedOrg } from '../support/world.js';

const MERGE = 'github.merge_pull_request';
const RULES = `approvals: { workspace: { tools: [${MERGE}] } }\nquotas:\n  approvalRequests: { rate: 2, windowMin: 60, standing: 3 }\n`;
const SEAT = '0xWORKER';

const schema = (name: string): object => JSON.parse(readFileSync(new URL(`../../schemas/${name}`, import.meta.url), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true });
ajv.addSchema(schema('explanation.schema.json'));
const validDecision = ajv.compile(schema('decision.schema.json'));
function expectDecision(x: unknown): void {
  if (!validDecision(x)) throw new Error(`not a decision: ${JSON.stringify(validDecision.errors)}`);
}

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function open(kind: 'memory' | 'sqlite' | 'postgres'): Promise<Store> {
  if (kind === 'memory') return createMemoryStore();
  if (kind === 'sqlite') {
    const store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'plangate-approval-quota-')), 'store.db'));
    cleanups.push(() => store.close());
    return store;
  }
  const fresh = await freshSchemaUrl('approval_quota');
  const store = await openPostgresStore(fresh.url);
  cleanups.push(async () => {
    await store.close();
    await fresh.drop();
  });
  return store;
}

async function world(kind: 'memory' | 'sqlite' | 'postgres') {
  const real = await open(kind);
  await seedOrg(real);
  // Runs once just before the next approvalRequests count: another attempt's write landing between the gate's read and its count.
  let before: (() => Promise<unknown>) | undefined;
  const store: Store = Object.assign(Object.create(real) as Store, {
    quotaCounts: async (q: Parameters<Store['quotaCounts']>[0]) => {
      const run = q.kind === 'approvalRequests' ? before : undefined;
      before = undefined;
      await run?.();
      return real.quotaCounts(q);
    },
  });
  const audit = createMemoryAuditSink();
  const refused: string[] = [];
  let now = NOW;
  const gate = createGate({
    engine: await Engine.load({ data: rulesFrom(RULES), rulesRevision: 'test' }), store, audit, clock: () => now,
    onQuotaRefused: (k, limit, seat) => refused.push(`${k}:${limit}:${seat}`),
  });
  const call = (pr: number) => gate.decide({ agent: SEAT, tool: MERGE, args: { repo: 'acme/site', pr } });
  const beforeCount = (f: () => Promise<unknown>) => { before = f; };
  return { store: real, audit, refused, call, beforeCount, now: () => now, advance: (ms: number) => { now += ms; } };
}

describe('the approvalRequests quota', () => {
  for (const kind of ['memory', 'sqlite', 'postgres'] as const) {
    it.runIf(kind !== 'postgres' || havePostgres('the approvalRequests quota'))(`${kind}: over quota refused naming it, nothing recorded; a retry joining a pending request goes on`, async () => {
      const w = await world(kind);
      const first = await w.call(1);
      expect(first).toMatchObject({ allowed: false, code: `approval_required:${MERGE}:pending` });
      w.advance(MIN);
      expect((await w.call(2)).code).toBe(`approval_required:${MERGE}:pending`);

      // The rate (2 an hour) is used up: a retry of a pending call joins it, not refused for the quota.
      const retry = await w.call(1);
      expect(retry).toMatchObject({ allowed: false, code: `approval_required:${MERGE}:pending`, approval: { request: first.approval!.request } });

      // A new call would be a third request in the hour: refused, naming the quota; nothing recorded.
      const over = await w.call(3);
      expect(over).toMatchObject({ allowed: false, check: 'approval', code: 'quota:approvalRequests:rate' });
      expect(over.message).toMatch(/^quota:approvalRequests:rate - /);
      expect(over.approval).toBeUndefined();
      expectDecision(over);
      expect(await w.store.listApprovals({ seat: SEAT })).toHaveLength(2);
      expect(w.refused).toEqual([`approvalRequests:rate:${SEAT}`]);
      expect(w.audit.events.filter((e) => e.type === 'ApprovalRequested')).toHaveLength(2);

      // An hour on, the rate has room again; the standing count (3) then refuses the fourth.
      w.advance(60 * MIN);
      expect((await w.call(3)).code).toBe(`approval_required:${MERGE}:pending`);
      expect((await w.call(4)).code).toBe('quota:approvalRequests:standing');
      expect(await w.store.listApprovals({ seat: SEAT })).toHaveLength(3);

      // At the rate's edge, another attempt of the same call records it between this one's read and its count:
      // the count is over, but this attempt joins that request and is not refused for the quota.
      const race = await world(kind);
      await race.call(10);
      race.beforeCount(() => race.store.requestApproval({
        id: 'other-attempt', seat: SEAT, tool: MERGE, runId: null, digest: argsDigest({ repo: 'acme/site', pr: 11 }), args: { repo: 'acme/site', pr: 11 },
        planId: null, requestedAt: race.now(), windowMin: 15, approvers: { roles: [], names: [] },
      }));
      race.advance(MIN);
      const joined = await race.call(11);
      expect(joined).toMatchObject({ allowed: false, code: `approval_required:${MERGE}:pending`, approval: { request: 'other-attempt' } });
      expect(race.refused).toEqual([]);
      expect(await race.store.listApprovals({ seat: SEAT })).toHaveLength(2);
    });
  }

  it('a quota that cannot be counted refuses the call (fails closed) and records nothing', async () => {
    const w = await world('memory');
    w.beforeCount(async () => {
      throw new Error('the count failed');
    });
    const d = await w.call(1);
    expect(d).toMatchObject({ allowed: false, check: 'approval', code: `approval_required:${MERGE}:pending`, failClosed: { cause: 'store' } });
    expect(await w.store.listApprovals({ seat: SEAT })).toEqual([]);
    expect(w.refused).toEqual([]);
  });
});
