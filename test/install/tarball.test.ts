/**
 * The package installs as a user installs it: `npm pack` (which builds),
 * then `npm install -g ./plangate-<version>.tgz` into an empty prefix, then
 * the installed `plangate` runs from another directory: `--version`,
 * `check` and one decision on the SQLite store.
 *
 * better-sqlite3 is the one dependency with a native build. Compiling it
 * takes minutes, so by default the install skips install scripts and the
 * package gets this checkout's build of the same better-sqlite3 version
 * (same Node ABI); `PLANGATE_TEST_NATIVE_BUILD=true` builds it from source
 * as a user's install does (npm_config_nodedir names the Node headers when
 * nodejs.org cannot be reached).
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const NATIVE_BUILD = process.env['PLANGATE_TEST_NATIVE_BUILD'] === 'true';
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 15 * 60_000 });
  if (r.error) throw r.error;
  return r;
}

const version = (file: string): string => (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;

describe('the clone', () => {
  it('runs the command through npx, and through npm link into a prefix of its own', () => {
    const viaNpx = run(NPM, ['exec', '--offline', '--', 'plangate', '--version'], ROOT);
    expect(viaNpx.status, viaNpx.stderr).toBe(0);
    expect(viaNpx.stdout.trim()).toBe(version(join(ROOT, 'package.json')));
    const prefix = mkdtempSync(join(tmpdir(), 'plangate-link-'));
    const linked = run(NPM, ['link', '--ignore-scripts', '--no-audit', '--no-fund'], ROOT, { ...process.env, npm_config_prefix: prefix });
    expect(linked.status, linked.stderr).toBe(0);
    const v = run(join(prefix, 'bin', 'plangate'), ['--version'], prefix);
    expect(v.status, v.stderr).toBe(0);
    expect(v.stdout.trim()).toBe(version(join(ROOT, 'package.json')));
  }, 120_000);
});

describe('the packed tarball', () => {
  it('installs into an empty prefix and runs --version, check and a decision', () => {
    const work = mkdtempSync(join(tmpdir(), 'plangate-install-'));
    const packed = run(NPM, ['pack', '--pack-destination', work, '--silent'], ROOT);
    expect(packed.status, packed.stderr).toBe(0);
    const tarball = join(work, readdirSync(work).find((f) => f.endsWith('.tgz')) as string);
    expect(tarball).toMatch(new RegExp(`plangate-${version(join(ROOT, 'package.json')).replaceAll('.', '\\.')}\\.tgz$`));

    const prefix = join(work, 'prefix');
    const args = ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', ...(NATIVE_BUILD ? [] : ['--ignore-scripts']), tarball];
    const installed = run(NPM, args, work);
    expect(installed.status, installed.stderr).toBe(0);
    const pkg = join(prefix, 'lib', 'node_modules', 'plangate');
    if (!NATIVE_BUILD) {
      const ours = join(ROOT, 'node_modules', 'better-sqlite3');
      const theirs = join(pkg, 'node_modules', 'better-sqlite3');
      expect(version(join(theirs, 'package.json')), 'the same better-sqlite3 as this checkout').toBe(version(join(ours, 'package.json')));
      cpSync(join(ours, 'build', 'Release', 'better_sqlite3.node'), join(theirs, 'build', 'Release', 'better_sqlite3.node'));
    }

    // The installed command, from a directory of its own: no source tree, no dev dependencies.
    const project = join(work, 'project');
    cpSync(join(pkg, 'examples', 'rules'), join(project, 'rules'), { recursive: true });
    const env = { ...process.env, PATH: `${join(prefix, 'bin')}${delimiter}${process.env['PATH'] ?? ''}`, PLANGATE_RULES: '', PLANGATE_STORE: '', PLANGATE_AUDIT: '', PLANGATE_POLICY: '' };
    const plangate = (...a: string[]) => run('plangate', a, project, env);

    const v = plangate('--version');
    expect(v.status, v.stderr).toBe(0);
    expect(v.stdout.trim()).toBe(version(join(ROOT, 'package.json')));
    const checked = plangate('check');
    expect(checked.status, checked.stderr).toBe(0);
    expect(checked.stdout).toMatch(/^ok: \d+ rule file\(s\) in .*rules/);
    const refused = plangate('decide', '--agent', '0xWORKER', '--tool', 'github.merge_pull_request');
    expect(refused.status, refused.stderr).toBe(3);
    expect(JSON.parse(refused.stdout)).toMatchObject({ allowed: false, code: 'plan_required:github.merge_pull_request:none' });
    const said = plangate('say', '--thread', 'agent:0xWORKER', '--as', '0xWORKER', '--kind', 'plan', 'merge PR 12 once CI is green');
    expect(said.status, said.stderr).toBe(0);
    const allowed = plangate('decide', '--agent', '0xWORKER', '--tool', 'github.merge_pull_request');
    expect(allowed.status, allowed.stderr).toBe(0);
    expect(readdirSync(join(project, '.data'))).toContain('plangate.db');
  }, 20 * 60_000);
});
