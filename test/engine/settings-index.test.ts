import { readFile } from 'node:fs/promises';
import { loadPolicy } from '@open-policy-agent/opa-wasm';
import { describe, expect, it } from 'vitest';
import type { RulesData, SourcedPlanRule } from '../../src/core/rules.js';
import { withMatchIndex } from '../../src/core/patterns.js';
import { withIndexes } from '../../src/core/rules-index.js';
import { DEFAULT_WASM_URL } from '../../src/engine/policy.js';
import { prng } from '../support/rng.js';

const CREWS = ['desk', 'news', 'mgmt', 'ops'];
const AGENTS = ['0xA', '0xB', '0xC'];

function randomRule(rnd: () => number, at: string): SourcedPlanRule | undefined {
  if (rnd() < 0.3) return undefined;
  const rule: Record<string, unknown> = {};
  if (rnd() < 0.7) rule.mode = ['off', 'spends_only', 'side_effects'][Math.floor(rnd() * 3)];
  if (rnd() < 0.5) rule.windowMin = 1 + Math.floor(rnd() * 90);
  if (rnd() < 0.4) rule.acceptUpstream = rnd() < 0.5;
  if (rnd() < 0.3) rule.enforce = rnd() < 0.5;
  if (rnd() < 0.1) rule.windowMin = null;
  if (rnd() < 0.8) rule.source = `${at}:1:1`;
  if (rnd() < 0.2) rule.sources = { windowMin: `env:${at}_WINDOW`, mode: rnd() < 0.5 ? 7 : `env:${at}_MODE` };
  return rule as unknown as SourcedPlanRule;
}

function randomRules(seed: number): RulesData {
  const rnd = prng(seed);
  const pick = (ids: string[], scope: string): Record<string, SourcedPlanRule> =>
    Object.fromEntries(ids.flatMap((id) => {
      const r = randomRule(rnd, `${scope}/${id}.yaml`);
      return r ? [[id, r]] : [];
    }));
  const workspace = randomRule(rnd, 'ws.yaml');
  return {
    planRequired: { ...(workspace ? { workspace } : {}), crews: pick(CREWS, 'crews'), agents: pick(AGENTS, 'agents') },
    tools: { default: 'effect', exact: {}, patterns: [] },
  };
}

describe('the settings index', () => {
  it('gives every seat the settings the policy gives it from the rules alone', async () => {
    const bytes = await readFile(DEFAULT_WASM_URL);
    const indexed = await loadPolicy(bytes);
    const plain = await loadPolicy(bytes);
    const seats = [
      { id: '0xA', known: true, crews: ['desk', 'news'] },
      { id: '0xB', known: true, crews: ['ops', 'mgmt', 'desk'] },
      { id: '0xC', known: false, crews: [] },
      { id: '0xZ', known: true, crews: ['news'] },
    ];
    for (let seed = 1; seed <= 300; seed++) {
      const rules = randomRules(seed);
      indexed.setData({ plangate: { rules: withIndexes(rules) } });
      plain.setData({ plangate: { rules: withMatchIndex(rules) } });
      for (const seat of seats) {
        const a = indexed.evaluate({ agent: seat }, 'plangate/effective');
        const b = plain.evaluate({ agent: seat }, 'plangate/effective');
        expect({ seed, seat: seat.id, settings: a }).toEqual({ seed, seat: seat.id, settings: b });
      }
    }
  });
});
