/**
 * The cache of checked rules a hook process reads instead of parsing the
 * rules (src/main/rules-cache.ts), and the private cache folder it and
 * Node's compile cache live in (src/main/cache-dir.ts): a hit gives exactly
 * what checking gives, prototypes included; anything but a whole entry of
 * this key is a miss; a bad rule set is never kept; a folder others could
 * write, or rules of another user, are not cached.
 */
import { deepStrictEqual } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { privateCacheDir } from '../../src/main/cache-dir.js';
import { checkRuleFiles, RULES_CACHE_ENTRIES } from '../../src/main/rules-cache.js';
import { checkRules } from '../../src/rules/load.js';
import { readRuleDir } from '../../src/rules/read.js';
import { CLI_CHILD, makeWorld } from '../mcp/support.js';

const EXAMPLES = resolve(import.meta.dirname, '..', '..', 'examples');

/** Rules with every kind of map the data has, and tool names that are Object's own. */
const EXOTIC = `
planRequired:
  workspace: { mode: side_effects, windowMin: 10 }
  crews: { desk: { mode: spends_only } }
  agents: { 0xBOT: { mode: off } }
tools:
  read: [toString, valueOf, hasOwnProperty, "github.get_*"]
  spend: [stripe.charge]
planningGate:
  defaults: { readGuardMaxBytes: 1000, whitelist: [toString] }
  profiles: { careful: { enabled: true } }
  crews: { desk: careful }
readGuard:
  tools:
    Read: { path: file_path, range: [limit] }
approvals:
  workspace: { tools: [stripe.charge], when: { currency: usd } }
mcp:
  trustAnnotations: [fs]
  pins: { fs: { read_file: "sha256:${'0'.repeat(64)}" } }
quotas:
  messages: { rate: 10 }
`;

function tmp(): string {
  return mkdtempSync(join(os.tmpdir(), 'plangate-rules-cache-'));
}

function rulesDir(files: Record<string, string>): string {
  const dir = tmp();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

async function check(dir: string, cache: string | undefined) {
  return checkRuleFiles((await readRuleDir(dir)).files, cache, dir);
}

async function fresh(dir: string) {
  return checkRules((await readRuleDir(dir)).files.map((f) => ({ file: f.file, text: f.bytes })));
}

const entries = (cache: string) => readdirSync(cache).filter((n) => n.endsWith('.json'));

describe('the checked-rules cache', () => {
  const sets: Array<[string, Record<string, string>]> = [
    ['the example rules', Object.fromEntries(readdirSync(join(EXAMPLES, 'rules')).filter((n) => !n.includes('.test.')).map((n) => [n, readFileSync(join(EXAMPLES, 'rules', n), 'utf8')]))],
    ...readdirSync(join(EXAMPLES, 'hosts')).map((n): [string, Record<string, string>] => [`the ${n} host rules`, { [n]: readFileSync(join(EXAMPLES, 'hosts', n), 'utf8') }]),
    ['rules with every map and tool names of Object', { 'all.yaml': EXOTIC }],
  ];

  it.each(sets)('gives for %s exactly what checking gives, prototypes included', async (_, files) => {
    const dir = rulesDir(files);
    const cache = tmp();
    const expected = await fresh(dir);
    expect(expected.problems).toEqual([]);
    const first = await check(dir, cache);
    expect(entries(cache)).toHaveLength(1);
    const hit = await check(dir, cache);
    deepStrictEqual(first, expected);
    deepStrictEqual(hit, expected);
  });

  it('takes a hit from the entry, not from parsing', async () => {
    const dir = rulesDir({ 'all.yaml': EXOTIC });
    const cache = tmp();
    await check(dir, cache);
    const file = join(cache, entries(cache)[0]!);
    const entry = JSON.parse(readFileSync(file, 'utf8'));
    entry.data.planRequired.workspace.windowMin = 11;
    writeFileSync(file, JSON.stringify(entry));
    expect((await check(dir, cache)).data?.planRequired.workspace?.windowMin).toBe(11);
  });

  it('misses an entry that is garbage, cut short, of another key, revision or format, and checks afresh', async () => {
    const dir = rulesDir({ 'all.yaml': EXOTIC });
    const cache = tmp();
    const expected = await fresh(dir);
    await check(dir, cache);
    const file = join(cache, entries(cache)[0]!);
    const good = readFileSync(file, 'utf8');
    const entry = JSON.parse(good);
    const bad = [
      'not json',
      good.slice(0, good.length / 2),
      'null',
      JSON.stringify({ ...entry, key: '0'.repeat(64) }),
      JSON.stringify({ ...entry, revision: '0'.repeat(64) }),
      JSON.stringify({ ...entry, format: 0 }),
      JSON.stringify({ ...entry, data: [] }),
      JSON.stringify({ ...entry, bare: undefined }),
    ];
    for (const text of bad) {
      writeFileSync(file, text);
      deepStrictEqual(await check(dir, cache), expected);
      // The fresh check wrote the entry again.
      expect(readFileSync(file, 'utf8')).toBe(good);
    }
  });

  it('misses when a rule file changes, and gives the new rules', async () => {
    const dir = rulesDir({ 'a.yaml': 'planRequired:\n  workspace: { mode: side_effects }\n' });
    const cache = tmp();
    await check(dir, cache);
    writeFileSync(join(dir, 'a.yaml'), 'planRequired:\n  workspace: { mode: spends_only }\n');
    expect((await check(dir, cache)).data?.planRequired.workspace?.mode).toBe('spends_only');
    expect(entries(cache)).toHaveLength(2);
  });

  it('never keeps a rule set with a problem, and reports it with its place every time', async () => {
    const dir = rulesDir({ 'a.yaml': 'planRequired:\n  workspace: { mode: sometimes }\n' });
    const cache = tmp();
    for (let i = 0; i < 2; i++) {
      const got = await check(dir, cache);
      expect(got.data).toBeUndefined();
      expect(got.problems[0]).toMatchObject({ file: 'a.yaml', line: 2 });
    }
    expect(entries(cache)).toEqual([]);
  });

  it(`keeps at most ${RULES_CACHE_ENTRIES} entries`, async () => {
    const cache = tmp();
    for (let i = 0; i < RULES_CACHE_ENTRIES + 3; i++) {
      await check(rulesDir({ 'a.yaml': `planRequired:\n  workspace: { mode: side_effects, windowMin: ${i + 1} }\n` }), cache);
    }
    expect(entries(cache)).toHaveLength(RULES_CACHE_ENTRIES);
  });

  it.runIf(process.getuid?.() === 0)('is not used for rules another user owns', async () => {
    const dir = rulesDir({ 'all.yaml': EXOTIC });
    chownSync(dir, 65534, 65534);
    const cache = tmp();
    deepStrictEqual(await check(dir, cache), await fresh(dir));
    expect(entries(cache)).toEqual([]);
  });
});

describe('the private cache folder', () => {
  it('is made under XDG_CACHE_HOME with mode 0700', () => {
    const home = tmp();
    const dir = privateCacheDir({ XDG_CACHE_HOME: home }, 'rules');
    expect(dir).toBe(join(home, 'plangate', 'rules'));
    expect(readdirSync(join(home, 'plangate'))).toEqual(['rules']);
  });

  it('is refused when others can write it or its parent, or it is a symbolic link', () => {
    const home = tmp();
    mkdirSync(join(home, 'plangate', 'rules'), { recursive: true, mode: 0o700 });
    chmodSync(join(home, 'plangate', 'rules'), 0o777);
    expect(privateCacheDir({ XDG_CACHE_HOME: home }, 'rules')).toBeUndefined();
    chmodSync(join(home, 'plangate', 'rules'), 0o700);
    chmodSync(join(home, 'plangate'), 0o757);
    expect(privateCacheDir({ XDG_CACHE_HOME: home }, 'rules')).toBeUndefined();
    chmodSync(join(home, 'plangate'), 0o700);
    expect(privateCacheDir({ XDG_CACHE_HOME: home }, 'rules')).toBe(join(home, 'plangate', 'rules'));
    const elsewhere = tmp();
    symlinkSync(elsewhere, join(home, 'plangate', 'linked'));
    expect(privateCacheDir({ XDG_CACHE_HOME: home }, 'linked')).toBeUndefined();
  });

  it('is none without a home, or with a relative one', () => {
    expect(privateCacheDir({ XDG_CACHE_HOME: 'relative', HOME: 'also-relative' }, 'rules')).toBeUndefined();
  });
});

describe('plangate hook with the cache', () => {
  const w = makeWorld('planRequired:\n  workspace: { mode: side_effects, windowMin: 10 }\ntools:\n  read: [Read]\n');
  const write = JSON.stringify({ session_id: 's', transcript_path: '/tmp/t', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: '/tmp/x', content: 'hi' }, tool_use_id: 't' });
  const home = tmp();
  const hook = () => spawnSync(process.execPath, ['--import', 'tsx', CLI_CHILD, '--rules', w.rules, '--store', w.store, '--audit', w.audit, 'hook', '--agent', '0xWORKER', '--format', 'claude-code'], {
    input: write, encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: home },
  });

  it('answers the same from a fresh check, from the cache, and from a broken entry', () => {
    const first = hook();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/"permissionDecision":"deny".*plan_required:Write:none/);
    const cache = join(home, 'plangate', 'rules');
    expect(entries(cache)).toHaveLength(1);
    expect(hook().stdout).toBe(first.stdout);
    writeFileSync(join(cache, entries(cache)[0]!), '{"format":1');
    expect(hook().stdout).toBe(first.stdout);
  }, 60_000);
});
