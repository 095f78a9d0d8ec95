import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { ErrorCode } from '../../src/core/errors.js';
import { checkRules, compileRules, loadRules } from '../../src/rules/load.js';
import { caught, lines, ruleDir } from './helpers.js';

describe('the example rule set', () => {
  test('loads cleanly, with every feature and a source on every rule', async () => {
    const rules = await loadRules('examples/rules');
    expect(rules.files).toEqual(['plan-required.yaml', 'planning.yaml', 'seats.yaml', 'tools.yaml']);
    expect(rules.dir).toBe(path.resolve('examples/rules'));
    expect(rules.revision).toMatch(/^[0-9a-f]{64}$/);
    expect(rules.loadedAt).toBeInstanceOf(Date);
    expect(rules.data).toEqual({
      planRequired: {
        workspace: { mode: 'spends_only', windowMin: 30, acceptUpstream: false, source: 'plan-required.yaml:16:3' },
        crews: {
          desk: { mode: 'side_effects', windowMin: 15, source: 'plan-required.yaml:24:5' },
          trading: { mode: 'side_effects', acceptUpstream: true, source: 'plan-required.yaml:27:5' },
        },
        agents: {
          '0xWORKER': { mode: 'side_effects', windowMin: 10, source: 'seats.yaml:10:5' },
          '0xBOT': { mode: 'off', source: 'seats.yaml:12:5' },
        },
      },
      tools: {
        default: 'effect',
        exact: {
          'plangate_submit_plan': 'say',
          'fs.read_file': 'read',
          'github.merge_pull_request': 'effect',
          'github.create_issue': 'effect',
          'wallet.propose_spend': 'spend',
          'plangate_say': 'say',
        },
        patterns: [
          { pattern: 'github.get_*', class: 'read', source: 'tools.yaml:18:7' },
          { pattern: 'github.list_*', class: 'read', source: 'tools.yaml:19:7' },
          { pattern: '*.search', class: 'read', source: 'tools.yaml:21:7' },
          { pattern: 'social.publish_?', class: 'effect', source: 'tools.yaml:26:7' },
          { pattern: 'payments.*', class: 'spend', source: 'tools.yaml:30:7' },
        ],
        // The patterns as data the policy matches without compiling them, by the first character of their prefix.
        match: {
          byFirst: {
            g: [
              { pattern: 'github.get_*', class: 'read', shape: 'prefix', prefix: 'github.get_', suffix: '', literals: 11 },
              { pattern: 'github.list_*', class: 'read', shape: 'prefix', prefix: 'github.list_', suffix: '', literals: 12 },
            ],
            '': [{ pattern: '*.search', class: 'read', shape: 'suffix', prefix: '', suffix: '.search', literals: 7 }],
            s: [{ pattern: 'social.publish_?', class: 'effect', shape: 'glob', prefix: 'social.publish_', suffix: '', literals: 15 }],
            p: [{ pattern: 'payments.*', class: 'spend', shape: 'prefix', prefix: 'payments.', suffix: '', literals: 9 }],
          },
        },
      },
      planningGate: {
        defaults: {
          enabled: false,
          whitelist: ['fs.read_file', 'github.get_*', '*.search'],
          reviewerChannel: 'plangate_submit_plan',
          readGuardMaxBytes: 1048576,
          source: 'planning.yaml:26:3',
        },
        profiles: {
          careful: { enabled: true, readGuardMaxBytes: 262144, source: 'planning.yaml:40:5' },
          housekeeping: { readGuardMaxBytes: 0, source: 'planning.yaml:44:5' },
        },
        crews: { trading: { profile: 'careful', source: 'planning.yaml:49:5' } },
        agents: { '0xBOT': { profile: 'housekeeping', source: 'planning.yaml:51:5' } },
      },
      readGuard: { tools: { 'fs.read_file': { path: 'path', range: ['limit'], skip: ['offset'], source: 'planning.yaml:59:5' } } },
    });
  });

  test('the data is plain JSON, and id maps have no prototype to trip over', async () => {
    const { data } = await loadRules('examples/rules');
    expect(JSON.parse(JSON.stringify(data))).toEqual(data);
    expect(data.tools.exact['constructor']).toBeUndefined();
    expect(data.planRequired.crews['toString']).toBeUndefined();
  });
});

describe('merging', () => {
  test('an empty directory is valid: no rules, every tool an effect', async () => {
    const rules = await loadRules(await ruleDir());
    expect(rules.files).toEqual([]);
    expect(rules.data).toEqual({ planRequired: { crews: {}, agents: {} }, tools: { default: 'effect', exact: {}, patterns: [] } });
  });

  test('files merge in name order; empty and comment-only files are fine', async () => {
    const dir = await ruleDir({
      'b.yml': 'planRequired:\n  crews:\n    news: { mode: off }\ntools:\n  read: [x.get]\n',
      'a.yaml': 'planRequired:\n  workspace: { mode: side_effects }\n  crews:\n    desk: { mode: spends_only, windowMin: 5 }\n',
      'c.yaml': '',
      'd.yaml': '# nothing yet\n',
      'e.yaml': 'tools:\n  default: read\n  spend: ["pay.*"]\n',
      'notes.txt': 'not a rule file: ignored',
    });
    const rules = await loadRules(dir);
    expect(rules.files).toEqual(['a.yaml', 'b.yml', 'c.yaml', 'd.yaml', 'e.yaml']);
    expect(rules.data).toEqual({
      planRequired: {
        workspace: { mode: 'side_effects', source: 'a.yaml:2:3' },
        crews: {
          desk: { mode: 'spends_only', windowMin: 5, source: 'a.yaml:4:5' },
          news: { mode: 'off', source: 'b.yml:3:5' },
        },
        agents: {},
      },
      tools: {
        default: 'read',
        exact: { 'x.get': 'read' },
        patterns: [{ pattern: 'pay.*', class: 'spend', source: 'e.yaml:3:11' }],
        match: { byFirst: { p: [{ pattern: 'pay.*', class: 'spend', shape: 'prefix', prefix: 'pay.', suffix: '', literals: 4 }] } },
      },
    });
  });

  test('ids and tool names are read as written, not as YAML numbers', async () => {
    const dir = await ruleDir({
      'ids.yaml': [
        'planRequired:',
        '  agents:',
        '    0xABC: { mode: off }',
        '    2748: { mode: spends_only }', // the number 0xABC is: a different id
        '    1e3: { mode: off }',
        '  crews:',
        '    0o17: { mode: side_effects }',
        'tools:',
        '  spend: [0x1, 1e3, 007]',
        '',
      ].join('\n'),
    });
    const { data } = await loadRules(dir);
    expect(Object.keys(data.planRequired.agents).sort()).toEqual(['0xABC', '1e3', '2748']);
    expect(data.planRequired.agents['0xABC']).toEqual({ mode: 'off', source: 'ids.yaml:3:5' });
    expect(data.planRequired.agents['2748']?.mode).toBe('spends_only');
    expect(Object.keys(data.planRequired.crews)).toEqual(['0o17']);
    expect(data.tools.exact).toEqual({ '0x1': 'spend', '1e3': 'spend', '007': 'spend' });
  });

  test('an alias may reuse a rule', async () => {
    const dir = await ruleDir({
      'a.yaml': 'planRequired:\n  agents:\n    0xA: &strict { mode: side_effects, windowMin: 5 }\n    0xB: *strict\n',
    });
    const { data } = await loadRules(dir);
    expect(data.planRequired.agents['0xB']).toEqual({ mode: 'side_effects', windowMin: 5, source: 'a.yaml:4:5' });
  });

  test('a leading BOM is dropped', async () => {
    const dir = await ruleDir({ 'a.yaml': '\uFEFFplanRequired:\n  workspace: { mode: off }\n' });
    const { data } = await loadRules(dir);
    expect(data.planRequired.workspace).toEqual({ mode: 'off', source: 'a.yaml:2:3' });
  });
});

describe('revision', () => {
  test('changes when content changes, and not otherwise', async () => {
    const dir = await ruleDir({ 'a.yaml': 'planRequired:\n  workspace: { mode: off }\n', 'b.yaml': 'tools:\n  read: [x]\n' });
    const first = await loadRules(dir);
    expect((await loadRules(dir)).revision).toBe(first.revision);

    await writeFile(path.join(dir, 'README.md'), 'not a rule file');
    await writeFile(path.join(dir, '.hidden.yaml'), 'garbage: [');
    expect((await loadRules(dir)).revision).toBe(first.revision);

    await writeFile(path.join(dir, 'a.yaml'), 'planRequired:\n  workspace: { mode: off }\n# a comment\n');
    const commented = await loadRules(dir);
    expect(commented.revision).not.toBe(first.revision);

    await writeFile(path.join(dir, 'a.yaml'), 'planRequired:\n  workspace: { mode: off }\n');
    expect((await loadRules(dir)).revision).toBe(first.revision);

    await rm(path.join(dir, 'b.yaml'));
    await writeFile(path.join(dir, 'c.yaml'), 'tools:\n  read: [x]\n'); // same bytes, other name
    expect((await loadRules(dir)).revision).not.toBe(first.revision);
  });

  test('is the same for bytes on disk and for the same text in memory', async () => {
    const text = 'planRequired:\n  workspace: { mode: off }\n';
    const dir = await ruleDir({ 'a.yaml': text });
    const fromDisk = await loadRules(dir);
    expect(compileRules([{ file: 'a.yaml', text }]).revision).toBe(fromDisk.revision);
    expect(compileRules([{ file: 'a.yaml', text: await readFile(path.join(dir, 'a.yaml')) }]).revision).toBe(fromDisk.revision);
  });
});

describe('compileRules and checkRules (no disk)', () => {
  test('compile the same data as loading, sorting by name', () => {
    const compiled = compileRules([
      { file: 'b.yaml', text: 'planRequired:\n  crews:\n    desk: { mode: off }\n' },
      { file: 'a.yaml', text: new TextEncoder().encode('planRequired:\n  workspace: { mode: spends_only }\n') },
    ]);
    expect(compiled.files).toEqual(['a.yaml', 'b.yaml']);
    expect(compiled.data.planRequired).toEqual({
      workspace: { mode: 'spends_only', source: 'a.yaml:2:3' },
      crews: { desk: { mode: 'off', source: 'b.yaml:3:5' } },
      agents: {},
    });
  });

  test('compileRules throws one RulesError with every problem; checkRules returns them', async () => {
    const sources = [
      { file: 'a.yaml', text: 'planRequired:\n  workspace: { mode: sometimes }\n' },
      { file: 'b.yaml', text: 'tools:\n  reed: [x]\n' },
    ];
    const err = await caught(() => compileRules(sources));
    expect(err.code).toBe(ErrorCode.RulesInvalid);
    expect(lines(err)).toEqual([
      'a.yaml:2:22: planRequired.workspace.mode: must be one of off, spends_only, side_effects (got "sometimes")',
      'b.yaml:2:3: tools: unknown key "reed" (expected default, read, effect, spend, say)',
    ]);
    const check = checkRules(sources);
    expect(check.data).toBeUndefined();
    expect(check.problems).toEqual(err.details);
  });

  test('the same file name twice is a problem', () => {
    const check = checkRules([
      { file: 'a.yaml', text: '' },
      { file: 'a.yaml', text: '' },
    ]);
    expect(check.problems.map((p) => p.message)).toEqual(['the same file name is given twice']);
  });
});
