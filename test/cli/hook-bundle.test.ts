/**
 * The hook's bundle (scripts/build-hook-bundle.mjs, chosen by
 * src/adapters/cli/hook-bundle.ts): bin/plangate.js runs it for `plangate
 * hook` only while every file it was made of is unchanged, and it answers
 * every hook command line exactly as the modules do.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookBundle } from '../../src/adapters/cli/hook-bundle.js';
import { makeWorld } from '../mcp/support.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const RECORDER = resolve(ROOT, 'test', 'hook', 'support', 'record-modules.mjs');

describe('choosing the bundle', () => {
  /** A bundle folder (hook/) with one input beside it, both dated a minute back, as the build lists them. */
  function folder(): { dir: string; input: string; out: string } {
    const root = mkdtempSync(join(os.tmpdir(), 'plangate-hook-bundle-'));
    const hook = join(root, 'hook');
    mkdirSync(hook);
    const input = join(root, 'module.js');
    const out = join(hook, 'hook.js');
    writeFileSync(input, 'export const a = 1;\n');
    writeFileSync(out, 'export const main = () => 0;\n');
    const listed = (path: string) => {
      const minuteBack = Date.now() / 1000 - 60;
      utimesSync(path, minuteBack, minuteBack);
      const s = statSync(path);
      return [relative(hook, path), s.size, s.mtimeMs, createHash('sha256').update(readFileSync(path)).digest('hex')];
    };
    writeFileSync(join(hook, 'inputs.json'), JSON.stringify({ entry: 'hook.js', inputs: [listed(input)], outputs: [listed(out)] }));
    return { dir: hook, input, out };
  }

  it('is the bundle for a hook command line while every file is as built', () => {
    const { dir } = folder();
    expect(hookBundle(['hook', '--agent', '0xW'], dir)).toBe(pathToFileURL(join(dir, 'hook.js')).href);
    expect(hookBundle(['--rules', 'r', '--store=s.db', 'hook'], dir)).toBe(pathToFileURL(join(dir, 'hook.js')).href);
  });

  it('is none for another command, help or an unknown option first', () => {
    const { dir } = folder();
    for (const argv of [['decide', '--agent', '0xW'], [], ['--help', 'hook'], ['--verbose', 'hook']]) expect(hookBundle(argv, dir), argv.join(' ')).toBeUndefined();
  });

  it('is still the bundle once a file is rewritten with the same bytes (a tsc that changed nothing, an install)', () => {
    const f = folder();
    writeFileSync(f.input, 'export const a = 1;\n');
    writeFileSync(f.out, readFileSync(f.out));
    expect(hookBundle(['hook'], f.dir)).toBe(pathToFileURL(join(f.dir, 'hook.js')).href);
  });

  it('is none once an input is rewritten, resized or removed, or the bundle lost a file', () => {
    let f = folder();
    writeFileSync(f.input, 'export const a = 2;\n'); // the same size, other bytes, written after the build
    expect(hookBundle(['hook'], f.dir)).toBeUndefined();
    f = folder();
    writeFileSync(f.input, 'export const a = 22;\n');
    utimesSync(f.input, 0, 0); // older than the build, but of another size
    expect(hookBundle(['hook'], f.dir)).toBeUndefined();
    f = folder();
    rmSync(f.input);
    expect(hookBundle(['hook'], f.dir)).toBeUndefined();
    f = folder();
    rmSync(f.out);
    expect(hookBundle(['hook'], f.dir)).toBeUndefined();
  });

  it('is none without a readable list (never built, or damaged)', () => {
    const f = folder();
    writeFileSync(join(f.dir, 'inputs.json'), '{"entry":');
    expect(hookBundle(['hook'], f.dir)).toBeUndefined();
    expect(hookBundle(['hook'], join(f.dir, '..', 'nowhere'))).toBeUndefined();
    expect(hookBundle(['hook'])).toBeUndefined(); // from src/: there is no src/hook/
  });
});

describe('the bundle built from dist/', () => {
  // Inside the package, as dist/hook/ is: the dependencies left outside are found from there.
  const out = mkdtempSync(join(ROOT, 'dist', 'hook-test-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));
  const w = makeWorld('planRequired:\n  workspace: { mode: side_effects, windowMin: 10 }\ntools:\n  read: [Read]\n');
  const home = mkdtempSync(join(os.tmpdir(), 'plangate-hook-bundle-home-'));

  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist', 'adapters', 'cli', 'hook-main.js'))) throw new Error('the bundle is made from dist/: npm run build first');
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-hook-bundle.mjs'), '--out', out], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  }, 60_000);

  /** One hook process through `entry` (a module exporting main): its status, stdout and stderr. */
  function run(entry: string, argv: string[], stdin: string, record?: string) {
    const code = `const { main } = await import(${JSON.stringify(entry)}); process.exitCode = await main(${JSON.stringify(argv)});`;
    const r = spawnSync(process.execPath, [...(record ? ['--import', RECORDER] : []), '--input-type=module', '-e', code], {
      input: stdin, encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: home, ...(record ? { RECORD_MODULES: record } : {}) },
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  const call = (tool: string, input: object) => JSON.stringify({ session_id: 's', transcript_path: '/tmp/t', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: 't' });
  const paths = ['--rules', w.rules, '--store', w.store, '--audit', w.audit];
  const cases: Array<[string, string[], string]> = [
    ['a refused Write', [...paths, 'hook', '--agent', '0xWORKER', '--format', 'claude-code'], call('Write', { file_path: '/tmp/x', content: 'hi' })],
    ['an allowed Read', [...paths, 'hook', '--agent', '0xWORKER', '--format', 'claude-code'], call('Read', { file_path: '/tmp/x' })],
    ['a payload that is not JSON', [...paths, 'hook', '--agent', '0xWORKER', '--format', 'claude-code'], '{'],
    ['no --agent', [...paths, 'hook', '--format', 'claude-code'], call('Read', { file_path: '/tmp/x' })],
    ['a seat that is no id', [...paths, 'hook', '--agent', 'not a seat', '--format', 'claude-code'], call('Read', { file_path: '/tmp/x' })],
    ['an unknown host', [...paths, 'hook', '--agent', '0xWORKER', '--format', 'nohost'], call('Read', { file_path: '/tmp/x' })],
    ['rules that do not exist', ['--rules', join(w.root, 'none'), '--store', w.store, '--audit', w.audit, 'hook', '--agent', '0xWORKER', '--format', 'claude-code'], call('Read', { file_path: '/tmp/x' })],
  ];

  it.each(cases)('answers %s as the modules do', (_name, argv, stdin) => {
    const modules = run(pathToFileURL(join(ROOT, 'dist', 'adapters', 'cli', 'main.js')).href, argv, stdin);
    const bundled = run(pathToFileURL(join(out, 'hook.js')).href, argv, stdin);
    expect(bundled).toEqual(modules);
  }, 60_000);

  it('loads none of plangate\'s own modules but its own files, and better-sqlite3 from node_modules', () => {
    const record = join(home, 'modules.txt');
    const r = run(pathToFileURL(join(out, 'hook.js')).href, cases[0]![1], cases[0]![2], record);
    expect(r.stdout).toContain('"permissionDecision":"deny"');
    const urls = readFileSync(record, 'utf8').split('\n');
    expect(urls.filter((u) => u.startsWith(pathToFileURL(join(ROOT, 'dist')).href) && !u.startsWith(pathToFileURL(out).href))).toEqual([]);
    expect(urls.filter((u) => /node_modules\/(commander|@open-policy-agent)\//.test(u))).toEqual([]);
    expect(urls.filter((u) => u.includes('node_modules/better-sqlite3/')).length).toBeGreaterThan(0);
  }, 60_000);
});
