/**
 * The hot entrypoint (`plangate/decide`) and the explain entrypoint
 * (`plangate/decision`) are one policy: for thousands of random inputs the
 * hot answer equals the explanation's fields (without the candidates, the
 * checks' verdicts, and the call's tool and seat, which the gate adds; `channelCall`, `reviewerChannel` and `readGuard` are the
 * explanation's `checks.planningHold.channelCall`, `.channel` (when held) and
 * `checks.readGuard`; its settings are the values of the explanation's), both
 * answers match their JSON Schema (schemas/hot.schema.json,
 * schemas/explanation.schema.json), and the engine's decision (the hot
 * answer with its settings described) matches schemas/decision.schema.json
 * and carries the explanation's settings. Inputs: the property test's random
 * scenarios (rules, org, messages, calls) through the gate's fact gathering,
 * and the OPA differential test's inputs (holds, read-guard arguments and
 * file facts, damaged fields) on the example rules.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { heldWhileFailing, unreadHoldsWhileFailing } from '../../src/core/failclosed.js';
import { failOpenDecision } from '../../src/core/failopen.js';
import type { PolicyInput } from '../../src/core/types.js';
import { Engine, ENTRYPOINTS } from '../../src/engine/policy.js';
import { createMemoryStore } from '../../src/facts/memory/store.js';
import { createGate } from '../../src/gate/gate.js';
import { loadRules } from '../../src/rules/load.js';
import { decisionInput, differentialCases } from '../http/opa-inputs.js';
import { EXAMPLES } from '../http/support.js';
import { WASM } from './check.js';
import { loadScenario, NOW, scenarioArb } from './scenario.js';

const SCENARIO_RUNS = Number(process.env.PLANGATE_HOT_RUNS ?? 2000);
const INPUT_RUNS = Number(process.env.PLANGATE_HOT_INPUT_RUNS ?? 3000);
const SEED = process.env.PLANGATE_PROPERTY_SEED === undefined ? {} : { seed: Number(process.env.PLANGATE_PROPERTY_SEED) };

const schema = (name: string): object => JSON.parse(readFileSync(new URL(`../../schemas/${name}`, import.meta.url), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true });
ajv.addSchema(schema('decision.schema.json'));
ajv.addSchema(schema('hot.schema.json'));
ajv.addSchema(schema('explanation.schema.json'));
const validDecision = ajv.getSchema('https://plangate.dev/schemas/decision.schema.json')!;
const validHot = ajv.getSchema('https://plangate.dev/schemas/hot.schema.json')!;
const validExplanation = ajv.getSchema('https://plangate.dev/schemas/explanation.schema.json')!;

/** The fields of an explanation the hot answer must carry, as the hot answer names them. */
function hotFieldsOf(explanation: Record<string, unknown>): Record<string, unknown> {
  const { candidates: _c, checks, settings, tool: _t, agent: _a, agentKnown: _k, ...rest } = explanation as { candidates?: unknown; tool?: unknown; agent?: unknown; agentKnown?: unknown; check?: string; settings: Record<string, { value: unknown }>; checks?: { planningHold?: { channelCall?: unknown; held?: unknown; channel?: unknown }; readGuard?: unknown } };
  const out: Record<string, unknown> = { ...rest, settings: Object.fromEntries(Object.entries(settings).map(([k, s]) => [k, s.value])) };
  if (checks?.planningHold?.channelCall === true) out.channelCall = true;
  if (checks?.planningHold?.held === true) out.reviewerChannel = checks.planningHold.channel;
  if (rest.check === 'read_guard') out.readGuard = checks?.readGuard;
  return out;
}

/** Evaluates both entrypoints on one input and compares; with `shaped`, also checks both schemas. */
function compare(engine: Engine, input: unknown, shaped: boolean): void {
  const hot = engine.evaluate(ENTRYPOINTS.decide, input as object);
  const explanation = engine.evaluate(ENTRYPOINTS.decision, input as object);
  if (explanation === undefined) {
    expect({ hot, input }).toEqual({ hot: undefined, input });
    return;
  }
  expect({ hot, input }).toEqual({ hot: hotFieldsOf(explanation as Record<string, unknown>), input });
  if (!shaped) return;
  expect({ errors: validHot(hot) ? null : validHot.errors, hot }).toEqual({ errors: null, hot });
  const decision = engine.decide(input as PolicyInput);
  const { tool, agent, agentKnown, settings } = explanation as Record<string, unknown>;
  expect(decision).toEqual({ ...(hot as object), tool, agent, agentKnown, settings });
  expect({ errors: validDecision(decision) ? null : validDecision.errors, decision }).toEqual({ errors: null, decision });
  expect({ errors: validExplanation(explanation) ? null : validExplanation.errors, explanation }).toEqual({ errors: null, explanation });
}

describe('the schemas tell a hot answer from a decision', () => {
  it('by the shape of their settings', () => {
    const fields = { allowed: true, class: 'read', gated: false };
    const call = { tool: 't', agent: 'a', agentKnown: true };
    const values = { mode: 'off', windowMin: 30, acceptUpstream: false, enforce: true };
    const described = Object.fromEntries(Object.entries(values).map(([k, value]) => [k, { value, scope: 'default' }]));
    expect([validHot({ ...fields, settings: values }), validHot({ ...fields, settings: described })]).toEqual([true, false]);
    expect([validDecision({ ...fields, ...call, settings: described }), validDecision({ ...fields, ...call, settings: values })]).toEqual([true, false]);
    expect(validDecision({ ...fields, ...call, settings: described, extra: 1 })).toBe(false);
    // The call's tool and seat are the gate's: a decision carries them, the hot answer does not.
    expect([validDecision({ ...fields, settings: described }), validHot({ ...fields, ...call, settings: values })]).toEqual([false, false]);
  });

  it('a decision made without the policy matches the decision schema too', () => {
    const call = { agent: '0xW', tool: 'github.merge_pull_request' };
    const decisions = [
      failOpenDecision(call, { cause: 'policy', reason: 'rules/plan.yaml:3:9: invalid YAML' }),
      heldWhileFailing(call, { id: '7', kind: 'on_demand' }, 'review.send', { cause: 'store', reason: 'the store is unavailable' }),
      heldWhileFailing({ ...call, tool: 'review.send' }, { id: '7', kind: 'on_demand' }, 'review.send', { cause: 'store', reason: 'the store is unavailable' }),
      unreadHoldsWhileFailing(call, 'the store is unavailable'),
    ];
    for (const decision of decisions) {
      expect({ errors: validDecision(decision) ? null : validDecision.errors, decision }).toEqual({ errors: null, decision });
    }
  });
});

describe('the hot answer is the explanation without its detail', () => {
  it(`${SCENARIO_RUNS} random scenarios through the gate's fact gathering`, { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (s) => {
        const store = createMemoryStore();
        try {
          const world = await loadScenario(store, s);
          const engine = await Engine.load({ data: s.rules, wasm: WASM });
          const gate = createGate({ engine, store, clock: () => NOW });
          const input: PolicyInput = await gate.inputFor({ ...s.call, at: NOW });
          compare(engine, input, true);
          compare(engine, { ...input, messages: world.messages.map((m) => ({ ...m })) }, true);
          const explainInput = await gate.inputFor({ ...s.call, at: NOW }, { explain: true });
          compare(engine, explainInput, true);
        } finally {
          await store.close();
        }
      }),
      { numRuns: SCENARIO_RUNS, ...SEED },
    );
  });

  describe('holds, read-guard facts and damaged inputs on the example rules', () => {
    let engine: Engine;
    beforeAll(async () => {
      const rules = await loadRules(EXAMPLES);
      engine = await Engine.load({ data: rules.data, wasm: WASM });
    });

    it(`${INPUT_RUNS} inputs shaped as the gate builds them: equal, and both match their schema`, () => {
      const inputs = fc.sample(decisionInput, { numRuns: INPUT_RUNS, seed: 917, ...SEED });
      let refused = 0;
      for (const input of inputs) {
        compare(engine, input, true);
        if ((engine.evaluate(ENTRYPOINTS.decide, input) as { allowed: boolean }).allowed === false) refused++;
      }
      // The generator must reach refusals of every kind, not only allowed calls.
      expect(refused).toBeGreaterThan(INPUT_RUNS / 10);
    });

    it(`${INPUT_RUNS} inputs with fields missing or of the wrong type: equal, or both undefined`, () => {
      for (const c of differentialCases(INPUT_RUNS, 4243, [ENTRYPOINTS.decision, ENTRYPOINTS.effective])) {
        if (c.entrypoint === ENTRYPOINTS.decision) compare(engine, c.input, false);
      }
    });
  });
});
