/**
 * Node's compile cache for the `plangate` command (src/adapters/cli/compile-cache.ts):
 * on in plangate's private cache folder, off where that folder is not
 * private or Node's own switches say so. Each case runs in a child process,
 * as the command's start does.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const MODULE = resolve(import.meta.dirname, '..', '..', 'src', 'adapters', 'cli', 'compile-cache.ts');

/** Whether the child turned the cache on, and what it then compiled into the folder. */
function start(env: NodeJS.ProcessEnv): { enabled: boolean } {
  const code = `const { enablePrivateCompileCache } = await import(${JSON.stringify(MODULE)}); const on = enablePrivateCompileCache(process.env); await import('yaml'); console.log(on);`;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('NODE_COMPILE_CACHE') && k !== 'NODE_DISABLE_COMPILE_CACHE'));
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { encoding: 'utf8', env: { ...clean, ...env }, cwd: resolve(import.meta.dirname, '..', '..') });
  expect(r.status, r.stderr).toBe(0);
  return { enabled: r.stdout.trim() === 'true' };
}

describe('the compile cache', () => {
  it('is on in the private cache folder, and Node writes its entries there', () => {
    const home = mkdtempSync(join(os.tmpdir(), 'plangate-compile-cache-'));
    expect(start({ XDG_CACHE_HOME: home }).enabled).toBe(true);
    expect(readdirSync(join(home, 'plangate', 'node-compile-cache')).length).toBeGreaterThan(0);
  }, 30_000);

  it('is off with NODE_DISABLE_COMPILE_CACHE, and where the folder is not private', () => {
    const home = mkdtempSync(join(os.tmpdir(), 'plangate-compile-cache-'));
    expect(start({ XDG_CACHE_HOME: home, NODE_DISABLE_COMPILE_CACHE: '1' }).enabled).toBe(false);
    mkdirSync(join(home, 'plangate', 'node-compile-cache'), { recursive: true });
    chmodSync(join(home, 'plangate', 'node-compile-cache'), 0o777);
    expect(start({ XDG_CACHE_HOME: home }).enabled).toBe(false);
    expect(readdirSync(join(home, 'plangate', 'node-compile-cache'))).toEqual([]);
  }, 30_000);
});
