import { describe, expect, test } from 'vitest';
import { ErrorCode } from '../../src/core/errors.js';
import { loadRules } from '../../src/rules/load.js';
import { MAX_ALIAS_COUNT } from '../../src/rules/aliases.js';
import { caught, lines, ruleDir } from './helpers.js';

/** Loads a directory holding `files` and returns the error's lines. */
async function problems(files: Record<string, string>): Promise<string[]> {
  const err = await caught(async () => loadRules(await ruleDir(files)));
  expect(err.code).toBe(ErrorCode.RulesInvalid);
  expect(err.details.length).toBe(lines(err).length);
  return lines(err);
}

describe('schema violations, located at file:line:col', () => {
  test('unknown mode, bad windows, unknown key, missing mode, wrong types', async () => {
    const plan = [
      'planRequired:', //                                   1
      '  crews:', //                                        2
      '    0xDESK:', //                                     3
      '      mode: sometimes', //                           4   value at col 13
      '      windowMinutes: 5', //                          5   key at col 7
      '      windowMin: -5', //                             6   value at col 18
      '    news: { mode: off, windowMin: 99999999 }', //    7   value at col 35
      '    sports: { mode: off, windowMin: 2.5 }', //       8   value at col 37
      '    late: { mode: off, windowMin: "30" }', //        9   value at col 35
      '    early: { windowMin: 10 }', //                    10  map at col 12
      '  workspace: { mode: off, acceptUpstream: yes }', // 11  value at col 43
      '  agents: []', //                                    12  value at col 11
      'tools:', //                                          13
      '  reed: [x]', //                                     14  key at col 3
      '  default: maybe', //                                15  value at col 12
      '',
    ].join('\n');
    expect(await problems({ 'plan.yaml': plan })).toEqual([
      'plan.yaml:4:13: planRequired.crews.0xDESK.mode: must be one of off, spends_only, side_effects (got "sometimes")',
      'plan.yaml:5:7: planRequired.crews.0xDESK: unknown key "windowMinutes" (expected mode, windowMin, acceptUpstream, enforce)',
      'plan.yaml:6:18: planRequired.crews.0xDESK: windowMin must be an integer from 1 to 10080 (got -5)',
      'plan.yaml:7:35: planRequired.crews.news: windowMin must be an integer from 1 to 10080 (got 99999999)',
      'plan.yaml:8:37: planRequired.crews.sports: windowMin must be an integer from 1 to 10080 (got 2.5)',
      'plan.yaml:9:35: planRequired.crews.late: windowMin must be an integer from 1 to 10080 (got "30")',
      'plan.yaml:10:12: planRequired.crews.early: missing required key "mode"',
      'plan.yaml:11:43: planRequired.workspace.acceptUpstream: must be true or false (got "yes")',
      'plan.yaml:12:11: planRequired.agents: must be a map (got a list)',
      'plan.yaml:14:3: tools: unknown key "reed" (expected default, read, effect, spend, say)',
      'plan.yaml:15:12: tools.default: must be one of read, effect, spend, say (got "maybe")',
    ]);
  });

  test('zero and an empty rule', async () => {
    expect(
      await problems({ 'a.yaml': 'planRequired:\n  crews:\n    a: { mode: off, windowMin: 0 }\n    b:\n' }),
    ).toEqual([
      'a.yaml:3:32: planRequired.crews.a: windowMin must be an integer from 1 to 10080 (got 0)',
      'a.yaml:4:5: planRequired.crews.b: must be a map (got nothing)',
    ]);
  });

  test('reserved and malformed ids point at the key', async () => {
    const text = [
      'planRequired:',
      '  crews:',
      '    __proto__: { mode: off }',
      '    constructor: { mode: off }',
      '  agents:',
      '    prototype: { mode: off }',
      '    "bad id": { mode: off }',
      '    ok.id: { mode: off }',
      '',
    ].join('\n');
    expect(await problems({ 'ids.yaml': text })).toEqual([
      'ids.yaml:3:5: planRequired.crews: "__proto__" is a reserved name and cannot be a crew id',
      'ids.yaml:4:5: planRequired.crews: "constructor" is a reserved name and cannot be a crew id',
      'ids.yaml:6:5: planRequired.agents: "prototype" is a reserved name and cannot be an agent id',
      'ids.yaml:7:5: planRequired.agents: "bad id" is not a valid agent id (letters, digits and ._:@/-, starting with a letter or digit, at most 128 characters)',
    ]);
  });

  test('bad tool entries', async () => {
    const text = 'tools:\n  read: [a b, "", ok.tool, { x: 1 }, "[abc]"]\n';
    expect(await problems({ 't.yaml': text })).toEqual([
      't.yaml:2:10: tools.read[0]: "a b" is not a tool name or pattern (letters, digits and _.:/@-, with * and ? as wildcards, at most 256 characters)',
      't.yaml:2:15: tools.read[1]: an empty entry is not a tool name or pattern (letters, digits and _.:/@-, with * and ? as wildcards, at most 256 characters)',
      't.yaml:2:28: tools.read[3]: must be text (got a map)',
      't.yaml:2:38: tools.read[4]: "[abc]" is not a tool name or pattern (letters, digits and _.:/@-, with * and ? as wildcards, at most 256 characters)',
    ]);
  });

  test('the top level must be a map', async () => {
    expect(await problems({ 'list.yaml': '- a\n- b\n' })).toEqual(['list.yaml:1:1: (top level): must be a map (got a list)']);
  });
});

describe('malformed YAML', () => {
  test('syntax errors are located, and every file is reported', async () => {
    const got = await problems({
      'a.yaml': 'planRequired:\n  crews: [\n',
      'b.yaml': 'planRequired:\n  workspace: { mode: off\n',
      'c.yaml': 'planRequired:\n  workspace: { mode: never }\n',
    });
    expect(got.length).toBeGreaterThanOrEqual(3);
    expect(got.some((l) => /^a\.yaml:\d+:\d+: invalid YAML: /.test(l))).toBe(true);
    expect(got.some((l) => /^b\.yaml:\d+:\d+: invalid YAML: /.test(l))).toBe(true);
    expect(got).toContain('c.yaml:2:22: planRequired.workspace.mode: must be one of off, spends_only, side_effects (got "never")');
  });

  test('several documents in one file, unknown tags', async () => {
    expect(await problems({ 'm.yaml': 'tools: {}\n---\ntools: {}\n' })).toEqual([
      'm.yaml:2:1: invalid YAML: Source contains multiple documents; please use YAML.parseAllDocuments()',
    ]);
    expect(await problems({ 't.yaml': 'planRequired:\n  workspace: { mode: !weird off }\n' })).toEqual([
      't.yaml:2:22: invalid YAML: Unresolved tag: !weird',
    ]);
  });

  test('a key twice in one map names both places (the parser finds it)', async () => {
    const text = 'planRequired:\n  agents:\n    0xBOT: { mode: off }\n    0xWORKER: { mode: off }\n    0xBOT: { mode: side_effects }\n';
    expect(await problems({ 'dup.yaml': text })).toEqual(['dup.yaml:5:5: duplicate key "0xBOT" (first at dup.yaml:3:5)']);
  });

  test('quoted and plain spellings of the same id are the same key', async () => {
    const text = 'planRequired:\n  crews:\n    desk: { mode: off }\n    "desk": { mode: off }\n';
    expect(await problems({ 'dup.yaml': text })).toEqual(['dup.yaml:4:5: duplicate key "desk" (first at dup.yaml:3:5)']);
  });
});

describe('aliases', () => {
  test('a classic billion-laughs file fails fast with a location', async () => {
    let text = 'lol: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
    const names = 'abcdefghi';
    for (let i = 1; i < names.length; i++) {
      text += `l${i}: &${names[i]} [${Array(9).fill(`*${names[i - 1]}`).join(',')}]\n`;
    }
    const started = Date.now();
    const got = await problems({ 'bomb.yaml': text });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatch(/^bomb\.yaml:7:\d+: too many aliases: more than 50 in one file \(an alias bomb\?\)$/);
  });

  test('a smaller bomb within the alias-node limit is stopped by maxAliasCount', async () => {
    // 4 levels of 10 aliases: 40 alias nodes, 10^4 expanded leaves.
    let text = 'l0: &a0 [x,x,x,x,x,x,x,x,x,x]\n';
    for (let i = 1; i <= 4; i++) text += `l${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(',')}]\n`;
    const got = await problems({ 'bomb.yaml': text });
    expect(MAX_ALIAS_COUNT).toBeLessThan(100);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatch(/^bomb\.yaml:5:\d+: too much aliasing: \*a3 expands to \d+ nodes/);
  });

  test('undefined and self-containing aliases', async () => {
    expect(await problems({ 'a.yaml': 'planRequired:\n  workspace: *nope\n' })).toEqual([
      'a.yaml:2:14: alias *nope refers to no anchor defined before it',
    ]);
    expect(await problems({ 'a.yaml': 'tools: &t { read: *t }\n' })).toEqual(['a.yaml:1:19: alias *t refers to a node that contains it']);
  });
});

describe('tags', () => {
  test('a collection tag (!!omap, !!set, !!pairs) is refused at the collection it tags, not read as an empty map that drops its rules', async () => {
    const text = [
      'planRequired:', //                                       1
      '  agents: !!omap [ 0xW: { mode: side_effects } ]', //    2  the list at col 18
      '  crews: !!set { desk }', //                             3  the map at col 16
      'readGuard: { tools: !!pairs [ Read: { path: file_path } ] }', // 4 the list at col 29
      '',
    ].join('\n');
    expect(await problems({ 't.yaml': text })).toEqual([
      't.yaml:2:18: the tag !!omap is not allowed in rule files: write a plain map, list or value',
      't.yaml:3:16: the tag !!set is not allowed in rule files: write a plain map, list or value',
      't.yaml:4:29: the tag !!pairs is not allowed in rule files: write a plain map, list or value',
    ]);
    expect(await problems({ 'doc.yaml': '--- !!omap\n- planRequired: {}\n' })).toEqual([
      'doc.yaml:2:1: the tag !!omap is not allowed in rule files: write a plain map, list or value',
    ]);
  });

  test('the plain tags still read as they say', async () => {
    const dir = await ruleDir({ 'p.yaml': 'planRequired:\n  agents:\n    !!str 0xW: !!map { mode: !!str side_effects, windowMin: !!int 5 }\n' });
    expect((await loadRules(dir)).data.planRequired?.agents?.['0xW']).toMatchObject({ mode: 'side_effects', windowMin: 5 });
  });
});

describe('conflicts across files name both places', () => {
  test('workspace, crew, agent, default class and tool entries', async () => {
    const a = [
      'planRequired:', //                      1
      '  workspace: { mode: off }', //         2
      '  crews:', //                           3
      '    desk: { mode: off }', //            4
      '  agents:', //                          5
      '    0xBOT: { mode: off }', //           6
      'tools:', //                             7
      '  default: read', //                    8
      '  read: [x.get, "pay.*"]', //           9  x.get at col 10, "pay.*" at col 17
      '',
    ].join('\n');
    const b = [
      'planRequired:', //                      1
      '  workspace: { mode: spends_only }', // 2
      '  crews:', //                           3
      '    desk: { mode: side_effects }', //   4
      '  agents:', //                          5
      '    0xBOT: { mode: off }', //           6
      'tools:', //                             7
      '  default: effect', //                  8
      '  effect: [x.get]', //                  9  col 12
      '  spend: ["pay.*", other]', //          10 col 11 and 20
      '  say: [other]', //                     11 col 9
      '',
    ].join('\n');
    expect(await problems({ 'a.yaml': a, 'b.yaml': b })).toEqual([
      'b.yaml:2:3: planRequired.workspace: the workspace rule is already defined at a.yaml:2:3',
      'b.yaml:4:5: planRequired.crews.desk: crew "desk" already has a rule at a.yaml:4:5',
      'b.yaml:6:5: planRequired.agents.0xBOT: agent "0xBOT" already has a rule at a.yaml:6:5',
      'b.yaml:8:3: tools.default: the default tool class is already set at a.yaml:8:3',
      'b.yaml:9:12: tools.effect[0]: "x.get" is already listed at a.yaml:9:10 (under read)',
      'b.yaml:10:11: tools.spend[0]: "pay.*" is already listed at a.yaml:9:17 (under read)',
      'b.yaml:11:9: tools.say[0]: "other" is already listed at b.yaml:10:20 (under spend)',
    ]);
  });

  test('problems carry a JSON pointer to the offending place', async () => {
    const dir = await ruleDir({
      'a.yaml': 'planRequired:\n  crews:\n    team/a: { mode: off }\n',
      'b.yaml': 'planRequired:\n  crews:\n    team/a: { mode: off }\n    team~b: { mode: never }\n',
    });
    const err = await caught(() => loadRules(dir));
    expect(err.details).toEqual([
      {
        file: 'b.yaml',
        line: 3,
        col: 5,
        path: '/planRequired/crews/team~1a',
        message: 'planRequired.crews.team/a: crew "team/a" already has a rule at a.yaml:3:5',
      },
      {
        file: 'b.yaml',
        line: 4,
        col: 5,
        path: '/planRequired/crews/team~0b',
        message: 'planRequired.crews: "team~b" is not a valid crew id (letters, digits and ._:@/-, starting with a letter or digit, at most 128 characters)',
      },
      {
        file: 'b.yaml',
        line: 4,
        col: 21,
        path: '/planRequired/crews/team~0b/mode',
        message: 'planRequired.crews["team~b"].mode: must be one of off, spends_only, side_effects (got "never")',
      },
    ]);
  });

  test('the same tool twice in one list, same class', async () => {
    expect(await problems({ 'a.yaml': 'tools:\n  read: [x, y, x]\n' })).toEqual([
      'a.yaml:2:16: tools.read[2]: "x" is already listed at a.yaml:2:10 (under read)',
    ]);
  });

  test('an exact name and a pattern that matches it do not conflict', async () => {
    const dir = await ruleDir({ 'a.yaml': 'tools:\n  read: [github.get_*]\n  effect: [github.get_secret]\n' });
    const { data } = await loadRules(dir);
    expect(data.tools.exact).toEqual({ 'github.get_secret': 'effect' });
    expect(data.tools.patterns).toEqual([{ pattern: 'github.get_*', class: 'read', source: 'a.yaml:2:10' }]);
  });
});

describe('cost', () => {
  test('thousands of small aliases are refused quickly (the YAML library alone would take minutes)', async () => {
    let text = 'tools:\n  read:\n';
    for (let i = 0; i < 12_000; i++) text += `    - &a${i} t${i}\n    - *a${i}\n`;
    const started = Date.now();
    const got = await problems({ 'many.yaml': text });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(got).toEqual(['many.yaml:104:7: too many aliases: more than 50 in one file (an alias bomb?)']);
  });
});
