/**
 * The human gate through the gate, with the real policy and stores: the
 * smallest rule as written, the digest's binding, use-once, expiry,
 * denial, retries joining one request, plan-required in front, the audit
 * (never the arguments' values), and failing closed while the store fails.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { argsDigest } from '../../src/core/digest.js';
import { CallRefusedError } from '../../src/core/errors.js';
import { createMemoryStore } from '../../src/facts/memory/store.js';
import { createGate } from '../../src/gate/gate.js';
import { MIN, planningWorld } from '../planning/support.js';
import { seedOrg } from '../support/world.js';

const SMALLEST = 'approvals: { workspace: { tools: [github.merge_pull_request] } }\n';
const MERGE = 'github.merge_pull_request';

const schema = (name: string): object => JSON.parse(readFileSync(new URL(`../../schemas/${name}`, import.meta.url), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true });
ajv.addSchema(schema('explanation.schema.json'));
const validDecision = ajv.compile(schema('decision.schema.json'));
function expectDecision(x: unknown): void {
  if (!validDecision(x)) throw new Error(`not a decision: ${JSON.stringify(validDecision.errors)}`);
}
const args = { repo: 'acme/site', pr: 12, token: 'CANARY-secret-value-7731' };

describe('the human gate', () => {
  for (const kind of ['memory', 'sqlite'] as const) {
    it(`${kind}: refused pending, approved, goes through once, then used; changed arguments need a new request`, async () => {
      const w = await planningWorld(SMALLEST, { store: kind });
      const call = { agent: '0xWORKER', tool: MERGE, args };
      const first = await w.gate.decide(call);
      expect(first).toMatchObject({ allowed: false, check: 'approval', code: `approval_required:${MERGE}:pending` });
      expectDecision(first);
      const id = first.approval!.request;
      expect(first.message).toContain(`Ask a person to approve request ${id}`);
      const stored = await w.store.getApproval(id);
      expect(stored).toMatchObject({ seat: '0xWORKER', tool: MERGE, runId: null, digest: argsDigest(args), args, status: 'pending', windowMin: 15 });

      // A retry joins the request, in another key order.
      const retry = await w.gate.decide({ ...call, args: { token: args.token, pr: 12, repo: 'acme/site' } });
      expect(retry.approval!.request).toBe(id);
      expect(await w.store.listApprovals()).toHaveLength(1);

      await w.store.answerApproval(id, { status: 'granted', by: 'ops-alice', at: w.now() });
      w.advance(MIN);
      const allowed = await w.gate.decide(call);
      expect(allowed).toMatchObject({ allowed: true, approval: { status: 'granted', request: id } });
      expect((await w.store.getApproval(id))!.status).toBe('used');
      expectDecision(allowed);

      const again = await w.gate.decide(call);
      expect(again.code).toBe(`approval_required:${MERGE}:used`);
      expect(again.approval!.request).not.toBe(id);
      expect(again.message).toContain(`The approval of request ${id} was used by an earlier call`);

      const changed = await w.gate.decide({ ...call, args: { ...args, pr: 13 } });
      expect(changed.code).toBe(`approval_required:${MERGE}:pending`);
      expect(changed.approval!.request).not.toBe(again.approval!.request);

      const types = w.audit.events.map((e) => e.type);
      expect(types).toEqual(['ApprovalRequested', 'ApprovalUsed', 'ApprovalRequested', 'ApprovalRequested']);
      expect(JSON.stringify(w.audit.events)).not.toContain('CANARY');
      expect(w.audit.events[0]).toMatchObject({ digest: argsDigest(args), approvalId: id, agent: '0xWORKER', tool: MERGE });
    });
  }

  it('an approval is bound to its run and expires after its window; a denial stands', async () => {
    const w = await planningWorld('approvals: { workspace: { tools: [github.*], windowMin: 5 } }\n');
    const call = { agent: '0xWORKER', tool: MERGE, args, runId: 'run-1' };
    const id = (await w.gate.decide(call)).approval!.request;
    await w.store.answerApproval(id, { status: 'granted', by: 'ops', at: w.now() });
    // Another run, or none, is another call.
    expect((await w.gate.decide({ ...call, runId: 'run-2' })).code).toBe(`approval_required:${MERGE}:pending`);
    expect((await w.gate.decide({ agent: '0xWORKER', tool: MERGE, args })).code).toBe(`approval_required:${MERGE}:pending`);
    w.advance(5 * MIN);
    const late = await w.gate.decide(call);
    expect(late.code).toBe(`approval_required:${MERGE}:expired`);
    expect(w.audit.events.some((e) => e.type === 'ApprovalExpired' && e.approvalId === id)).toBe(true);
    const next = late.approval!.request;
    await w.store.answerApproval(next, { status: 'denied', by: 'ops', at: w.now(), reason: 'not this week' });
    const denied = await w.gate.decide(call);
    expect(denied.code).toBe(`approval_required:${MERGE}:denied`);
    expect(denied.approval!.request).toBe(next);
    expect((await w.gate.decide(call)).approval!.request).toBe(next); // no new request
    await expect(w.gate.guard(call, () => 'ran')).rejects.toBeInstanceOf(CallRefusedError);
  });

  it('plan-required stays in front: no plan, no approval asked; the request names the plan that counted', async () => {
    const w = await planningWorld(`planRequired: { workspace: { mode: side_effects } }\n${SMALLEST}`);
    const call = { agent: '0xWORKER', tool: MERGE, args };
    expect((await w.gate.decide(call)).code).toBe(`plan_required:${MERGE}:none`);
    expect(await w.store.listApprovals()).toHaveLength(0);
    const plan = await w.gate.say({ thread: 'agent:0xWORKER', author: '0xWORKER', authorKind: 'agent', kind: 'plan', body: 'merge #12', at: w.now() });
    const refused = await w.gate.decide(call);
    expect(refused.code).toBe(`approval_required:${MERGE}:pending`);
    expect((await w.store.getApproval(refused.approval!.request))!.planId).toBe(plan.id);
    // Calls the rule does not name need no approval.
    expect((await w.gate.decide({ agent: '0xWORKER', tool: 'github.close_issue' })).approval).toBeUndefined();
  });

  it('fails closed while the store fails: a call that may need approval is refused, others fail open', async () => {
    const w = await planningWorld(SMALLEST);
    const store = createMemoryStore();
    await seedOrg(store);
    const state = { down: false };
    const flaky = new Proxy(store, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        return (...a: unknown[]) => (state.down && ['lineage', 'decisionFacts', 'candidates', 'activeHold', 'listHolds', 'approvalsOf', 'useApproval', 'requestApproval'].includes(String(prop))
          ? Promise.reject(new Error('ECONNREFUSED 10.0.0.5:5432'))
          : value.apply(target, a));
      },
    });
    const gate = createGate({ engine: w.engine, store: flaky, onStoreError: () => {} });
    await gate.decide({ agent: '0xWORKER', tool: 'x.read' }); // the holds have been read once
    const call = { agent: '0xWORKER', tool: MERGE, args };
    const id = (await gate.decide(call)).approval!.request;
    await store.answerApproval(id, { status: 'granted', by: 'ops', at: Date.now() });
    state.down = true;
    const refused = await gate.decide(call);
    expect(refused).toMatchObject({ allowed: false, check: 'approval', code: `approval_required:${MERGE}:pending`, failClosed: { cause: 'store' } });
    expect(refused.message).not.toContain('ECONNREFUSED');
    expectDecision(refused);
    expect((await gate.decide({ agent: '0xWORKER', tool: 'github.close_issue' })).failOpen).toBeDefined();
    state.down = false;
    expect((await gate.decide(call)).allowed).toBe(true);
  });
});

describe('the digest (RFC 8785)', () => {
  it('key order, whitespace and number spelling do not change it; a changed value does', () => {
    const a = argsDigest({ b: [1, { y: 2, x: 'é' }], a: 1e3 });
    expect(argsDigest(JSON.parse('{ "a" : 1000.0 ,\n "b" : [ 1.0 , { "x" : "\\u00e9" , "y" : 2 } ] }'))).toBe(a);
    expect(argsDigest({ a: 1000, b: [1, { x: 'é', y: 3 }] })).not.toBe(a);
    expect(argsDigest({ a: 1000, b: [{ x: 'é', y: 2 }, 1] })).not.toBe(a);
    expect(argsDigest(undefined)).toBe(argsDigest({}));
    // RFC 8785's own number example serialization (appendix B): 1e21 and 1e-7 as ECMAScript prints them.
    expect(argsDigest({ n: 1e21 })).toBe(argsDigest(JSON.parse('{"n":1E+21}')));
    expect(() => argsDigest({ n: Number.NaN })).toThrow(/canonicalized/);
  });
});
