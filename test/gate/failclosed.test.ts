/**
 * A held agent stays held through every failure: with no policy (the
 * fail-open evaluator) and with a store that throws while deciding. Other
 * agents fail open exactly as before (plan-required guards legibility).
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { createMemoryAuditSink } from '../../src/audit/memory.js';
import { FAIL_CLOSED_REVIEWER_CHANNEL } from '../../src/core/failclosed.js';
import { failingOpen, PolicyHolder } from '../../src/engine/holder.js';
import { createMemoryStore } from '../../src/facts/memory/store.js';
import { createGate } from '../../src/gate/gate.js';
import { listAllActive } from '../../src/gate/holds.js';
import { KnownHolds } from '../../src/gate/known-holds.js';
import { readHoldsAtStart } from '../../src/main/holds-at-start.js';
import { ErrorCode } from '../../src/core/errors.js';
import { MAX_HOLD_LIMIT } from '../../src/facts/holds.js';
import { planningWorld } from '../planning/support.js';
import { seedOrg } from '../support/world.js';

const RULES = `
planRequired:
  workspace: { mode: side_effects }
planningGate:
  defaults: { whitelist: [fs.read_file], reviewerChannel: review.send }
`;

const schema = (name: string): object => JSON.parse(readFileSync(new URL(`../../schemas/${name}`, import.meta.url), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true });
ajv.addSchema(schema('decision.schema.json'));
const validExplanation = ajv.compile(schema('explanation.schema.json'));

/** Throws with the schema's errors unless `x` is an explanation as explanation.schema.json describes it. */
function expectExplanation(x: unknown): void {
  if (!validExplanation(x)) throw new Error(`not an explanation: ${JSON.stringify(validExplanation.errors)}\n${JSON.stringify(x)}`);
}

/** A store whose reads can be made to throw, as a database outage does. */
function flakyStore() {
  const store = createMemoryStore();
  const state = { down: false };
  const fail = (): never => {
    throw new Error('SQLITE_IOERR: disk I/O error');
  };
  const flaky = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => (state.down && ['lineage', 'candidates', 'activeHold', 'decisionFacts', 'listHolds'].includes(String(prop)) ? fail() : value.apply(target, args));
    },
  });
  return { store: flaky, state };
}

describe('holds fail closed', () => {
  it('with no policy: a held agent is refused except the reviewer channel; others fail open', async () => {
    const store = createMemoryStore();
    await seedOrg(store);
    const audit = createMemoryAuditSink();
    const gate = createGate({ engine: new PolicyHolder(failingOpen('rules/plan.yaml:3:9: invalid YAML')), store, audit });
    await gate.holds.place('0xWORKER', { by: 'ops' });
    const refused = await gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' });
    expect(refused).toMatchObject({ allowed: false, check: 'planning_hold', code: 'planning_hold:github.merge_pull_request', failClosed: { cause: 'policy', reason: expect.stringContaining('invalid YAML') } });
    expect(refused.failOpen).toBeUndefined();
    expect(refused.message).toContain("plangate's rules or policy cannot be read");
    expect(refused.message).not.toContain('plan.yaml');
    // Whitelisted reads too: the whitelist is in the rules that cannot be read.
    expect((await gate.decide({ agent: '0xWORKER', tool: 'fs.read_file', args: { path: 'a' } })).allowed).toBe(false);
    const channel = await gate.decide({ agent: '0xWORKER', tool: FAIL_CLOSED_REVIEWER_CHANNEL });
    expect(channel).toMatchObject({ allowed: true, checks: { planningHold: { channelCall: true, exempt: 'reviewer_channel' } } });
    expect(audit.events.filter((e) => e.type === 'PlanningHoldBlocked')).toHaveLength(2);
    // Someone not held: plan-required fails open, as designed.
    expect(await gate.decide({ agent: '0xMGR', tool: 'github.merge_pull_request' })).toMatchObject({ allowed: true, failOpen: {} });
  });

  it('with a store that throws while deciding: holds known before the failure are kept, with the channel the policy named', async () => {
    const w = await planningWorld(RULES);
    const { store, state } = flakyStore();
    await seedOrg(store);
    const audit = createMemoryAuditSink();
    const gate = createGate({ engine: w.engine, store, audit, onStoreError: () => {} });
    await gate.holds.place('0xWORKER', { by: 'ops' });
    await gate.holds.place('0xBOT', { by: 'ops' });
    await gate.holds.release('0xBOT', { by: 'reviewer' });
    expect((await gate.decide({ agent: '0xWORKER', tool: 'review.send' })).allowed).toBe(true); // learns the channel
    state.down = true;
    const refused = await gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request', runId: 'r1' });
    expect(refused).toMatchObject({ allowed: false, code: 'planning_hold:github.merge_pull_request', failClosed: { cause: 'store', reason: expect.stringContaining('SQLITE_IOERR') } });
    expect(refused.message).toContain('review.send');
    // The agent reads the message: it names the cause, never the store's own error text.
    expect(refused.message).toContain("plangate's store is failing");
    expect(refused.message).not.toContain('SQLITE_IOERR');
    expect((await gate.decide({ agent: '0xWORKER', tool: 'review.send' })).allowed).toBe(true);
    expect(audit.events.at(-1)).toMatchObject({ type: 'PlanningHoldBlocked', agent: '0xWORKER', tool: 'github.merge_pull_request', runId: 'r1' });
    // Released before the failure: not held, so it fails open like everyone else.
    expect(await gate.decide({ agent: '0xBOT', tool: 'github.merge_pull_request' })).toMatchObject({ allowed: true, failOpen: {} });
    state.down = false;
    await gate.holds.unblock('0xWORKER', { by: 'ops' });
    state.down = true;
    expect((await gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' })).failOpen).toBeDefined();
  });

  it('explains a call without the policy as it decides it, as explanation.schema.json describes it; without the store it does not guess', async () => {
    const memory = createMemoryStore();
    await seedOrg(memory);
    const gate = createGate({ engine: new PolicyHolder(failingOpen('rules/plan.yaml:3:9: invalid YAML')), store: memory });
    await gate.holds.place('0xWORKER', { by: 'ops' });
    const open = (await gate.explain({ agent: '0xMGR', tool: 'github.merge_pull_request' })).decision;
    expect(open).toMatchObject({ allowed: true, failOpen: { cause: 'policy' } });
    expectExplanation(open);
    // A held agent's call is explained as the refusal it gets, not as failing open.
    const held = (await gate.explain({ agent: '0xWORKER', tool: 'github.merge_pull_request' })).decision;
    const decided = await gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' });
    expect(held).toMatchObject({ allowed: false, check: 'planning_hold', code: decided.code, message: decided.message, failClosed: { cause: 'policy' }, checks: { planningHold: { held: true, refused: true } } });
    expect(held.failOpen).toBeUndefined();
    expectExplanation(held);
    const channel = (await gate.explain({ agent: '0xWORKER', tool: FAIL_CLOSED_REVIEWER_CHANNEL })).decision;
    expect(channel).toMatchObject({ allowed: true, failClosed: {}, checks: { planningHold: { channelCall: true } } });
    expect(channel).not.toHaveProperty('channelCall');
    expectExplanation(channel);
    // Without the store there are no facts to explain from: an error, not a guess.
    const w = await planningWorld(RULES);
    const { store, state } = flakyStore();
    await seedOrg(store);
    const noStore = createGate({ engine: w.engine, store, onStoreError: () => {} });
    state.down = true;
    await expect(noStore.explain({ agent: '0xMGR', tool: 'github.merge_pull_request' })).rejects.toThrow(/SQLITE_IOERR/);
  });

  it('every active hold on record is learnt from the listing at start, however many pages it takes', async () => {
    const w = await planningWorld(RULES);
    const { store, state } = flakyStore();
    await seedOrg(store);
    const gate = createGate({ engine: w.engine, store, onStoreError: () => {} });
    // The oldest hold is on the third page of MAX_HOLD_LIMIT: the first listing alone would miss it.
    await store.placeHold({ agent: '0xWORKER', kind: 'on_demand', placedBy: 'ops', placedAt: 1 });
    for (let i = 0; i < 2 * MAX_HOLD_LIMIT; i++) await store.placeHold({ agent: `0xH${i}`, kind: 'on_demand', placedBy: 'ops', placedAt: 2 + i });
    expect(await listAllActive(gate.holds)).toHaveLength(2 * MAX_HOLD_LIMIT + 1);
    expect(gate.knownHolds.size).toBe(2 * MAX_HOLD_LIMIT + 1);
    state.down = true;
    expect(await gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' })).toMatchObject({ allowed: false, check: 'planning_hold', failClosed: {} });
  });

  it('with the store down since start, no hold is known: every call is refused until the holds have been read once', async () => {
    const w = await planningWorld(RULES);
    const { store, state } = flakyStore();
    await seedOrg(store);
    await store.placeHold({ agent: '0xWORKER', kind: 'on_demand', placedBy: 'ops', placedAt: 1 });
    const gate = createGate({ engine: w.engine, store, onStoreError: () => {} });
    const lines: string[] = [];
    state.down = true;
    const reading = await readHoldsAtStart(gate, (l) => lines.push(l));
    try {
      expect(gate.knownHolds.unread).toBe(true);
      expect(lines.join('\n')).toMatch(/FAILS CLOSED while the store fails/);
      // 0xMGR is not held, but nothing says so: it is refused, and says why.
      const refused = await gate.decide({ agent: '0xMGR', tool: 'github.merge_pull_request' });
      expect(refused).toMatchObject({ allowed: false, check: 'planning_hold', code: 'planning_hold:github.merge_pull_request', failClosed: { cause: 'store', reason: expect.stringMatching(/SQLITE_IOERR.*have not been read since plangate started/) } });
      expect(refused.message).toMatch(/cannot tell whether 0xMGR is on a planning hold/);
      expect(refused.message).not.toContain('SQLITE_IOERR');
      // The store comes back: the listing is tried again and succeeds, and plan-required fails open again for agents not held.
      state.down = false;
      for (let i = 0; i < 40 && gate.knownHolds.unread; i++) await new Promise((r) => setTimeout(r, 100));
      expect(gate.knownHolds.unread).toBe(false);
      expect(gate.knownHolds.get('0xWORKER')).toMatchObject({ kind: 'on_demand' });
      state.down = true;
      expect(await gate.decide({ agent: '0xMGR', tool: 'github.merge_pull_request' })).toMatchObject({ allowed: true, failOpen: {} });
      expect((await gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' })).allowed).toBe(false);
    } finally {
      reading.stop();
    }
  });

  it('a store whose listing ignores before fails after the second page instead of being asked forever', async () => {
    const page = Array.from({ length: MAX_HOLD_LIMIT }, (_, i) => ({ id: String(5000 - i), agent: `0xH${i}`, kind: 'on_demand', state: 'active' }));
    let asked = 0;
    const stuck = { list: async () => { asked++; return page as never; } };
    await expect(listAllActive(stuck)).rejects.toMatchObject({ code: ErrorCode.StoreFailure, message: expect.stringMatching(/did not page back below hold 4001/) });
    expect(asked).toBe(2);
  });

  it('forgets known holds that a later full listing no longer finds, but not one learnt meanwhile', () => {
    const known = new KnownHolds();
    for (const [agent, id] of [['0xA', '1'], ['0xB', '2'], ['0xC', '3']] as const) known.set(agent, { id, kind: 'on_demand' });
    const earlier = known.ids();
    known.set('0xC', { id: '9', kind: 'reviewer' }); // a new hold on 0xC, learnt while the listing ran
    known.forgetEnded(earlier, new Set(['0xA']));
    expect([known.get('0xA')?.id, known.get('0xB'), known.get('0xC')?.id]).toEqual(['1', undefined, '9']);
  });

  it('a hold learnt from a decision is kept too (a hold placed by another replica)', async () => {
    const w = await planningWorld(RULES);
    const { store, state } = flakyStore();
    await seedOrg(store);
    const gate = createGate({ engine: w.engine, store, onStoreError: () => {} });
    await store.placeHold({ agent: '0xWORKER', kind: 'on_demand', placedBy: 'ops', placedAt: Date.now() });
    expect(gate.knownHolds.get('0xWORKER')).toBeUndefined();
    await gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' });
    expect(gate.knownHolds.get('0xWORKER')).toMatchObject({ kind: 'on_demand', channel: 'review.send' });
    state.down = true;
    expect((await gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' })).allowed).toBe(false);
  });
});
