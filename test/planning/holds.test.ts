/** Placing and clearing holds: on demand, by the reviewer, unblock, and across a restart. */
import { describe, expect, it } from 'vitest';
import { ErrorCode, PlangateError } from '../../src/core/errors.js';
import type { Decision, Explanation, EffectiveSettings, Lineage, PolicyInput } from '../../src/core/types.js';
import { createMemoryStore } from '../../src/facts/memory/store.js';
import { createGate } from '../../src/gate/gate.js';
import { expectCode } from '../facts/contract.js';
import { seedOrg } from '../support/world.js';
import { decideExplained, eventTypes, planningWorld } from './support.js';

/** The gate is off everywhere but for the desk crew's profile (0xWORKER and 0xOPS sit below desk; 0xBOT picks "quiet"). */
const RULES = `
planRequired:
  workspace: { mode: side_effects }
tools:
  read: [fs.read_file]
planningGate:
  defaults: { whitelist: [fs.read_file] }
  profiles:
    careful: { enabled: true }
    quiet: { enabled: false }
  crews: { trading: careful }
  agents: { 0xOPS: quiet }
`;

const GATE_OFF = `
planRequired:
  workspace: { mode: side_effects }
`;

describe.each(['memory', 'sqlite'] as const)('holds with the %s store', (storeKind) => {
  it('an operator holds an agent on demand even with the planning gate off', async () => {
    const w = await planningWorld(GATE_OFF, { store: storeKind });
    expect((await w.gate.holds.settingsFor('0xWORKER')).enabled).toEqual({ value: false, from: 'builtin' });
    const hold = await w.gate.holds.place('0xWORKER', { by: 'ops-alice', task: 'Refactor the auth middleware' });
    expect(hold).toMatchObject({ kind: 'on_demand', placedBy: 'ops-alice', state: 'active' });
    const d = await w.gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' });
    expect(d).toMatchObject({ allowed: false, check: 'planning_hold' });
    // Nothing is whitelisted: only the built-in reviewer channel stays open.
    expect(d.message).toContain('none are whitelisted');
    expect((await w.gate.decide({ agent: '0xWORKER', tool: 'plangate_submit_plan' })).allowed).toBe(true);
    expect(eventTypes(w)).toEqual(['HoldPlaced', 'PlanningHoldBlocked']);
    expect(w.audit.events[0]).toMatchObject({ kind: 'on_demand', task: 'Refactor the auth middleware', by: 'ops-alice' });
    await w.store.close();
  });

  it('refuses a reviewer hold where the gate is off, and allows it where a profile turns it on', async () => {
    const off = await planningWorld(GATE_OFF, { store: storeKind });
    await expectCode(off.gate.holds.place('0xWORKER', { by: 'reviewer', kind: 'reviewer' }), ErrorCode.PlanningGateOff, /planning gate is off.*built-in default/);
    expect(await off.gate.holds.get('0xWORKER')).toBeUndefined();
    expect(off.audit.events).toEqual([]);
    await off.store.close();

    const w = await planningWorld(RULES, { store: storeKind });
    // 0xWORKER sits in trading, whose profile turns the gate on; 0xOPS picks the quiet profile; 0xMGR has none.
    expect((await w.gate.holds.place('0xWORKER', { by: 'reviewer', kind: 'reviewer' })).kind).toBe('reviewer');
    await expectCode(w.gate.holds.place('0xOPS', { by: 'reviewer', kind: 'reviewer' }), ErrorCode.PlanningGateOff, /profile quiet \(rules\.yaml:\d+:\d+\)/);
    await expectCode(w.gate.holds.place('0xMGR', { by: 'reviewer', kind: 'reviewer' }), ErrorCode.PlanningGateOff, /built-in default/);
    // An operator can still hold them.
    expect((await w.gate.holds.place('0xOPS', { by: 'ops' })).kind).toBe('on_demand');
    await w.store.close();
  });

  it('refuses a second hold with a message saying to unblock first; unblock then hold works', async () => {
    const w = await planningWorld(RULES, { store: storeKind });
    const first = await w.gate.holds.place('0xWORKER', { by: 'reviewer', kind: 'reviewer', task: 'Task one' });
    const err = await w.gate.holds.place('0xWORKER', { by: 'ops', task: 'Task two' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlangateError);
    expect(err).toMatchObject({ code: ErrorCode.AlreadyHeld });
    expect((err as Error).message).toBe(`0xWORKER is already held (hold ${first.id}, placed by reviewer). Only one hold at a time: clear it first with unblock, then place the new one.`);

    const cleared = await w.gate.holds.unblock('0xWORKER', { by: 'ops' });
    expect(cleared).toMatchObject({ id: first.id, state: 'cleared', clearedBy: 'ops', clearedAt: w.now(), releasedBy: null });
    expect((await w.gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' })).check).toBe('plan_required');

    const second = await w.gate.holds.place('0xWORKER', { by: 'ops', task: 'Task two' });
    expect(second.task).toBe('Task two');
    expect((await w.gate.holds.list()).map((h) => h.id)).toEqual([second.id]);
    expect((await w.gate.holds.list({ all: true })).map((h) => [h.task, h.state])).toEqual([['Task two', 'active'], ['Task one', 'cleared']]);
    expect(eventTypes(w)).toEqual(['HoldPlaced', 'HoldUnblocked', 'PlanRequiredBlocked', 'HoldPlaced']);
    await w.store.close();
  });

  it('refuses a plan, a push-back, a release or an unblock for an agent that is not held', async () => {
    const w = await planningWorld(RULES, { store: storeKind });
    await expectCode(w.gate.holds.submitPlan('0xWORKER', { body: 'p' }), ErrorCode.NotHeld);
    await expectCode(w.gate.holds.pushBack('0xWORKER', { by: 'r', body: 'no' }), ErrorCode.NotHeld);
    await expectCode(w.gate.holds.release('0xWORKER', { by: 'r' }), ErrorCode.NotHeld);
    await expectCode(w.gate.holds.unblock('0xWORKER', { by: 'ops' }), ErrorCode.NotHeld, /not held/);
    await expectCode(w.gate.holds.place('not an id', { by: 'ops' }), ErrorCode.InvalidInput);
    await expectCode(w.gate.holds.place('0xWORKER', { by: '' }), ErrorCode.InvalidInput);
    expect(w.audit.events).toEqual([]);
    await w.store.close();
  });
});

describe('a held agent after a restart', () => {
  it('is still held: the hold, its plans and its history live in the SQLite file', async () => {
    const before = await planningWorld(RULES, { store: 'sqlite' });
    const path = before.path as string;
    await before.gate.holds.place('0xWORKER', { by: 'ops', task: 'Refactor' });
    await before.gate.holds.submitPlan('0xWORKER', { body: 'the plan' });
    await before.store.close();

    // A new process: new store connection, new engine, new gate.
    const after = await planningWorld(RULES, { path, seed: false });
    const d = await after.gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' });
    expect(d).toMatchObject({ allowed: false, code: 'planning_hold:github.merge_pull_request' });
    expect(d.message).toContain('1 plan sent so far');
    expect(await after.gate.holds.get('0xWORKER')).toMatchObject({ task: 'Refactor', plans: 1 });
    await after.gate.holds.release('0xWORKER', { by: 'reviewer' });
    await after.store.close();

    const later = await planningWorld(RULES, { path, seed: false });
    // Released: decided as usual, and the plan sent through the channel is a fresh plan.
    const free = await decideExplained(later.gate, { agent: '0xWORKER', tool: 'github.merge_pull_request' });
    expect(free).toMatchObject({ allowed: true, checks: { planningHold: { held: false } } });
    expect((await later.gate.holds.list({ all: true }))[0]).toMatchObject({ state: 'released', releasedBy: 'reviewer', plans: 1 });
    await later.store.close();
  });
});

describe('holds without a policy (an evaluator failing open)', () => {
  it('still places an on-demand hold, and refuses a reviewer hold as policy_unavailable', async () => {
    const store = createMemoryStore();
    await seedOrg(store);
    const evaluator = {
      decide: (input: PolicyInput) => ({ allowed: true, tool: input.call.tool }) as unknown as Decision,
      explain: (input: PolicyInput) => ({ allowed: true, tool: input.call.tool, candidates: [] }) as unknown as Explanation,
      effective: (_seat: Lineage) => ({}) as EffectiveSettings,
    };
    const gate = createGate({ engine: evaluator, store });
    expect((await gate.holds.place('0xWORKER', { by: 'ops' })).state).toBe('active');
    await expectCode(gate.holds.place('0xMGR', { by: 'r', kind: 'reviewer' }), ErrorCode.PolicyUnavailable, /on-demand hold still works/);
    await expectCode(gate.holds.settingsFor('0xWORKER'), ErrorCode.PolicyUnavailable);
  });

  it('a failing audit sink never changes a hold operation', async () => {
    const store = createMemoryStore();
    const w = await planningWorld(GATE_OFF);
    const errors: unknown[] = [];
    const gate = createGate({
      engine: w.engine, store, clock: w.now,
      audit: { record: () => { throw new Error('disk full'); } },
      onAuditError: (e) => errors.push(e),
    });
    expect((await gate.holds.place('0xWORKER', { by: 'ops' })).state).toBe('active');
    expect((await gate.decide({ agent: '0xWORKER', tool: 'x.y' })).check).toBe('planning_hold');
    expect(errors).toHaveLength(2);
  });
});
