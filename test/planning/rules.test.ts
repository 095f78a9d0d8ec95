/** The planning-gate and read-guard sections of the rule files: schema, normalization, located problems. */
import { describe, expect, it } from 'vitest';
import { checkRules, compileRules, loadRules } from '../../src/rules/load.js';

const problems = (files: Record<string, string>): string[] =>
  checkRules(Object.entries(files).map(([file, text]) => ({ file, text }))).problems.map((p) => `${p.file}:${p.line}:${p.col}: ${p.message}`);

describe('planning-gate rules', () => {
  it('normalizes defaults, profiles, picks and read tools, each with its source', () => {
    const { data } = compileRules([{
      file: 'planning.yaml',
      text: [
        'planningGate:',
        '  defaults:',
        '    enabled: false',
        '    whitelist: [fs.read_file, "github.get_*"]',
        '    reviewerChannel: review.send',
        '    readGuardMaxBytes: 1048576',
        '  profiles:',
        '    careful: { enabled: true, readGuardMaxBytes: 262144 }',
        '  crews: { desk: careful }',
        '  agents: { 0xWORKER: careful }',
        'readGuard:',
        '  tools:',
        '    fs.read_file: { path: path, range: [offset, limit] }',
        '    fs.cat: { path: file }',
        '',
      ].join('\n'),
    }]);
    expect(data.planningGate).toEqual({
      defaults: { enabled: false, whitelist: ['fs.read_file', 'github.get_*'], reviewerChannel: 'review.send', readGuardMaxBytes: 1048576, source: 'planning.yaml:2:3' },
      profiles: { careful: { enabled: true, readGuardMaxBytes: 262144, source: 'planning.yaml:8:5' } },
      crews: { desk: { profile: 'careful', source: 'planning.yaml:9:12' } },
      agents: { '0xWORKER': { profile: 'careful', source: 'planning.yaml:10:13' } },
    });
    expect(data.readGuard).toEqual({
      tools: {
        'fs.read_file': { path: 'path', range: ['offset', 'limit'], source: 'planning.yaml:13:5' },
        'fs.cat': { path: 'file', range: [], source: 'planning.yaml:14:5' },
      },
    });
  });

  it('leaves both sections out of the data when no file has them', () => {
    const { data } = compileRules([{ file: 'a.yaml', text: 'planRequired:\n  workspace: { mode: off }\n' }]);
    expect(data).not.toHaveProperty('planningGate');
    expect(data).not.toHaveProperty('readGuard');
  });

  it('merges sections across files, and reports anything defined twice where it was', () => {
    expect(problems({
      'a.yaml': 'planningGate:\n  defaults: { enabled: true }\n  profiles:\n    p: {}\n  crews: { desk: p }\nreadGuard:\n  tools:\n    fs.read_file: { path: path }\n',
      'b.yaml': 'planningGate:\n  defaults: { enabled: false }\n  profiles:\n    p: {}\n  crews: { desk: p }\nreadGuard:\n  tools:\n    fs.read_file: { path: file }\n',
    })).toEqual([
      'b.yaml:2:3: planningGate.defaults: the planning-gate defaults are already defined at a.yaml:2:3',
      'b.yaml:4:5: planningGate.profiles.p: profile "p" is already defined at a.yaml:4:5',
      'b.yaml:5:12: planningGate.crews.desk: crew "desk" already picks a profile at a.yaml:5:12',
      'b.yaml:8:5: readGuard.tools["fs.read_file"]: read tool "fs.read_file" is already listed at a.yaml:8:5',
    ]);
    const ok = compileRules([
      { file: 'a.yaml', text: 'planningGate:\n  profiles:\n    p: { enabled: true }\n' },
      { file: 'b.yaml', text: 'planningGate:\n  agents: { 0xW: p }\n' },
    ]);
    expect(ok.data.planningGate?.agents['0xW']).toEqual({ profile: 'p', source: 'b.yaml:2:13' });
  });

  it('refuses a pick of a profile no file defines', () => {
    expect(problems({ 'a.yaml': 'planningGate:\n  crews: { desk: ghost }\n  agents:\n    0xW: ghost\n' })).toEqual([
      'a.yaml:2:18: planningGate.crews.desk: no profile "ghost" is defined under planningGate.profiles',
      'a.yaml:4:10: planningGate.agents.0xW: no profile "ghost" is defined under planningGate.profiles',
    ]);
  });

  it('validates every setting with the schema, located', () => {
    const text = [
      'planningGate:', //                              1
      '  defaults:', //                                2
      '    enabled: sometimes', //                     3
      '    whitelist: ["[ab]"]', //                    4
      '    reviewerChannel: "review.*"', //            5
      '    readGuardMaxBytes: -1', //                  6
      '    planning_gate: true', //                    7
      '  profiles:', //                                8
      '    big: { readGuardMaxBytes: 1.5 }', //        9
      '  crews: { desk: [careful] }', //               10
      'readGuard:', //                                 11
      '  tools:', //                                   12
      '    "fs.*": { path: path }', //                 13
      '    fs.cat: { range: offset }', //              14
      '',
    ].join('\n');
    const got = problems({ 'a.yaml': text });
    expect(got).toEqual([
      'a.yaml:3:14: planningGate.defaults.enabled: must be true or false (got "sometimes")',
      'a.yaml:4:17: planningGate.defaults.whitelist[0]: "[ab]" is not a tool name or pattern (letters, digits and _.:/@-, with * and ? as wildcards, at most 256 characters)',
      'a.yaml:5:22: planningGate.defaults.reviewerChannel: must match ^[A-Za-z0-9_][A-Za-z0-9_.:/@-]{0,255}$ (got "review.*")',
      'a.yaml:6:24: planningGate.defaults: readGuardMaxBytes must be an integer from 0 to 1099511627776 (got -1)',
      'a.yaml:7:5: planningGate.defaults: unknown key "planning_gate" (expected enabled, whitelist, reviewerChannel, readGuardMaxBytes)',
      'a.yaml:9:31: planningGate.profiles.big: readGuardMaxBytes must be an integer from 0 to 1099511627776 (got 1.5)',
      'a.yaml:10:18: planningGate.crews.desk: must be text (got a list)',
      'a.yaml:13:5: readGuard.tools: "fs.*" is not a tool name (letters, digits and _.:/@-, at most 256 characters; no wildcards)',
      'a.yaml:14:13: readGuard.tools["fs.cat"]: missing required key "path" (or "paths" for a tool that reads several files)',
      'a.yaml:14:22: readGuard.tools["fs.cat"].range: must be a list (got "offset")',
    ]);
    expect(problems({ 'b.yaml': 'planningGate:\n  profiles:\n    "-bad": {}\n    __proto__: {}\n' })).toEqual([
      'b.yaml:3:5: planningGate.profiles: "-bad" is not a valid profile name (letters, digits and ._:@/-, starting with a letter or digit, at most 128 characters)',
      'b.yaml:4:5: planningGate.profiles: "__proto__" is a reserved name and cannot be a profile name',
    ]);
  });

  it('loads the example rules, planning gate included', async () => {
    const rules = await loadRules(new URL('../../examples/rules/', import.meta.url).pathname);
    expect(rules.data.planningGate?.defaults?.enabled).toBe(false);
    expect(Object.keys(rules.data.planningGate?.profiles ?? {})).toContain('careful');
    expect(rules.data.readGuard?.tools['fs.read_file']?.path).toBe('path');
  });
});

describe('the docs', () => {
  it('show planning-gate settings that load, and the hold message they produce', async () => {
    const { planningWorld } = await import('./support.js');
    const { blocksOf, snippet, SNIPPETS } = await import('../docs/snippets.js');
    const yaml = snippet('planningGate');
    const shown = blocksOf(SNIPPETS.planningGate.file).find((b) => b.lang === '' && b.text.startsWith('planning_hold:'));
    expect(shown).toBeDefined();
    const message = (shown?.text ?? '').trim().split('\n').join(' ');
    const w = await planningWorld(`planRequired:\n  workspace: { mode: side_effects }\n${yaml}`);
    await w.gate.holds.place('0xWORKER', { by: 'ops-alice', task: 'Refactor the auth middleware' });
    const d = await w.gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' });
    expect(d.message).toBe(message);
  });
});
