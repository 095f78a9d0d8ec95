import { readFile } from 'node:fs/promises';
import { loadPolicy } from '@open-policy-agent/opa-wasm';
import { describe, expect, it } from 'vitest';
import { whitelistIndex, withMatchIndex } from '../../src/core/patterns.js';
import type { RulesData } from '../../src/core/rules.js';
import { withIndexes } from '../../src/core/rules-index.js';
import { DEFAULT_WASM_URL } from '../../src/engine/policy.js';
import { prng } from '../support/rng.js';

const NOW = Date.UTC(2026, 11, 4, 12);
// Pieces of tool names and of whitelist entries: wildcards in every place,
// dots, a space (no tool name matches a pattern across it), and characters
// that make an entry one no tool name can match.
const NAME_PARTS = ['a', 'b', 'fs', 'read', '.', '_', '-', 'get', 'x', ' '];
const ENTRY_PARTS = ['a', 'b', 'fs', 'read', '.', '_', 'get', 'x', '*', '?', '*', '[a]', '{a,b}'];

function pickText(rnd: () => number, parts: readonly string[], max: number): string {
  let out = '';
  const n = 1 + Math.floor(rnd() * max);
  for (let i = 0; i < n; i++) out += parts[Math.floor(rnd() * parts.length)];
  return out;
}

function randomList(rnd: () => number): string[] {
  return Array.from({ length: Math.floor(rnd() * 6) }, () => pickText(rnd, ENTRY_PARTS, 4));
}

/** Rules whose seats get their whitelist from a profile, from the defaults, or built in. */
function randomRules(rnd: () => number): RulesData {
  const withList = rnd() < 0.5;
  return {
    planRequired: { crews: {}, agents: {} },
    tools: { default: 'effect', exact: {}, patterns: [] },
    planningGate: {
      ...(rnd() < 0.7 ? { defaults: { ...(rnd() < 0.8 ? { whitelist: randomList(rnd) } : {}), source: 'd.yaml:1:1' } } : {}),
      profiles: {
        listed: { ...(withList ? { whitelist: randomList(rnd) } : {}), source: 'p.yaml:1:1' },
        other: { whitelist: randomList(rnd), source: 'p.yaml:2:1' },
      },
      crews: {},
      agents: { '0xP': { profile: 'listed', source: 'a.yaml:1:1' } },
    },
  };
}

function heldCall(agent: string, tool: string): object {
  return {
    now: NOW,
    call: { agent, tool },
    agent: { id: agent, known: true, crews: [] },
    upstream: [],
    messages: [],
    hold: { id: '1', kind: 'on_demand', placedBy: 'ops', placedAt: NOW - 1000, plans: 0, pushBacks: 0 },
  };
}

describe('the whitelist index', () => {
  it('indexes plain names, and patterns by the first character of their prefix', () => {
    const index = whitelistIndex(['fs.read_file', 'github.get_*', '*.search', '[a].b', 'fs.read_file']);
    expect(index.exact).toEqual({ 'fs.read_file': true });
    expect(Object.keys(index.byFirst).sort()).toEqual(['', 'g']);
    expect(index.byFirst['g']?.[0]).toMatchObject({ pattern: 'github.get_*', shape: 'prefix', prefix: 'github.get_' });
    expect(index.byFirst['']?.[0]).toMatchObject({ pattern: '*.search', shape: 'suffix', suffix: '.search' });
  });

  it('keeps open, during a hold, exactly the tools the whitelist matched entry by entry keeps open', async () => {
    const bytes = await readFile(DEFAULT_WASM_URL);
    const indexed = await loadPolicy(bytes);
    const plain = await loadPolicy(bytes);
    const rnd = prng(11);
    let open = 0;
    for (let round = 0; round < 200; round++) {
      const rules = randomRules(rnd);
      indexed.setData({ plangate: { rules: withIndexes(rules) } });
      plain.setData({ plangate: { rules: withMatchIndex(rules) } });
      const lists = [rules.planningGate?.profiles['listed']?.whitelist, rules.planningGate?.defaults?.whitelist].flat();
      // Tool names of every kind, and each entry itself (a plain entry matches its own name).
      const tools = [...Array.from({ length: 12 }, () => pickText(rnd, NAME_PARTS, 5)), ...lists.filter((e): e is string => typeof e === 'string')];
      for (const agent of ['0xP', '0xQ']) {
        for (const tool of tools) {
          const a = indexed.evaluate(heldCall(agent, tool), 'plangate/decide')[0]?.result as { allowed: boolean; check?: string };
          const b = plain.evaluate(heldCall(agent, tool), 'plangate/decide')[0]?.result as { allowed: boolean; check?: string };
          expect({ round, agent, tool, allowed: a.allowed, check: a.check }).toEqual({ round, agent, tool, allowed: b.allowed, check: b.check });
          if (a.check !== 'planning_hold') open++;
        }
      }
    }
    // The lists kept some tools open, so the comparison covered both answers.
    expect(open).toBeGreaterThan(100);
  });
});
