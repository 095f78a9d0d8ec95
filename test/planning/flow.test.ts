/**
 * Seed 004 end to end: the reviewer holds an agent before it starts a task;
 * the agent orients with the whitelisted tools, sends a plan through the
 * reviewer channel, gets pushed back, sends a better plan and is released;
 * then its work is decided as usual, plan-required included.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CallRefusedError, ErrorCode, PlanRequiredError } from '../../src/core/errors.js';
import { eventTypes, MIN, planningWorld, decideExplained } from './support.js';

const RULES = `
planRequired:
  workspace: { mode: side_effects, windowMin: 30 }
tools:
  read: [fs.read_file, github.get_*, "*.search"]
  effect: [github.merge_pull_request]
  say: [plangate_submit_plan]
planningGate:
  defaults:
    enabled: true
    whitelist: [fs.read_file, "*.search"]
    readGuardMaxBytes: 1048576
readGuard:
  tools:
    fs.read_file: { path: path, range: [offset, limit] }
`;

const W = '0xWORKER';
const MERGE = { agent: W, tool: 'github.merge_pull_request' };

describe.each(['memory', 'sqlite'] as const)('the planning gate, start to finish, with the %s store', (storeKind) => {
  it('hold → refused → orient → plan → push-back → plan → release → plan-required as usual', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plangate-flow-'));
    writeFileSync(join(dir, 'auth.ts'), 'export const auth = 1;\n');
    const w = await planningWorld(RULES, { store: storeKind, readBase: dir });

    // 1. The reviewer holds the worker before it starts the task.
    const hold = await w.gate.holds.place(W, { by: 'reviewer', kind: 'reviewer', task: 'Refactor the auth middleware' });
    expect(hold).toMatchObject({ agent: W, kind: 'reviewer', task: 'Refactor the auth middleware', state: 'active', placedAt: w.now() });

    // 2. Real work is refused, before the effect: guard never runs it.
    const refused = await decideExplained(w.gate, MERGE);
    expect(refused).toMatchObject({ allowed: false, check: 'planning_hold', code: 'planning_hold:github.merge_pull_request' });
    expect(refused.message).toContain('fs.read_file, *.search');
    expect(refused.message).toContain('send your plan through plangate_submit_plan');
    expect(refused.message).toContain('Refactor the auth middleware');
    let ran = false;
    const err = await w.gate.guard(MERGE, () => { ran = true; }).catch((e: unknown) => e);
    expect(ran).toBe(false);
    expect(err).toBeInstanceOf(CallRefusedError);
    expect(err).toMatchObject({ code: ErrorCode.PlanningHold, refusal: 'planning_hold:github.merge_pull_request' });

    // A read that is not whitelisted is refused too.
    const read = await decideExplained(w.gate, { agent: W, tool: 'github.get_pull_request' });
    expect(read).toMatchObject({ allowed: false, code: 'planning_hold:github.get_pull_request' });

    // 3. The whitelisted tools stay open, so the worker can orient.
    const look = await decideExplained(w.gate, { agent: W, tool: 'fs.read_file', args: { path: 'auth.ts' } });
    expect(look).toMatchObject({ allowed: true, checks: { planningHold: { held: true, exempt: 'whitelist' }, readGuard: { status: 'under' } } });
    expect((await decideExplained(w.gate, { agent: W, tool: 'code.search' })).allowed).toBe(true);

    // 4. The plan goes through the reviewer channel: the tool stays open, and the plan is recorded on the hold.
    const channel = await decideExplained(w.gate, { agent: W, tool: 'plangate_submit_plan' });
    expect(channel).toMatchObject({ allowed: true, checks: { planningHold: { exempt: 'reviewer_channel' } } });
    w.advance(2 * MIN);
    const first = await w.gate.holds.submitPlan(W, { body: 'Rewrite auth.ts in place; read the tests first.' });
    expect(first.message).toMatchObject({ thread: `agent:${W}`, author: W, authorKind: 'agent', kind: 'plan' });
    expect(first.hold).toMatchObject({ id: hold.id, plans: 1, lastPlanId: first.message.id });

    // 5. Push-back: a message to the agent; the hold stays.
    w.advance(MIN);
    const pushed = await w.gate.holds.pushBack(W, { by: 'reviewer', body: 'Too broad: which callers change?' });
    expect(pushed.message).toMatchObject({ thread: `agent:${W}`, author: 'reviewer', authorKind: 'human', kind: 'pushback' });
    expect(pushed.hold).toMatchObject({ state: 'active', pushBacks: 1 });
    const still = await decideExplained(w.gate, MERGE);
    expect(still.code).toBe('planning_hold:github.merge_pull_request');
    expect(still.message).toContain('1 plan sent so far and 1 push-back');

    // 6. A second plan, then the release.
    w.advance(MIN);
    const second = await w.gate.holds.submitPlan(W, { body: 'Add an API-key branch to the middleware; two callers change; tests first.' });
    expect(second.hold.plans).toBe(2);
    w.advance(MIN);
    const released = await w.gate.holds.release(W, { by: 'reviewer' });
    expect(released).toMatchObject({ state: 'released', releasedBy: 'reviewer', releasedAt: w.now(), plans: 2, pushBacks: 1 });
    expect(await w.gate.holds.get(W)).toBeUndefined();
    const links = await w.gate.holds.messages(hold.id);
    expect(links.map((l) => l.role)).toEqual(['plan', 'pushback', 'plan']);

    // 7. Work proceeds, decided as usual: plan-required counts the fresh plan…
    const merge = await decideExplained(w.gate, MERGE);
    expect(merge).toMatchObject({ allowed: true, gated: true, checks: { planningHold: { held: false } } });
    expect(merge.plan?.id).toBe(second.message.id);
    expect(await w.gate.guard(MERGE, () => 'merged')).toBe('merged');

    // …and the release approved nothing: once the plan is stale, plan-required refuses.
    w.advance(31 * MIN);
    const stale = await decideExplained(w.gate, MERGE);
    expect(stale).toMatchObject({ allowed: false, check: 'plan_required', code: 'plan_required:github.merge_pull_request:stale' });
    await expect(w.gate.guard(MERGE, () => 'merged')).rejects.toBeInstanceOf(PlanRequiredError);

    // Every step is audited, never with a plan's text.
    expect(eventTypes(w)).toEqual([
      'HoldPlaced',
      'PlanningHoldBlocked', // decide
      'PlanningHoldBlocked', // guard
      'PlanningHoldBlocked', // the read
      'HoldPlanSubmitted',
      'HoldPushedBack',
      'PlanningHoldBlocked',
      'HoldPlanSubmitted',
      'HoldReleased',
      'PlanRequiredBlocked',
      'PlanRequiredBlocked',
    ]);
    expect(w.audit.events[1]).toEqual({
      type: 'PlanningHoldBlocked', time: new Date(w.now() - 36 * MIN).toISOString(), agent: W, crew: 'trading',
      tool: 'github.merge_pull_request', toolClass: 'effect', code: 'planning_hold:github.merge_pull_request',
      runId: null, holdId: hold.id, holdKind: 'reviewer',
    });
    expect(w.audit.events.find((e) => e.type === 'HoldReleased')).toMatchObject({ by: 'reviewer', holdId: hold.id, plans: 2, pushBacks: 1 });
    expect(JSON.stringify(w.audit.events)).not.toMatch(/Rewrite auth|Too broad|API-key branch/);
    await w.store.close();
  });
});
