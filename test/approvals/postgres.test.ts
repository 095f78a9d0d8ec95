/**
 * The human gate on real PostgreSQL: two replicas (two stores, each its own
 * pool, on one database) racing on one approval allow exactly one call, and
 * racing first refusals of one call record one request. With the store
 * stopped, a call that needs approval is refused (fails closed).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/policy.js';
import { openPostgresStore, type PostgresStore } from '../../src/facts/postgres/store.js';
import { createGate } from '../../src/gate/gate.js';
import { rulesFrom } from '../planning/support.js';
import { freshSchemaUrl, havePostgres } from '../support/postgres.js';
import { seedOrg } from '../support/world.js';

const MERGE = 'github.merge_pull_request';
const RULES = 'approvals: { workspace: { tools: [github.merge_pull_request] } }\n';

describe.runIf(havePostgres('the human gate across replicas'))('approvals on PostgreSQL', () => {
  const drops: Array<() => Promise<void>> = [];
  const stores: PostgresStore[] = [];
  afterAll(async () => {
    for (const s of stores) await s.close().catch(() => {});
    for (const d of drops) await d();
  });

  async function replicas(n: number) {
    const fresh = await freshSchemaUrl('approvals');
    drops.push(fresh.drop);
    const engine = await Engine.load({ data: rulesFrom(RULES) });
    const out = [];
    for (let i = 0; i < n; i++) {
      const store = await openPostgresStore(fresh.url);
      stores.push(store);
      if (i === 0) await seedOrg(store);
      out.push({ store, gate: createGate({ engine, store, onStoreError: () => {} }) });
    }
    return out;
  }

  it('two replicas racing on one approval allow exactly one call', async () => {
    const [a, b] = await replicas(2);
    const call = { agent: '0xWORKER', tool: MERGE, args: { pr: 12 } };
    // Both refuse at once: one request between them.
    const [ra, rb] = await Promise.all([a!.gate.decide(call), b!.gate.decide(call)]);
    expect(ra.approval!.request).toBe(rb.approval!.request);
    expect(await a!.store.listApprovals()).toHaveLength(1);
    for (let round = 0; round < 5; round++) {
      const id = (await a!.gate.decide(call)).approval!.request;
      await b!.store.answerApproval(id, { status: 'granted', by: 'ops', at: Date.now() });
      const decisions = await Promise.all([a!.gate.decide(call), b!.gate.decide(call), a!.gate.decide(call), b!.gate.decide(call)]);
      expect(decisions.filter((d) => d.allowed)).toHaveLength(1);
      expect(decisions.filter((d) => !d.allowed).every((d) => d.code === `approval_required:${MERGE}:used` || d.code === `approval_required:${MERGE}:pending`)).toBe(true);
      expect((await a!.store.getApproval(id))!.status).toBe('used');
    }
  });

  it('with the store stopped, a call that needs approval is refused, even one approved before', async () => {
    const [a] = await replicas(1);
    const call = { agent: '0xWORKER', tool: MERGE, args: { pr: 1 } };
    await a!.gate.decide({ agent: '0xWORKER', tool: 'github.get_pull_request' });
    const id = (await a!.gate.decide(call)).approval!.request;
    await a!.store.answerApproval(id, { status: 'granted', by: 'ops', at: Date.now() });
    await a!.store.close();
    const refused = await a!.gate.decide(call);
    expect(refused).toMatchObject({ allowed: false, check: 'approval', code: `approval_required:${MERGE}:pending`, failClosed: { cause: 'store' } });
    // A call no approvals rule names fails open, as plan-required does.
    expect((await a!.gate.decide({ agent: '0xWORKER', tool: 'github.get_pull_request' })).failOpen).toBeDefined();
  });
});
