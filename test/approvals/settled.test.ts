/**
 * What the approvals on record decide (plangate/approval_settled, set over
 * the first answer by settledDecision) is what deciding the whole call again
 * answers, field for field, with the real policy: for every state of the
 * record, under an enforcing rule with a plan, and under a rule that does
 * not enforce (a granted call then carries plan-required's would-be
 * refusal). The gate decides with it, and its refusals are the same.
 */
import { describe, expect, it } from 'vitest';
import { toApprovalFact, type Approval } from '../../src/core/approvals.js';
import { argsDigest } from '../../src/core/digest.js';
import { PlangateError } from '../../src/core/errors.js';
import type { PolicyInput } from '../../src/core/types.js';
import { settledDecision } from '../../src/gate/approvals.js';
import { MIN, planningWorld } from '../planning/support.js';

const MERGE = 'github.merge_pull_request';
const SMALLEST = 'approvals: { workspace: { tools: [github.merge_pull_request] } }\n';
const RULES = {
  'approvals only': SMALLEST,
  'plan-required enforcing, with a plan': `planRequired: { workspace: { mode: side_effects } }\n${SMALLEST}`,
  'plan-required not enforcing, no plan': `planRequired: { workspace: { mode: side_effects, enforce: false } }\n${SMALLEST}`,
};
const args = { repo: 'acme/site', pr: 12 };

function record(id: string, status: Approval['status'], now: number, expiresAt: number | null): Approval {
  return {
    id, seat: '0xWORKER', tool: MERGE, runId: null, digest: argsDigest(args), args, planId: null, status, requestedAt: now - MIN,
    windowMin: 15, approvers: { roles: ['approver'], names: [] }, decidedAt: null, decidedBy: null, reason: null, expiresAt, usedAt: null,
  } as Approval;
}

describe('the approvals settled over the first answer', () => {
  for (const [name, yaml] of Object.entries(RULES)) {
    it(`${name}: the same decision as deciding the whole call again, for every state of the record`, async () => {
      const w = await planningWorld(yaml);
      if (name.includes('with a plan')) await w.store.postMessage({ thread: 'agent:0xWORKER', author: '0xWORKER', authorKind: 'agent', kind: 'plan', body: 'merge PR 12', at: w.now() - MIN });
      const now = w.now();
      const states: Record<string, Approval[]> = {
        none: [],
        pending: [record('r1', 'pending', now, null)],
        granted: [record('r1', 'granted', now, now + MIN)],
        expired: [record('r1', 'granted', now, now)],
        used: [record('r1', 'used', now, now + MIN)],
        denied: [record('r1', 'denied', now, null)],
      };
      const base = await w.gate.inputFor({ agent: '0xWORKER', tool: MERGE, args });
      const first = w.engine.decide(base);
      expect(first.approval).toMatchObject({ gathered: false });
      for (const [state, records] of Object.entries(states)) {
        const input: PolicyInput = { ...base, approval: { digest: argsDigest(args), newId: 'new-1', records: records.map(toApprovalFact) } };
        const settled = settledDecision(first, w.engine.approvalSettled(input));
        expect(settled, state).toEqual(w.engine.decide(input));
        if (state === 'granted') expect(settled.allowed).toBe(true);
        if (state === 'granted' && name.includes('not enforcing')) expect(settled).toMatchObject({ shadow: true, code: `plan_required:${MERGE}:none`, reason: 'none' });
        if (state !== 'granted') expect(settled).toMatchObject({ allowed: false, check: 'approval', code: `approval_required:${MERGE}:${state === 'none' ? 'pending' : state}` });
      }
    });
  }

  it('the gate goes through once with the settled answer: granted, then used', async () => {
    const w = await planningWorld(RULES['plan-required not enforcing, no plan']);
    const call = { agent: '0xWORKER', tool: MERGE, args };
    const refused = await w.gate.decide(call);
    expect(refused).toMatchObject({ allowed: false, check: 'approval' });
    await w.store.answerApproval(refused.approval!.request, { status: 'granted', by: 'ops-alice', at: w.now() });
    const allowed = await w.gate.decide(call);
    expect(allowed).toMatchObject({ allowed: true, shadow: true, code: `plan_required:${MERGE}:none`, approval: { status: 'granted' } });
    expect(allowed.check).toBeUndefined();
    expect((await w.gate.decide(call)).code).toBe(`approval_required:${MERGE}:used`);
  });

  it('an input the policy gives no verdict for is an error, never an answer', async () => {
    const w = await planningWorld(SMALLEST);
    const input = await w.gate.inputFor({ agent: '0xWORKER', tool: 'github.create_issue', args });
    expect(() => w.engine.approvalSettled(input)).toThrow(PlangateError);
  });
});
