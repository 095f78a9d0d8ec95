/** The maximum run length in the rules: `runs.maxMinutes`, located, checked, defined once. */
import { describe, expect, it } from 'vitest';
import { loadRules } from '../../src/rules/load.js';
import { caught, lines, ruleDir } from './helpers.js';

describe('runs.maxMinutes', () => {
  it('is normalized with the place it was set', async () => {
    const dir = await ruleDir({ 'runs.yaml': 'runs:\n  maxMinutes: 600\n' });
    expect((await loadRules(dir)).data.runs).toEqual({ maxMinutes: 600, source: 'runs.yaml:2:3' });
  });

  it('is absent when no file sets it (the policy then bounds runs at 24 hours)', async () => {
    const dir = await ruleDir({ 'plan.yaml': 'planRequired:\n  workspace: { mode: off }\n' });
    expect((await loadRules(dir)).data.runs).toBeUndefined();
  });

  it('refuses a value out of range, of the wrong type, or an unknown key, with file:line:col', async () => {
    for (const text of ['runs:\n  maxMinutes: 0\n', 'runs:\n  maxMinutes: 43201\n', 'runs:\n  maxMinutes: "1h"\n', 'runs:\n  maxHours: 2\n']) {
      const dir = await ruleDir({ 'runs.yaml': text });
      const err = await caught(() => loadRules(dir));
      expect(err.code).toBe('rules_invalid');
      expect(lines(err).join('\n')).toMatch(/runs\.yaml:2:\d+: .*runs/);
    }
  });

  it('may be set in one file only', async () => {
    const dir = await ruleDir({ 'a.yaml': 'runs:\n  maxMinutes: 60\n', 'b.yaml': 'runs:\n  maxMinutes: 90\n' });
    const err = await caught(() => loadRules(dir));
    expect(lines(err).join('\n')).toContain('b.yaml:2:3: runs.maxMinutes: the maximum run length is already set at a.yaml:2:3');
  });
});
