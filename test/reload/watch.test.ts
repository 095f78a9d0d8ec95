/**
 * Hot reload with real file-system events in temporary directories (no
 * mocked watcher): files added, changed and removed; editors' atomic saves;
 * a Kubernetes ConfigMap `..data` swap; a burst of writes and a file written
 * in pieces; an invalid edit followed by a fix; a directory that disappears
 * and comes back.
 */
import { mkdirSync, openSync, closeSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Plangate } from '../../src/main/open.js';
import { atomicWrite, open, pause, rulesText, settingsOf, tempRoot, until } from './support.js';

const WATCH = { debounceMs: 40, rescanMs: 60_000 };

let opened: Plangate[] = [];
afterEach(async () => {
  await Promise.all(opened.map((pg) => pg.close()));
  opened = [];
});

async function watched(rules: string) {
  const o = await open({ rules, watch: WATCH });
  opened.push(o.pg);
  return o;
}

function rulesDir(): string {
  const dir = join(tempRoot(), 'rules');
  mkdirSync(dir);
  writeFileSync(join(dir, 'workspace.yaml'), rulesText('mode: spends_only, windowMin: 30'));
  return dir;
}

describe('hot reload', () => {
  it('picks up a rule file added, changed and removed', async () => {
    const dir = rulesDir();
    const { pg } = await watched(dir);
    expect(await settingsOf(pg)).toBe('spends_only/30');

    writeFileSync(join(dir, 'desk.yaml'), 'planRequired:\n  crews:\n    desk: { mode: side_effects, windowMin: 15 }\n');
    await until('the added crew rule', async () => (await settingsOf(pg)) === 'side_effects/15');

    writeFileSync(join(dir, 'desk.yaml'), 'planRequired:\n  crews:\n    desk: { mode: side_effects, windowMin: 7 }\n');
    await until('the changed crew rule', async () => (await settingsOf(pg)) === 'side_effects/7');

    unlinkSync(join(dir, 'desk.yaml'));
    await until('the workspace rule again', async () => (await settingsOf(pg)) === 'spends_only/30');

    const status = pg.status();
    expect(status).toMatchObject({ state: 'ok', enforcing: true, reloadErrors: 0, watching: true });
    expect(status.reloads).toBeGreaterThanOrEqual(3);
    expect(status.rules.files).toEqual(['workspace.yaml']);
  });

  it('takes an editor\'s atomic save (temp file, rename over) as one change', async () => {
    const dir = rulesDir();
    const { pg, logs } = await watched(dir);
    const before = pg.status().reloads;

    atomicWrite(join(dir, 'workspace.yaml'), rulesText('mode: side_effects, windowMin: 12'));
    await until('the saved rule', async () => (await settingsOf(pg)) === 'side_effects/12');
    await pause(150);
    expect(pg.status().reloads).toBe(before + 1);
    expect(pg.status().reloadErrors).toBe(0);
    expect(logs.filter((l) => l.includes('reloaded'))).toHaveLength(1);

    // vim-style: move the original to a backup name, write the new file, remove the backup.
    renameSync(join(dir, 'workspace.yaml'), join(dir, 'workspace.yaml~'));
    writeFileSync(join(dir, 'workspace.yaml'), rulesText('mode: side_effects, windowMin: 13'));
    unlinkSync(join(dir, 'workspace.yaml~'));
    await until('the vim-style save', async () => (await settingsOf(pg)) === 'side_effects/13');
    expect(pg.status().reloadErrors).toBe(0);
  });

  it('follows a Kubernetes ConfigMap mount whose ..data symlink is swapped', async () => {
    const dir = join(tempRoot(), 'rules');
    mkdirSync(dir);
    // kubelet's AtomicWriter layout: ..<ts>/ holds the files, ..data → ..<ts>, each key → ..data/<key>.
    const version = (n: number, text: string): void => {
      mkdirSync(join(dir, `..2026_11_30_v${n}`));
      writeFileSync(join(dir, `..2026_11_30_v${n}`, 'rules.yaml'), text);
    };
    version(1, rulesText('mode: spends_only, windowMin: 30'));
    symlinkSync('..2026_11_30_v1', join(dir, '..data'));
    symlinkSync('..data/rules.yaml', join(dir, 'rules.yaml'));
    const { pg } = await watched(dir);
    expect(await settingsOf(pg)).toBe('spends_only/30');

    for (const [n, window] of [[2, 20], [3, 25]] as const) {
      version(n, rulesText(`mode: side_effects, windowMin: ${window}`));
      symlinkSync(`..2026_11_30_v${n}`, join(dir, '..data_tmp'));
      renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
      rmSync(join(dir, `..2026_11_30_v${n - 1}`), { recursive: true });
      await until(`ConfigMap version ${n}`, async () => (await settingsOf(pg)) === `side_effects/${window}`);
    }
    expect(pg.status()).toMatchObject({ state: 'ok', reloadErrors: 0 });
    expect(pg.status().rules.files).toEqual(['rules.yaml']);
  });

  it('debounces a burst of 50 writes and never loads a half-written file', async () => {
    const dir = rulesDir();
    const { pg } = await watched(dir);
    const file = join(dir, 'workspace.yaml');
    for (let i = 1; i <= 50; i++) {
      writeFileSync(file, rulesText(`mode: side_effects, windowMin: ${i}`));
      if (i % 10 === 0) await pause(5);
    }
    await until('the last of 50 writes', async () => (await settingsOf(pg)) === 'side_effects/50');
    await pause(150);
    const afterBurst = pg.status();
    expect(afterBurst.reloadErrors).toBe(0);
    expect(afterBurst.reloads).toBeLessThan(10);
    expect(await settingsOf(pg)).toBe('side_effects/50');

    // A file written in two pieces: the first half alone is invalid YAML, so
    // loading it would count a reload error.
    const text = rulesText('mode: spends_only, windowMin: 44');
    const cut = text.indexOf('windowMin');
    const fd = openSync(file, 'w');
    writeSync(fd, text.slice(0, cut));
    await pause(15);
    writeSync(fd, text.slice(cut));
    closeSync(fd);
    await until('the file written in pieces', async () => (await settingsOf(pg)) === 'spends_only/44');
    expect(pg.status().reloadErrors).toBe(0);
  });

  it('keeps the last good rules on an invalid edit, reports it once with file:line:col, and recovers on the fix', async () => {
    const dir = rulesDir();
    const { pg, logs } = await watched(dir);
    const good = pg.status().rules;

    writeFileSync(join(dir, 'workspace.yaml'), 'planRequired:\n  workspace:\n    mode: sometimes\n');
    const failed = await until('the reload error', () => pg.status().lastReloadError);
    expect(failed.message).toMatch(/^workspace\.yaml:3:11: planRequired\.workspace\.mode: must be one of/);
    expect(failed.problems[0]).toMatchObject({ file: 'workspace.yaml', line: 3, col: 11 });
    const status = pg.status();
    expect(status).toMatchObject({ state: 'degraded', enforcing: true, reloadErrors: 1 });
    expect(status.rules.revision).toBe(good.revision);
    expect(await settingsOf(pg)).toBe('spends_only/30');

    // The same bad content again (a touch, a rescan): not logged or counted again.
    writeFileSync(join(dir, 'workspace.yaml'), 'planRequired:\n  workspace:\n    mode: sometimes\n');
    await pg.reload();
    await pause(150);
    expect(pg.status().reloadErrors).toBe(1);
    const errorLogs = logs.filter((l) => l.includes('reload failed'));
    expect(errorLogs).toHaveLength(1);
    expect(errorLogs[0]).toContain('workspace.yaml:3:11');

    writeFileSync(join(dir, 'workspace.yaml'), rulesText('mode: side_effects, windowMin: 9'));
    await until('the fix', async () => (await settingsOf(pg)) === 'side_effects/9');
    expect(pg.status()).toMatchObject({ state: 'ok', enforcing: true, reloadErrors: 1 });
    expect(pg.status().lastReloadError).toBeUndefined();
  });

  it('re-arms when the rules directory is removed and created again', async () => {
    const dir = rulesDir();
    const { pg } = await watched(dir);
    rmSync(dir, { recursive: true });
    await until('the error for the missing directory', () => pg.status().lastReloadError);
    expect(pg.status().enforcing).toBe(true);
    expect(await settingsOf(pg)).toBe('spends_only/30');

    mkdirSync(dir);
    writeFileSync(join(dir, 'workspace.yaml'), rulesText('mode: side_effects, windowMin: 5'));
    await until('the recreated directory', async () => (await settingsOf(pg)) === 'side_effects/5', 8000);
    expect(pg.status().state).toBe('ok');
  });
});
