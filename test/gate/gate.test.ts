import { describe, expect, it } from 'vitest';
import { ErrorCode, PlangateError, PlanRequiredError } from '../../src/core/errors.js';
import { MAX_DELEGATIONS_TO } from '../../src/facts/runs.js';
import { MIN, makeWorld, rulesData, seedOrg } from '../support/world.js';

const sideEffects = rulesData({
  workspace: { mode: 'side_effects', source: 'rules/a.yaml:2:3' },
  tools: { exact: { 'fs.read': 'read', 'plangate.say': 'say', 'wallet.pay': 'spend' }, patterns: [] },
});

describe.each(['memory', 'sqlite'] as const)('gate with the %s store', (storeKind) => {
  it('refuses an unplanned side effect with plan_required:<tool>:none, then allows it once the agent plans', async () => {
    const w = await makeWorld(sideEffects, { store: storeKind });
    await seedOrg(w.store);
    const call = { agent: '0xWORKER', tool: 'github.merge_pull_request' };

    const refused = await w.gate.decide(call);
    expect(refused.allowed).toBe(false);
    expect(refused.code).toBe('plan_required:github.merge_pull_request:none');
    expect(refused.message).toContain('side_effects');
    expect(refused.message).toContain('0xWORKER');
    expect(refused.message).toMatch(/approves nothing/);

    const plan = await w.gate.say({ thread: 'crew:trading', author: '0xWORKER', authorKind: 'agent', kind: 'plan', body: 'merging PR 12 after CI', at: w.now - 5 * MIN });
    const allowed = await w.gate.decide(call);
    expect(allowed.allowed).toBe(true);
    expect(allowed.plan).toMatchObject({ id: plan.id, via: 'fresh', thread: 'crew:trading' });
    expect(allowed.code).toBeUndefined();
  });

  it('says stale when the only plan is older than the window, and counts it for the same run', async () => {
    const w = await makeWorld(sideEffects, { store: storeKind });
    await seedOrg(w.store);
    await w.store.startRun({ id: 'run-1', seat: '0xWORKER', startedBy: 'host', startedAt: w.now - 60 * MIN, expiresAt: w.now + 60 * MIN });
    await w.gate.say({ thread: 'agent:0xWORKER', author: '0xWORKER', authorKind: 'agent', kind: 'plan', body: 'deploy', at: w.now - 45 * MIN, runId: 'run-1' });
    const stale = await w.gate.decide({ agent: '0xWORKER', tool: 'deploy.run' });
    expect(stale.code).toBe('plan_required:deploy.run:stale');
    expect(stale.message).toContain('45 minutes old');
    const sameRun = await w.gate.decide({ agent: '0xWORKER', tool: 'deploy.run', runId: 'run-1' });
    expect(sameRun.allowed).toBe(true);
    expect(sameRun.plan?.via).toBe('same_run');
    expect(sameRun.run).toEqual({ id: 'run-1', status: 'open' });
    const otherRun = await w.gate.decide({ agent: '0xWORKER', tool: 'deploy.run', runId: 'run-2' });
    expect(otherRun.code).toBe('plan_required:deploy.run:stale');
    expect(otherRun.run).toEqual({ id: 'run-2', status: 'unknown' });
    // Once the run is ended its tagged plan is just an old plan.
    await w.gate.runs.end('run-1', { by: 'host' });
    const ended = await w.gate.decide({ agent: '0xWORKER', tool: 'deploy.run', runId: 'run-1' });
    expect(ended).toMatchObject({ allowed: false, code: 'plan_required:deploy.run:stale', run: { id: 'run-1', status: 'ended' } });
  });

  it('counts a run tagged plan only for the run\'s own seat, and only when posted since the run started', async () => {
    const w = await makeWorld(sideEffects, { store: storeKind });
    await seedOrg(w.store);
    await w.store.startRun({ id: 'ops-run', seat: '0xOPS', startedBy: 'host', startedAt: w.now - 60 * MIN, expiresAt: w.now + 60 * MIN });
    await w.gate.say({ thread: 'agent:0xWORKER', author: '0xWORKER', authorKind: 'agent', kind: 'plan', body: 'x', at: w.now - 45 * MIN, runId: 'ops-run' });
    const foreign = await w.gate.decide({ agent: '0xWORKER', tool: 'deploy.run', runId: 'ops-run' });
    expect(foreign).toMatchObject({ allowed: false, run: { id: 'ops-run', status: 'foreign' } });

    const run = await w.gate.runs.start({ seat: '0xWORKER', by: 'host' });
    await w.gate.say({ thread: 'agent:0xWORKER', author: '0xWORKER', authorKind: 'agent', kind: 'plan', body: 'y', at: w.now - 45 * MIN, runId: run.id });
    const early = await w.gate.decide({ agent: '0xWORKER', tool: 'deploy.run', runId: run.id });
    expect(early).toMatchObject({ allowed: false, run: { id: run.id, status: 'open' } });
    expect(run.expiresAt - run.startedAt).toBe(24 * 60 * MIN);
  });

  it('starts a delegated run only under a delegation on record to its seat, live, and for that run when it names one', async () => {
    const w = await makeWorld(sideEffects, { store: storeKind });
    await seedOrg(w.store);
    const any = await w.gate.delegations.record({ manager: '0xMGR', worker: '0xWORKER', by: 'host' });
    expect((await w.gate.runs.start({ seat: '0xWORKER', by: 'host', delegationId: any.id })).delegationId).toBe(any.id);
    const refused = async (run: Parameters<typeof w.gate.runs.start>[0], code: ErrorCode, said: RegExp) => {
      const e = await w.gate.runs.start(run).then(() => undefined, (x: unknown) => x);
      expect(e, said.source).toBeInstanceOf(PlangateError);
      expect(e).toMatchObject({ code, message: expect.stringMatching(said) });
    };
    await refused({ seat: '0xWORKER', by: 'host', delegationId: 'nope' }, ErrorCode.NotFound, /no delegation with id nope/);
    await refused({ seat: '0xOPS', by: 'host', delegationId: any.id }, ErrorCode.InvalidInput, /is to 0xWORKER, not to 0xOPS/);
    const forOne = await w.gate.delegations.record({ manager: '0xMGR', worker: '0xWORKER', by: 'host', runId: 'run-9' });
    await refused({ seat: '0xWORKER', by: 'host', delegationId: forOne.id }, ErrorCode.InvalidInput, /is for run run-9 only/);
    await refused({ seat: '0xWORKER', by: 'host', id: 'run-8', delegationId: forOne.id }, ErrorCode.InvalidInput, /is for run run-9 only/);
    expect((await w.gate.runs.start({ seat: '0xWORKER', by: 'host', id: 'run-9', delegationId: forOne.id })).id).toBe('run-9');
    const brief = await w.store.delegate({ manager: '0xMGR', worker: '0xWORKER', createdBy: 'host', createdAt: w.now - 2 * MIN, expiresAt: w.now - MIN });
    await refused({ seat: '0xWORKER', by: 'host', delegationId: brief.id }, ErrorCode.InvalidInput, /expired at/);
    await w.gate.delegations.revoke(any.id);
    await refused({ seat: '0xWORKER', by: 'host', delegationId: any.id }, ErrorCode.InvalidInput, /was revoked at/);
    // Nothing was started by the refusals.
    expect((await w.gate.runs.list({ seat: '0xOPS' }))).toEqual([]);
    expect((await w.gate.runs.list({ seat: '0xWORKER' })).map((r) => r.delegationId)).toEqual([forOne.id, any.id]);
  });

  it('never gates reads or say, in any mode', async () => {
    const w = await makeWorld(sideEffects, { store: storeKind });
    await seedOrg(w.store);
    for (const tool of ['fs.read', 'plangate.say']) {
      const d = await w.gate.decide({ agent: '0xWORKER', tool });
      expect(d).toMatchObject({ allowed: true, gated: false });
    }
    expect(w.audit.events).toHaveLength(0);
  });

  it('does not count a note, another seat\'s plan, a human\'s plan or a plan in a sibling crew', async () => {
    const w = await makeWorld(sideEffects, { store: storeKind });
    await seedOrg(w.store);
    const at = w.now - MIN;
    await w.gate.say({ thread: 'crew:trading', author: '0xWORKER', authorKind: 'agent', kind: 'note', body: 'about to merge', at });
    await w.gate.say({ thread: 'crew:trading', author: '0xMGR', authorKind: 'agent', kind: 'plan', body: 'merge it', at });
    await w.gate.say({ thread: 'crew:trading', author: '0xWORKER', authorKind: 'human', kind: 'plan', body: 'ship it', at });
    await w.gate.say({ thread: 'crew:ops', author: '0xWORKER', authorKind: 'agent', kind: 'plan', body: 'merge', at });
    const { decision: d } = await w.gate.explain({ agent: '0xWORKER', tool: 'github.merge_pull_request' });
    expect(d.allowed).toBe(false);
    expect(d.code).toBe('plan_required:github.merge_pull_request:none');
    const reasons = Object.fromEntries(d.candidates.map((c) => [`${c.author}/${c.authorKind}/${c.kind}/${c.thread}`, c.reasons]));
    expect(reasons['0xWORKER/agent/note/crew:trading']).toEqual(['not_plan']);
    expect(reasons['0xMGR/agent/plan/crew:trading']).toEqual(['other_author']);
    expect(reasons['0xWORKER/human/plan/crew:trading']).toEqual(['human_author']);
    expect(reasons['0xWORKER/agent/plan/crew:ops']).toEqual(['wrong_thread']);
  });

  it('accepts a manager\'s plan for a delegated call only with acceptUpstream', async () => {
    const data = rulesData({
      workspace: { mode: 'side_effects', source: 'a.yaml:1:1' },
      crews: { trading: { mode: 'side_effects', acceptUpstream: true, source: 'a.yaml:5:5' } },
    });
    const w = await makeWorld(data, { store: storeKind });
    await seedOrg(w.store);
    await w.gate.say({ thread: 'crew:desk', author: '0xMGR', authorKind: 'agent', kind: 'plan', body: 'rebalance', at: w.now - MIN });
    // Not on record yet: the claim does not count, and the decision says so.
    const claimed = await w.gate.decide({ agent: '0xWORKER', tool: 'desk.rebalance', delegatedBy: ['0xMGR'] });
    expect(claimed).toMatchObject({ allowed: false, delegation: { claimed: ['0xMGR'], chain: [], unrecorded: '0xMGR' } });
    expect(claimed.message).toContain('The claimed delegation by 0xMGR is not on record');
    await w.gate.delegations.record({ manager: '0xMGR', worker: '0xWORKER', by: 'host' });
    await w.gate.delegations.record({ manager: '0xMGR', worker: '0xOPS', by: 'host' });
    const delegated = await w.gate.decide({ agent: '0xWORKER', tool: 'desk.rebalance', delegatedBy: ['0xMGR'] });
    expect(delegated.allowed).toBe(true);
    expect(delegated.plan?.author).toBe('0xMGR');
    expect(delegated.delegation).toEqual({ claimed: ['0xMGR'], chain: ['0xMGR'] });
    // 0xOPS has no acceptUpstream: the manager's plan does not count for it.
    const { decision: ops } = await w.gate.explain({ agent: '0xOPS', tool: 'desk.rebalance', delegatedBy: ['0xMGR'] });
    expect(ops.allowed).toBe(false);
    expect(ops.candidates.find((c) => c.author === '0xMGR')?.reasons).toEqual(['upstream_not_accepted']);
  });

  it('refuses an unrecorded claim with claim_refused when asked to, auditing ClaimRefused and nothing else', async () => {
    const w = await makeWorld(sideEffects, { store: storeKind });
    await seedOrg(w.store);
    const call = { agent: '0xWORKER', tool: 'desk.rebalance', delegatedBy: ['0xMGR'], runId: 'r1' };
    const err = await w.gate.decide(call, { unrecordedClaims: 'refuse' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlangateError);
    expect((err as PlangateError).code).toBe(ErrorCode.ClaimRefused);
    expect(w.audit.events).toEqual([{
      type: 'ClaimRefused', time: new Date(w.now).toISOString(), agent: '0xWORKER', claim: 'delegation',
      claimed: ['0xMGR'], refused: '0xMGR', tool: 'desk.rebalance', runId: 'r1',
    }]);
    // A delegation for another run, an expired one and a revoked one are not live either.
    await w.gate.delegations.record({ manager: '0xMGR', worker: '0xWORKER', by: 'host', runId: 'r2' });
    const revoked = await w.gate.delegations.record({ manager: '0xMGR', worker: '0xWORKER', by: 'host' });
    await w.gate.delegations.revoke(revoked.id);
    await w.store.delegate({ manager: '0xMGR', worker: '0xWORKER', createdBy: 'host', createdAt: w.now - 10 * MIN, expiresAt: w.now });
    await expect(w.gate.decide(call, { unrecordedClaims: 'refuse' })).rejects.toMatchObject({ code: ErrorCode.ClaimRefused });
    await w.gate.delegations.record({ manager: '0xMGR', worker: '0xWORKER', by: 'host', runId: 'r1' });
    const d = await w.gate.decide(call, { unrecordedClaims: 'refuse' });
    expect(d.delegation).toEqual({ claimed: ['0xMGR'], chain: ['0xMGR'] });
  });

  it('backs a recorded delegation however many newer ones another seat made to the same worker', async () => {
    const w = await makeWorld(sideEffects, { store: storeKind });
    await seedOrg(w.store);
    await w.store.delegate({ manager: '0xMGR', worker: '0xWORKER', createdBy: 'host', createdAt: w.now - 10 * MIN });
    // Any agent's token may record delegations it makes itself, to any worker.
    for (let i = 0; i < MAX_DELEGATIONS_TO + 1; i++) {
      await w.store.delegate({ manager: '0xOPS', worker: '0xWORKER', createdBy: 'agent:0xOPS', createdAt: w.now - MIN + i });
    }
    const d = await w.gate.decide({ agent: '0xWORKER', tool: 'desk.rebalance', delegatedBy: ['0xMGR'] }, { unrecordedClaims: 'refuse' });
    expect(d.delegation).toEqual({ claimed: ['0xMGR'], chain: ['0xMGR'] });
  });

  it('guard runs the effect only when allowed and audits each refused attempt without bodies', async () => {
    const w = await makeWorld(sideEffects, { store: storeKind });
    await seedOrg(w.store);
    let ran = 0;
    const effect = () => { ran += 1; return 'merged'; };
    const err = await w.gate.guard({ agent: '0xWORKER', tool: 'wallet.pay', runId: 'r9' }, effect).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlanRequiredError);
    expect(err).toMatchObject({ code: 'plan_required', refusal: 'plan_required:wallet.pay:none', tool: 'wallet.pay', reason: 'none' });
    expect(ran).toBe(0);
    expect(w.audit.events).toEqual([{
      type: 'PlanRequiredBlocked', time: new Date(w.now).toISOString(), agent: '0xWORKER', crew: 'trading',
      tool: 'wallet.pay', toolClass: 'spend', mode: 'side_effects', code: 'plan_required:wallet.pay:none',
      runId: 'r9', rule: { scope: 'workspace', source: 'rules/a.yaml:2:3' },
    }]);
    await w.gate.say({ thread: 'org', author: '0xWORKER', authorKind: 'agent', kind: 'plan', body: 'SECRET-BODY pay 5 to acme', at: w.now - MIN });
    await expect(w.gate.guard({ agent: '0xWORKER', tool: 'wallet.pay' }, effect)).resolves.toBe('merged');
    expect(ran).toBe(1);
    await w.gate.decide({ agent: '0xOPS', tool: 'wallet.pay' });
    expect(w.audit.events).toHaveLength(2);
    expect(JSON.stringify(w.audit.events)).not.toContain('SECRET-BODY');
  });

  it('decides an agent the org does not know under the agent and workspace rules only', async () => {
    const data = rulesData({
      workspace: { mode: 'spends_only', source: 'a.yaml:1:1' },
      crews: { trading: { mode: 'off', source: 'a.yaml:3:3' } },
      tools: { exact: { 'wallet.pay': 'spend' } },
    });
    const w = await makeWorld(data, { store: storeKind });
    await seedOrg(w.store);
    const d = await w.gate.decide({ agent: '0xSTRANGER', tool: 'wallet.pay' });
    expect(d).toMatchObject({ allowed: false, agentKnown: false, code: 'plan_required:wallet.pay:none' });
    expect(d.settings.mode).toMatchObject({ value: 'spends_only', scope: 'workspace' });
    await w.gate.say({ thread: 'org', author: '0xSTRANGER', authorKind: 'agent', kind: 'plan', body: 'pay', at: w.now - MIN });
    expect((await w.gate.decide({ agent: '0xSTRANGER', tool: 'wallet.pay' })).allowed).toBe(true);
  });

  it('does not count a plan posted after the decision time', async () => {
    const w = await makeWorld(sideEffects, { store: storeKind });
    await seedOrg(w.store);
    await w.gate.say({ thread: 'agent:0xWORKER', author: '0xWORKER', authorKind: 'agent', kind: 'plan', body: 'x', at: w.now + MIN });
    expect((await w.gate.decide({ agent: '0xWORKER', tool: 't.x' })).allowed).toBe(false);
    expect((await w.gate.decide({ agent: '0xWORKER', tool: 't.x', at: w.now + 2 * MIN })).allowed).toBe(true);
    expect((await w.gate.decide({ agent: '0xWORKER', tool: 't.x', at: new Date(w.now + 2 * MIN).toISOString() })).allowed).toBe(true);
  });

  it('rejects a malformed call with a specific error and audits nothing', async () => {
    const w = await makeWorld(sideEffects, { store: storeKind });
    const bad: unknown[] = [
      {}, { agent: '0xW' }, { agent: '', tool: 'x' }, { agent: '0xW', tool: 'has space' }, { agent: '0xW', tool: 'x', extra: 1 },
      { agent: '__proto__', tool: 'x' }, { agent: '0xW', tool: 'x', at: 'yesterday' }, { agent: '0xW', tool: 'x', delegatedBy: 'm' },
      { agent: '0xW', tool: 'x', runId: '' }, null, 'call',
    ];
    for (const call of bad) {
      const err = await w.gate.decide(call as never).catch((e: unknown) => e);
      expect(err, JSON.stringify(call)).toBeInstanceOf(PlangateError);
      expect((err as PlangateError).code).toBe(ErrorCode.InvalidInput);
    }
    const err = (await w.gate.decide({ agent: '0xW', tool: 'x', extra: 1 } as never).catch((e: unknown) => e)) as PlangateError;
    expect(err.message).toContain('unknown field "extra"');
    expect(w.audit.events).toHaveLength(0);
  });
});

describe('audit failures', () => {
  it('never change a decision', async () => {
    const w = await makeWorld(sideEffects);
    const errors: unknown[] = [];
    const { createGate } = await import('../../src/gate/gate.js');
    const gate = createGate({
      engine: w.engine, store: w.store, clock: () => w.now,
      audit: { record() { throw new Error('disk full'); } },
      onAuditError: (e) => errors.push(e),
    });
    const d = await gate.decide({ agent: '0xW', tool: 'x.y' });
    expect(d.allowed).toBe(false);
    expect(errors).toHaveLength(1);
  });
});
