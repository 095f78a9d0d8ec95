import { chmod, cp, lstat, readdir, readFile, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { ErrorCode } from '../../src/core/errors.js';
import { clearPlanRule, setPlanRule } from '../../src/rules/edit.js';
import { loadRules } from '../../src/rules/load.js';
import { writeFileAtomic } from '../../src/rules/write.js';
import { caught, ruleDir } from './helpers.js';

/** A temp copy of examples/rules. */
async function examples(): Promise<string> {
  const dir = await ruleDir();
  await cp('examples/rules', dir, { recursive: true });
  return dir;
}

const read = (dir: string, file: string) => readFile(path.join(dir, file), 'utf8');

/** Every file of a directory, name → bytes. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) out[name] = (await readFile(path.join(dir, name))).toString('base64');
  return out;
}

describe('setPlanRule', () => {
  test('replaces a flow-map rule on its line and leaves every other byte alone', async () => {
    const dir = await examples();
    const before = await read(dir, 'plan-required.yaml');
    const result = await setPlanRule(dir, { kind: 'crew', id: 'desk' }, { mode: 'spends_only' });
    expect(result).toEqual({ file: 'plan-required.yaml', changed: true });
    expect(await read(dir, 'plan-required.yaml')).toBe(
      before.replace('    desk: { mode: side_effects, windowMin: 15 }\n', '    desk: { mode: spends_only }\n'),
    );
    expect((await loadRules(dir)).data.planRequired.crews['desk']).toEqual({ mode: 'spends_only', source: 'plan-required.yaml:24:5' });
  });

  test('replaces a block-map rule wholesale: only the given fields remain', async () => {
    const dir = await examples();
    const before = await read(dir, 'plan-required.yaml');
    await setPlanRule(dir, { kind: 'workspace' }, { mode: 'side_effects', windowMin: 45 });
    expect(await read(dir, 'plan-required.yaml')).toBe(
      before.replace('    mode: spends_only\n    windowMin: 30\n    acceptUpstream: false\n', '    mode: side_effects\n    windowMin: 45\n'),
    );
  });

  test('adds a new agent 0xABC (quoted, so it stays text) next to the other agents; clearing it restores the file', async () => {
    const dir = await examples();
    const before = await snapshot(dir);
    const original = await read(dir, 'seats.yaml');
    const result = await setPlanRule(dir, { kind: 'agent', id: '0xABC' }, { mode: 'spends_only', windowMin: 5, acceptUpstream: false });
    expect(result).toEqual({ file: 'seats.yaml', changed: true });
    expect(await read(dir, 'seats.yaml')).toBe(`${original}    "0xABC": { mode: spends_only, windowMin: 5, acceptUpstream: false }\n`);
    const after = await snapshot(dir);
    expect({ ...after, 'seats.yaml': '' }).toEqual({ ...before, 'seats.yaml': '' });
    const rules = await loadRules(dir);
    expect(rules.data.planRequired.agents['0xABC']).toEqual({
      mode: 'spends_only',
      windowMin: 5,
      acceptUpstream: false,
      source: 'seats.yaml:13:5',
    });
    expect(rules.data.planRequired.agents['2748']).toBeUndefined();

    expect(await clearPlanRule(dir, { kind: 'agent', id: '0xABC' })).toEqual({ file: 'seats.yaml', changed: true });
    expect(await snapshot(dir)).toEqual(before);
  });

  test('a new crew or agent goes to the first file with planRequired when none has that map', async () => {
    const dir = await examples();
    const original = await read(dir, 'plan-required.yaml');
    await clearPlanRule(dir, { kind: 'agent', id: '0xBOT' });
    await clearPlanRule(dir, { kind: 'agent', id: '0xWORKER' });
    await writeFile(path.join(dir, 'seats.yaml'), '# no rules here any more\n');
    expect(await setPlanRule(dir, { kind: 'agent', id: '0xABC' }, { mode: 'off' })).toEqual({ file: 'plan-required.yaml', changed: true });
    expect(await read(dir, 'plan-required.yaml')).toBe(`${original}  agents:\n    "0xABC": { mode: off }\n`);
  });

  test('edits the file that already defines the scope', async () => {
    const dir = await examples();
    const original = await read(dir, 'seats.yaml');
    expect(await setPlanRule(dir, { kind: 'agent', id: '0xWORKER' }, { mode: 'off' })).toEqual({ file: 'seats.yaml', changed: true });
    expect(await read(dir, 'seats.yaml')).toBe(original.replace('0xWORKER: { mode: side_effects, windowMin: 10 }', '0xWORKER: { mode: off }'));
  });

  test('setting what is already there changes nothing', async () => {
    const dir = await examples();
    const before = await snapshot(dir);
    expect(await setPlanRule(dir, { kind: 'agent', id: '0xBOT' }, { mode: 'off' })).toEqual({ file: 'seats.yaml', changed: false });
    expect(await snapshot(dir)).toEqual(before);
  });

  test('keeps hand formatting and comments outside the edited rule', async () => {
    const text = [
      '# crews   (hand-formatted)',
      'planRequired:',
      '    crews:      # four-space indent',
      '        desk:   {mode: off}    # tight',
      '        news:',
      '            mode: spends_only   # keep me',
      '            windowMin: 20',
      '',
      '        sports: {mode: off}',
      'tools:',
      '    read: [ a.get,b.get ]',
      '',
    ].join('\n');
    const dir = await ruleDir({ 'a.yaml': text });
    await setPlanRule(dir, { kind: 'crew', id: 'news' }, { mode: 'side_effects' });
    expect(await read(dir, 'a.yaml')).toBe(text.replace('            windowMin: 20\n', '').replace('mode: spends_only   # keep me', 'mode: side_effects # keep me'));
    await setPlanRule(dir, { kind: 'crew', id: 'desk' }, { mode: 'spends_only', windowMin: 5 });
    expect(await read(dir, 'a.yaml')).toContain('        desk:   { mode: spends_only, windowMin: 5 }    # tight\n');
    expect(await read(dir, 'a.yaml')).toContain('    read: [ a.get,b.get ]\n');
  });

  test('creates plan-required.yaml in an empty directory', async () => {
    const dir = await ruleDir();
    expect(await setPlanRule(dir, { kind: 'crew', id: 'desk' }, { mode: 'side_effects', windowMin: 15 })).toEqual({
      file: 'plan-required.yaml',
      changed: true,
    });
    expect(await read(dir, 'plan-required.yaml')).toBe(
      '# plangate rules (created by plangate; edit freely, comments are kept)\n\nplanRequired:\n  crews:\n    desk: { mode: side_effects, windowMin: 15 }\n',
    );
    expect(await readdir(dir)).toEqual(['plan-required.yaml']);
    expect((await loadRules(dir)).data.planRequired.crews['desk']?.windowMin).toBe(15);
  });

  test('with no planRequired map anywhere, extends the first rule file', async () => {
    const dir = await ruleDir({ 'b.yaml': 'tools:\n  read: [x]\n', 'a.yaml': '# tools only\ntools:\n  say: [s]\n' });
    expect(await setPlanRule(dir, { kind: 'workspace' }, { mode: 'off' })).toEqual({ file: 'a.yaml', changed: true });
    expect(await read(dir, 'a.yaml')).toBe('# tools only\ntools:\n  say: [s]\nplanRequired:\n  workspace:\n    mode: off\n');
    expect(await read(dir, 'b.yaml')).toBe('tools:\n  read: [x]\n');
  });

  test('prefers the first file that has a planRequired map', async () => {
    const dir = await ruleDir({ 'a.yaml': 'tools:\n  read: [x]\n', 'b.yaml': 'planRequired:\n  crews: {}\n', 'c.yaml': 'planRequired: {}\n' });
    expect(await setPlanRule(dir, { kind: 'crew', id: 'desk' }, { mode: 'off' })).toEqual({ file: 'b.yaml', changed: true });
    expect(await read(dir, 'b.yaml')).toBe('planRequired:\n  crews: { desk: { mode: off } }\n');
  });
});

describe('setPlanRule on unusual files', () => {
  test('CRLF line ends are kept', async () => {
    const dir = await ruleDir({ 'a.yaml': 'planRequired:\r\n  crews:\r\n    desk: {mode: off}  # c\r\n' });
    await setPlanRule(dir, { kind: 'crew', id: 'news' }, { mode: 'off' });
    expect(await read(dir, 'a.yaml')).toBe('planRequired:\r\n  crews:\r\n    desk: {mode: off}  # c\r\n    news: { mode: off }\r\n');
  });

  test('a leading byte-order mark is kept', async () => {
    const dir = await ruleDir({ 'a.yaml': '\uFEFFplanRequired:\n  crews:\n    desk: {mode: off}  # c\n' });
    await setPlanRule(dir, { kind: 'crew', id: 'desk' }, { mode: 'side_effects' });
    expect(await read(dir, 'a.yaml')).toBe('\uFEFFplanRequired:\n  crews:\n    desk: { mode: side_effects }  # c\n');
    expect(await setPlanRule(dir, { kind: 'crew', id: 'desk' }, { mode: 'side_effects' })).toEqual({ file: 'a.yaml', changed: false });
    await clearPlanRule(dir, { kind: 'crew', id: 'desk' });
    expect(await read(dir, 'a.yaml')).toBe('\uFEFFplanRequired:\n  crews: {}\n');
  });

  test('a rule that is an alias is replaced, its anchor untouched', async () => {
    const dir = await ruleDir({ 'a.yaml': 'planRequired:\n  crews:\n    a: &base {mode: off}\n    desk: *base\n' });
    await setPlanRule(dir, { kind: 'crew', id: 'desk' }, { mode: 'spends_only' });
    expect(await read(dir, 'a.yaml')).toBe('planRequired:\n  crews:\n    a: &base {mode: off}\n    desk: { mode: spends_only }\n');
  });

  test('a map reached through an alias is refused', async () => {
    const dir = await ruleDir({ 'a.yaml': 'planRequired:\n  crews: &c {desk: {mode: off}}\n  agents: *c\n' });
    const err = await caught(() => setPlanRule(dir, { kind: 'agent', id: 'desk' }, { mode: 'spends_only' }));
    expect(err.code).toBe(ErrorCode.RulesEditRefused);
    expect(err.message).toBe('edit refused:\nplanRequired.agents is an alias; edit it by hand');
  });

  test('a rule or map that an alias reuses is not edited in place: the alias would change too (or lose its anchor)', async () => {
    const text = 'planRequired:\n  crews:\n    a: &r {mode: off}\n    b: *r\n';
    const dir = await ruleDir({ 'a.yaml': text });
    const reused = 'a.yaml:4:8: *r reuses planRequired.crews.a, which this edit would change; edit the file by hand';
    for (const edit of [
      () => setPlanRule(dir, { kind: 'crew', id: 'a' }, { mode: 'side_effects' }),
      () => clearPlanRule(dir, { kind: 'crew', id: 'a' }),
    ]) {
      const err = await caught(edit);
      expect(err.code).toBe(ErrorCode.RulesEditRefused);
      expect(err.message).toBe(`edit refused:\n${reused}`);
    }
    // A value inside the rule, reused by another rule.
    await writeFile(path.join(dir, 'a.yaml'), 'planRequired:\n  crews:\n    a: {mode: &m off}\n    b: {mode: *m}\n');
    const inner = await caught(() => setPlanRule(dir, { kind: 'crew', id: 'a' }, { mode: 'side_effects' }));
    expect(inner.message).toBe('edit refused:\na.yaml:4:15: *m reuses planRequired.crews.a.mode, which this edit would change; edit the file by hand');
    // A map on the way to the rule, reused as another map.
    const maps = 'planRequired:\n  crews: &c {desk: {mode: off}}\n  agents: *c\n';
    await writeFile(path.join(dir, 'a.yaml'), maps);
    const outer = await caught(() => setPlanRule(dir, { kind: 'crew', id: 'news' }, { mode: 'off' }));
    expect(outer.message).toBe('edit refused:\na.yaml:3:11: *c reuses planRequired.crews, which this edit would change; edit the file by hand');
    expect(await read(dir, 'a.yaml')).toBe(maps);
    expect((await loadRules(dir)).data.planRequired.agents).toEqual({ desk: { mode: 'off', source: 'a.yaml:2:14' } });
  });

  test('the first entry of a map takes the comment right above it along when cleared', async () => {
    const text = 'planRequired:\n  crews:\n    # Crews we run\n\n    # desk\n    desk: {mode: off}\n    # news\n    news: {mode: off}\n';
    const dir = await ruleDir({ 'a.yaml': text });
    await clearPlanRule(dir, { kind: 'crew', id: 'desk' });
    const after = await read(dir, 'a.yaml');
    expect(after).toContain('# Crews we run\n');
    expect(after).not.toContain('# desk');
    expect(after).toContain('    # news\n    news: { mode: off }\n');
  });
});

describe('clearPlanRule', () => {
  test('removes the rule and the comment above it, nothing else', async () => {
    const dir = await examples();
    const original = await read(dir, 'seats.yaml');
    expect(await clearPlanRule(dir, { kind: 'agent', id: '0xBOT' })).toEqual({ file: 'seats.yaml', changed: true });
    expect(await read(dir, 'seats.yaml')).toBe(
      original.replace('    # The housekeeping bot is carved out: nothing is gated for it.\n    0xBOT: { mode: off }\n', ''),
    );
    expect((await loadRules(dir)).data.planRequired.agents['0xBOT']).toBeUndefined();
  });

  test('clearing the last rule of a map leaves an empty map', async () => {
    const text = 'planRequired:\n  agents:\n    0xABC: { mode: off }\n  crews:\n    desk: { mode: off }\n';
    const dir = await ruleDir({ 'a.yaml': text });
    await clearPlanRule(dir, { kind: 'agent', id: '0xABC' });
    expect(await read(dir, 'a.yaml')).toBe('planRequired:\n  agents: {}\n  crews:\n    desk: { mode: off }\n');
  });

  test('clearing the workspace rule', async () => {
    const dir = await examples();
    const original = await read(dir, 'plan-required.yaml');
    await clearPlanRule(dir, { kind: 'workspace' });
    const workspace = '  # Everyone: a spend needs a plan posted in the last 30 minutes.\n  workspace:\n    mode: spends_only\n    windowMin: 30\n    acceptUpstream: false\n\n';
    expect(original).toContain(workspace);
    expect(await read(dir, 'plan-required.yaml')).toBe(original.replace(workspace, ''));
  });

  test('clearing a scope with no rule changes nothing', async () => {
    const dir = await examples();
    const before = await snapshot(dir);
    expect(await clearPlanRule(dir, { kind: 'crew', id: 'nobody' })).toEqual({ file: null, changed: false });
    expect(await clearPlanRule(await ruleDir(), { kind: 'workspace' })).toEqual({ file: null, changed: false });
    expect(await snapshot(dir)).toEqual(before);
  });
});

describe('refused edits write nothing', () => {
  test('an invalid rule is refused with located problems; the files stay byte-identical', async () => {
    const dir = await examples();
    const before = await snapshot(dir);
    const err = await caught(() => setPlanRule(dir, { kind: 'crew', id: 'desk' }, { mode: 'off', windowMin: 0 }));
    expect(err.code).toBe(ErrorCode.RulesEditRefused);
    expect(err.details).toEqual([
      expect.objectContaining({
        file: 'plan-required.yaml',
        line: 24,
        message: 'planRequired.crews.desk: windowMin must be an integer from 1 to 10080 (got 0)',
      }),
    ]);
    const err2 = await caught(() => setPlanRule(dir, { kind: 'workspace' }, { mode: 'sometimes' as never }));
    expect(err2.code).toBe(ErrorCode.RulesEditRefused);
    expect(err2.message).toContain('planRequired.workspace.mode: must be one of off, spends_only, side_effects (got "sometimes")');
    expect(await snapshot(dir)).toEqual(before);
  });

  test('an invalid id is refused', async () => {
    const dir = await examples();
    const err = await caught(() => setPlanRule(dir, { kind: 'agent', id: 'constructor' }, { mode: 'off' }));
    expect(err.code).toBe(ErrorCode.RulesEditRefused);
    expect(err.message).toBe('edit refused:\n"constructor" is not a valid agent id');
  });

  test('the whole set is validated: a broken other file refuses the edit', async () => {
    const dir = await ruleDir({ 'a.yaml': 'planRequired:\n  crews: {}\n', 'b.yaml': 'tools:\n  read: [x]\n  effect: [x]\n' });
    const before = await snapshot(dir);
    const err = await caught(() => setPlanRule(dir, { kind: 'crew', id: 'desk' }, { mode: 'off' }));
    expect(err.code).toBe(ErrorCode.RulesEditRefused);
    expect(err.details.map((p) => `${p.file}:${p.line}:${p.col}`)).toEqual(['b.yaml:3:12']);
    expect(await snapshot(dir)).toEqual(before);
  });

  test('a file with YAML errors is not edited', async () => {
    const dir = await ruleDir({ 'a.yaml': 'planRequired:\n  crews: [\n' });
    const err = await caught(() => setPlanRule(dir, { kind: 'crew', id: 'desk' }, { mode: 'off' }));
    expect(err.code).toBe(ErrorCode.RulesEditRefused);
    expect(await read(dir, 'a.yaml')).toBe('planRequired:\n  crews: [\n');
  });

  test('a directory that cannot be written gives a clear error', async () => {
    // Root ignores permission bits, but not sysfs; anyone else gets a read-only temp dir.
    const asRoot = process.getuid?.() === 0;
    const dir = asRoot ? '/sys/kernel' : await ruleDir();
    if (!asRoot) await chmod(dir, 0o555);
    try {
      const err = await caught(() => setPlanRule(dir, { kind: 'workspace' }, { mode: 'off' }));
      expect(err.code).toBe(ErrorCode.RulesEditRefused);
      expect(err.message).toMatch(/^cannot write \/.*plan-required\.yaml: (permission denied \(EACCES\)|read-only file system \(EROFS\)|operation not permitted \(EPERM\))$/);
    } finally {
      if (!asRoot) await chmod(dir, 0o755);
    }
    if (!asRoot) expect(await readdir(dir)).toEqual([]);
  });
});

describe('atomic writes', () => {
  test('a symlinked rule file is written through and stays a symlink; permission bits are kept', async () => {
    const dir = await ruleDir({ 'real.yml.txt': 'planRequired:\n  crews: {}\n' });
    await symlink('real.yml.txt', path.join(dir, 'rules.yaml'));
    await chmod(path.join(dir, 'real.yml.txt'), 0o640);
    await setPlanRule(dir, { kind: 'crew', id: 'desk' }, { mode: 'off' });
    expect((await lstat(path.join(dir, 'rules.yaml'))).isSymbolicLink()).toBe(true);
    expect(await readlink(path.join(dir, 'rules.yaml'))).toBe('real.yml.txt');
    expect(await read(dir, 'real.yml.txt')).toBe('planRequired:\n  crews: { desk: { mode: off } }\n');
    expect((await stat(path.join(dir, 'real.yml.txt'))).mode & 0o777).toBe(0o640);
  });

  test('a file changed since it was read is not overwritten, and no temp file is left', async () => {
    const dir = await ruleDir({ 'a.yaml': 'old\n' });
    const file = path.join(dir, 'a.yaml');
    await writeFile(file, 'changed by someone else\n');
    const err = await caught(() => writeFileAtomic(file, 'mine\n', Buffer.from('old\n')));
    expect(err.code).toBe(ErrorCode.RulesEditRefused);
    expect(err.message).toMatch(/changed while it was being edited/);
    expect(await read(dir, 'a.yaml')).toBe('changed by someone else\n');
    expect(await readdir(dir)).toEqual(['a.yaml']);
    const created = await caught(() => writeFileAtomic(file, 'mine\n', null));
    expect(created.message).toMatch(/changed while it was being edited/);
  });

  test('writes and replaces', async () => {
    const dir = await ruleDir();
    const file = path.join(dir, 'n.yaml');
    await writeFileAtomic(file, 'one\n', null);
    await writeFileAtomic(file, 'two\n', Buffer.from('one\n'));
    expect(await read(dir, 'n.yaml')).toBe('two\n');
    expect(await readdir(dir)).toEqual(['n.yaml']);
  });
});
