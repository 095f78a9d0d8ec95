import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, open, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { ErrorCode } from '../../src/core/errors.js';
import { decodeRuleText, firstInvalidUtf8 } from '../../src/rules/decode.js';
import { loadRules } from '../../src/rules/load.js';
import { isRuleFileName, MAX_RULE_FILE_BYTES, MAX_RULE_FILES, readRuleDir, readRuleFile } from '../../src/rules/read.js';
import { caught, lines, ruleDir } from './helpers.js';

const GOOD = 'planRequired:\n  workspace: { mode: spends_only }\n';

describe('the directory', () => {
  test('a missing directory is rules_unreadable', async () => {
    const missing = path.join(await ruleDir(), 'nope');
    const err = await caught(() => loadRules(missing));
    expect(err.code).toBe(ErrorCode.RulesUnreadable);
    expect(err.message).toBe(`${missing}: cannot read the rules directory: no such file or directory (ENOENT)`);
  });

  test('a file given as the directory is rules_unreadable', async () => {
    const dir = await ruleDir({ 'a.yaml': GOOD });
    const err = await caught(() => loadRules(path.join(dir, 'a.yaml')));
    expect(err.code).toBe(ErrorCode.RulesUnreadable);
    expect(err.message).toMatch(/cannot read the rules directory: not a directory \(ENOTDIR\)$/);
  });

  test('only top-level *.yaml and *.yml files count; dotfiles and directories are skipped', async () => {
    const dir = await ruleDir({ 'a.yaml': GOOD, 'b.yml': 'tools: {}\n', '.c.yaml': 'bad: [', 'd.json': '{', 'e.YAML.bak': 'x' });
    await mkdir(path.join(dir, 'sub.yaml'));
    await writeFile(path.join(dir, 'sub.yaml', 'f.yaml'), 'bad: [');
    const rules = await loadRules(dir);
    expect(rules.files).toEqual(['a.yaml', 'b.yml']);
    expect(isRuleFileName('..data')).toBe(false);
    expect(isRuleFileName('x.yml')).toBe(true);
  });

  test('a Kubernetes ConfigMap layout loads through its symlinks', async () => {
    const dir = await ruleDir();
    await mkdir(path.join(dir, '..2026_11_29_12_00_00.000000001'));
    await writeFile(path.join(dir, '..2026_11_29_12_00_00.000000001', 'rules.yaml'), GOOD);
    await symlink('..2026_11_29_12_00_00.000000001', path.join(dir, '..data'));
    await symlink('..data/rules.yaml', path.join(dir, 'rules.yaml'));
    const rules = await loadRules(dir);
    expect(rules.files).toEqual(['rules.yaml']);
    expect(rules.data.planRequired.workspace).toEqual({ mode: 'spends_only', source: 'rules.yaml:2:3' });
  });

  test(`more than ${MAX_RULE_FILES} rule files is refused before reading any`, async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i <= MAX_RULE_FILES; i++) files[`r${String(i).padStart(3, '0')}.yaml`] = i === 0 ? 'bad: [' : '';
    const dir = await ruleDir(files);
    const err = await caught(() => loadRules(dir));
    expect(err.code).toBe(ErrorCode.RulesInvalid);
    expect(err.details).toEqual([{ file: dir, message: `too many rule files: ${MAX_RULE_FILES + 1} (at most ${MAX_RULE_FILES})` }]);
  });
});

describe('files', () => {
  test('a file longer than its size says (one that grew since stat) is read to its end, never cut', async () => {
    // /proc/self/cmdline says 0 bytes and holds this process's command line.
    const whole = readFileSync('/proc/self/cmdline');
    expect(whole.length).toBeGreaterThan(1);
    const read = await readRuleFile('/proc/self/cmdline', 'cmdline');
    expect(read.kind === 'file' && Buffer.from(read.bytes).equals(whole)).toBe(true);
  });

  test('a 50 MB file is refused from its size, and the other files are still checked', async () => {
    const dir = await ruleDir({ 'a.yaml': 'planRequired:\n  workspace: { mode: nope }\n' });
    const handle = await open(path.join(dir, 'big.yaml'), 'w');
    await handle.truncate(50 * 1024 * 1024); // sparse: nothing is written
    await handle.close();
    const err = await caught(() => loadRules(dir));
    expect(err.code).toBe(ErrorCode.RulesInvalid);
    expect(lines(err)).toEqual([
      'a.yaml:2:22: planRequired.workspace.mode: must be one of off, spends_only, side_effects (got "nope")',
      `big.yaml: file is too large: ${50 * 1024 * 1024} bytes (at most ${MAX_RULE_FILE_BYTES})`,
    ]);
  });

  test('exactly 1 MiB is allowed', async () => {
    const text = `# ${'x'.repeat(MAX_RULE_FILE_BYTES - 3)}\n`;
    expect(Buffer.byteLength(text)).toBe(MAX_RULE_FILE_BYTES);
    const read = await readRuleDir(await ruleDir({ 'a.yaml': text }));
    expect(read.problems).toEqual([]);
    expect(read.files[0]?.bytes.byteLength).toBe(MAX_RULE_FILE_BYTES);
  });

  test('a non-UTF-8 file reports the line and column of the first bad byte', async () => {
    const bytes = Buffer.concat([Buffer.from('planRequired:\n  crews:\n    caf'), Buffer.from([0xe9]), Buffer.from(': { mode: off }\n')]);
    const err = await caught(async () => loadRules(await ruleDir({ 'latin1.yaml': bytes })));
    expect(err.code).toBe(ErrorCode.RulesInvalid);
    expect(lines(err)).toEqual(['latin1.yaml:3:8: not valid UTF-8 (byte 0xE9 at offset 30); rule files must be UTF-8 text']);
  });

  test('a FIFO is refused without blocking', async () => {
    const dir = await ruleDir({ 'a.yaml': GOOD });
    execFileSync('mkfifo', [path.join(dir, 'pipe.yaml')]);
    const err = await caught(() => loadRules(dir));
    expect(err.code).toBe(ErrorCode.RulesInvalid);
    expect(lines(err)).toEqual(['pipe.yaml: not a regular file (a FIFO); rule files must be regular files']);
  });

  test('a dangling symlink is rules_unreadable', async () => {
    const dir = await ruleDir({ 'a.yaml': GOOD });
    await symlink('missing.yaml', path.join(dir, 'gone.yaml'));
    const err = await caught(() => loadRules(dir));
    expect(err.code).toBe(ErrorCode.RulesUnreadable);
    expect(lines(err)).toEqual(['gone.yaml: cannot open gone.yaml: no such file or directory (ENOENT)']);
  });

  test('a symlink out of the rules directory is refused unread: what is out there never reaches an error', async () => {
    const outside = await ruleDir({ 'secret.txt': 'DATABASE_URL=postgres://u:hunter2@db' });
    const dir = await ruleDir({ 'a.yaml': GOOD });
    await symlink(path.join(outside, 'secret.txt'), path.join(dir, 'zz.yaml'));
    await symlink('/proc/self/environ', path.join(dir, 'env.yaml'));
    const err = await caught(() => loadRules(dir));
    expect(err.code).toBe(ErrorCode.RulesInvalid);
    expect(lines(err)).toEqual([
      'env.yaml: a link that leads out of the rules directory; rule files must be in it',
      'zz.yaml: a link that leads out of the rules directory; rule files must be in it',
    ]);
    expect(JSON.stringify(err)).not.toMatch(/hunter2|PATH=/);
  });

  test('a symlink to a directory is skipped like a directory', async () => {
    const dir = await ruleDir({ 'a.yaml': GOOD });
    await mkdir(path.join(dir, 'real'));
    await symlink('real', path.join(dir, 'linked.yaml'));
    expect((await loadRules(dir)).files).toEqual(['a.yaml']);
  });
});

describe('decoding', () => {
  const enc = (...parts: Array<string | number[]>): Uint8Array =>
    Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

  test('well-formed UTF-8 passes and a BOM is dropped', () => {
    expect(decodeRuleText('a', enc([0xef, 0xbb, 0xbf], 'a: é€😀\n'))).toEqual({ ok: true, text: 'a: é€😀\n' });
  });

  test.each([
    ['a lone continuation byte', enc('ab', [0x80]), 2],
    ['an overlong slash', enc('a', [0xc0, 0xaf]), 1],
    ['an overlong 3-byte form', enc([0xe0, 0x80, 0xaf]), 0],
    ['a UTF-16 surrogate', enc('ok', [0xed, 0xa0, 0x80]), 2],
    ['above U+10FFFF', enc([0xf4, 0x90, 0x80, 0x80]), 0],
    ['a truncated sequence at the end', enc('abc', [0xe2, 0x82]), 3],
    ['0xFF', enc('é', [0xff]), 2],
  ])('finds %s', (_name, bytes, offset) => {
    expect(firstInvalidUtf8(bytes)).toBe(offset);
    expect(decodeRuleText('x.yaml', bytes).ok).toBe(false);
  });

  test('columns count characters after multi-byte ones', () => {
    const got = decodeRuleText('x.yaml', enc('a: 1\nbé€: ', [0xff]));
    expect(got).toEqual({
      ok: false,
      problem: { file: 'x.yaml', line: 2, col: 6, message: 'not valid UTF-8 (byte 0xFF at offset 13); rule files must be UTF-8 text' },
    });
  });
});
