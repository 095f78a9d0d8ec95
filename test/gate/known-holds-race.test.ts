/**
 * The last known holds are not overwritten by an older answer: a decision
 * whose facts were read before a hold was placed must not make the gate
 * forget that hold, or the held agent would go through a failing store.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/facts/memory/store.js';
import type { DecisionFacts, DecisionFactsQuery } from '../../src/facts/port.js';
import { createGate } from '../../src/gate/gate.js';
import { planningWorld } from '../planning/support.js';
import { seedOrg } from '../support/world.js';

const RULES = `
planRequired:
  workspace: { mode: side_effects }
planningGate:
  defaults: { reviewerChannel: review.send }
`;

/**
 * A memory store whose decision facts, while `state.hold` is set, answer only
 * when `release()` is called (`waiting` resolves once one is held back), and
 * whose reads can fail.
 */
function slowStore() {
  const store = createMemoryStore();
  const state = { down: false, hold: false };
  let release: () => void = () => {};
  let held: () => void = () => {};
  const waiting = new Promise<void>((r) => { held = r; });
  const read = store.decisionFacts!.bind(store);
  const slow = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'decisionFacts') {
        return async (q: DecisionFactsQuery): Promise<DecisionFacts> => {
          if (state.down) throw new Error('connection terminated unexpectedly');
          const facts = await read(q);
          if (state.hold) {
            const answered = new Promise<void>((r) => { release = r; });
            held();
            await answered;
          }
          return facts;
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  return { store: slow, state, waiting, release: () => release() };
}

describe('known holds', () => {
  it('a decision read before a hold was placed does not forget the hold', async () => {
    const w = await planningWorld(RULES);
    const { store, state, waiting, release } = slowStore();
    await seedOrg(store);
    const gate = createGate({ engine: w.engine, store, onStoreError: () => {} });
    state.hold = true;
    const inFlight = gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' });
    // Its facts are read (no hold yet) and held back: the hold is placed before they are answered.
    await waiting;
    state.hold = false;
    await gate.holds.place('0xWORKER', { by: 'ops' });
    expect(gate.knownHolds.get('0xWORKER')).toBeDefined();
    release();
    await inFlight;
    expect(gate.knownHolds.get('0xWORKER')).toBeDefined();
    state.down = true;
    expect(await gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' })).toMatchObject({ allowed: false, check: 'planning_hold', failClosed: {} });
  });

  it("a hold read (as after another replica's change) that answers from before a hold was placed does not forget it", async () => {
    const w = await planningWorld(RULES);
    const store = createMemoryStore();
    await seedOrg(store);
    // activeHold answers what the store held when it was asked, after `release()`.
    let release: () => void = () => {};
    let asked: () => void = () => {};
    const askedOnce = new Promise<void>((r) => { asked = r; });
    let slow = true;
    const read = store.activeHold.bind(store);
    const slowStore = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop !== 'activeHold') return Reflect.get(target, prop, receiver);
        return async (agent: string) => {
          const answer = await read(agent);
          if (slow) {
            slow = false;
            asked();
            await new Promise<void>((r) => { release = r; });
          }
          return answer;
        };
      },
    });
    const gate = createGate({ engine: w.engine, store: slowStore, onStoreError: () => {} });
    const stale = gate.holds.get('0xWORKER');
    await askedOnce;
    await gate.holds.place('0xWORKER', { by: 'ops' });
    release();
    expect(await stale).toBeUndefined();
    expect(gate.knownHolds.get('0xWORKER')).toBeDefined();
  });
});
