/**
 * One rules location for every command, and a missing one refused at start:
 * `--rules`, `PLANGATE_RULES`, or ./rules; a location that does not exist or
 * holds no rule file is a configuration error (`rules_missing`, exit 1)
 * unless `--rules-optional` / `PLANGATE_RULES_OPTIONAL=true`; rules that
 * exist but do not parse still fail open. The hook answers a refusal
 * instead of exiting with an error, and serve and mcp do not start.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI_CHILD } from '../mcp/support.js';
import { cli, tempDir } from './run.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const EXAMPLES = join(ROOT, 'examples', 'rules');
/** tsx by its file, so a child runs the sources from any working directory. */
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
/** A recorded Claude Code PreToolUse payload of a Write. */
const WRITE = readFileSync(join(ROOT, 'test', 'hook', 'payloads', 'write.json'), 'utf8');

function world(): { dir: string; env: Record<string, string> } {
  const dir = tempDir();
  return { dir, env: { PLANGATE_STORE: join(dir, 'store.db'), PLANGATE_AUDIT: join(dir, 'audit.jsonl') } };
}

function child(args: string[], options: { cwd?: string; env?: Record<string, string>; input?: string } = {}) {
  return spawnSync(process.execPath, ['--import', TSX, CLI_CHILD, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, PLANGATE_RULES: '', PLANGATE_RULES_OPTIONAL: '', ...options.env },
    encoding: 'utf8',
    timeout: 60_000,
    ...(options.input !== undefined ? { input: options.input } : {}),
  });
}

describe('a missing rules location', () => {
  it('refuses decide, say and holds with rules_missing, naming the location and where it came from', async () => {
    const { dir, env } = world();
    const missing = join(dir, 'rulez');
    const decided = await cli(['--rules', missing, 'decide', '--agent', '0xWORKER', '--tool', 'fs.write_file'], env);
    expect(decided.status).toBe(1);
    expect(decided.out).toBe('');
    expect(decided.err).toContain(`the rules location ${missing} does not exist (named by --rules)`);
    expect(decided.err).toContain('--rules-optional');
    const said = await cli(['say', '--thread', 'agent:0xWORKER', '--as', '0xWORKER', '--kind', 'plan', 'x'], { ...env, PLANGATE_RULES: missing });
    expect(said.status).toBe(1);
    expect(said.err).toContain('(named by PLANGATE_RULES)');
    expect((await cli(['holds'], { ...env, PLANGATE_RULES: missing })).status).toBe(1);
  });

  it('refuses a directory that holds no rule file (a test suite alone is not one)', async () => {
    const { dir, env } = world();
    const rules = join(dir, 'rules');
    mkdirSync(rules);
    writeFileSync(join(rules, 'desk.test.yaml'), 'cases: []\n');
    writeFileSync(join(rules, 'notes.txt'), 'x\n');
    const r = await cli(['--rules', rules, 'decide', '--agent', '0xWORKER', '--tool', 'fs.write_file'], env);
    expect(r.status).toBe(1);
    expect(r.err).toContain(`the rules location ${rules} holds no rule file`);
    const checked = await cli(['--rules', rules, 'check', '--json'], env);
    expect(checked.status).toBe(1);
    expect(JSON.parse(checked.out)).toMatchObject({ ok: false, code: 'rules_missing' });
  });

  it('starts failing open only when the operator says so: --rules-optional or PLANGATE_RULES_OPTIONAL=true', async () => {
    const { dir, env } = world();
    const missing = join(dir, 'none');
    for (const [args, extra] of [[['--rules-optional'], {}], [[], { PLANGATE_RULES_OPTIONAL: 'true' }]] as const) {
      const r = await cli(['--rules', missing, ...args, 'decide', '--agent', '0xWORKER', '--tool', 'fs.write_file'], { ...env, ...extra });
      expect(r.status, r.err).toBe(0);
      expect(JSON.parse(r.out)).toMatchObject({ allowed: true, failOpen: { cause: 'policy' } });
    }
    // A value that is neither true nor false allows nothing.
    const typo = await cli(['--rules', missing, 'decide', '--agent', '0xWORKER', '--tool', 'fs.write_file'], { ...env, PLANGATE_RULES_OPTIONAL: 'yes' });
    expect(typo.status).toBe(1);
    expect(typo.err).toContain('PLANGATE_RULES_OPTIONAL must be true or false');
  });

  it('leaves rules that exist but do not parse failing open, loudly, as before', async () => {
    const { dir, env } = world();
    const rules = join(dir, 'rules');
    mkdirSync(rules);
    writeFileSync(join(rules, 'broken.yaml'), 'planRequired: [\n');
    const r = await cli(['--rules', rules, 'decide', '--agent', '0xWORKER', '--tool', 'fs.write_file'], env);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ allowed: true, failOpen: { cause: 'policy' } });
    expect(r.err).toMatch(/broken\.yaml:\d+:\d+/);
  });

  it('plangate hook answers every call with a refusal naming the configuration error, exit 0', () => {
    const { dir, env } = world();
    const r = child(['--rules', join(dir, 'gone'), 'hook', '--agent', '0xWORKER'], { env, input: WRITE });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    expect(out.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(out.hookSpecificOutput.permissionDecisionReason).toContain(`the rules location ${join(dir, 'gone')} does not exist`);
  }, 60_000);

  it('plangate serve and plangate mcp do not start', () => {
    const { dir, env } = world();
    const served = child(['--rules', join(dir, 'gone'), 'serve', '--port', '0'], { env: { ...env, PLANGATE_TOKENS: 'operator=pg_operator_token_for_this_test' } });
    expect(served.status).toBe(1);
    expect(served.stderr).toContain('does not exist (named by --rules)');
    expect(served.stderr).not.toContain('serving');
    const gateway = child(['mcp', '--agent', '0xWORKER', '--', process.execPath, '-e', ''], { env: { ...env, PLANGATE_RULES: join(dir, 'gone') } });
    expect(gateway.status).toBe(1);
    expect(gateway.stderr).toContain('does not exist (named by PLANGATE_RULES)');
  }, 60_000);
});

describe('the rules location', () => {
  it('defaults to ./rules for every command, as plangate status shows', async () => {
    const { dir, env } = world();
    cpSync(EXAMPLES, join(dir, 'rules'), { recursive: true });
    const status = child(['status', '--json'], { cwd: dir, env });
    expect(status.status, status.stderr).toBe(0);
    const report = JSON.parse(status.stdout);
    expect(report.locations.rules).toEqual({ location: join(dir, 'rules'), from: 'default', variable: 'PLANGATE_RULES', default: 'rules' });
    expect(report.locations.store).toMatchObject({ location: join(dir, 'store.db'), from: 'env' });
    expect(report).toMatchObject({ state: 'enforcing', rulesOptional: false });
    const listed = child(['plan-required', 'list'], { cwd: dir, env });
    expect(listed.status, listed.stderr).toBe(0);
    const decided = child(['decide', '--agent', '0xWORKER', '--tool', 'github.merge_pull_request'], { cwd: dir, env });
    expect(decided.status, decided.stderr).toBe(3);
    const missing = child(['status'], { cwd: tempDir(), env });
    expect(missing.status).toBe(1);
    expect(missing.stdout).toMatch(/refused at start: the rules location .* does not exist \(the default, \.\/rules\)/);
  }, 60_000);

  it('plangate diff reads the same location inside each Git revision', () => {
    const { dir, env } = world();
    const git = (...args: string[]) => spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.org', ...args], { cwd: dir, encoding: 'utf8' });
    expect(git('init', '-q').status).toBe(0);
    mkdirSync(join(dir, 'policy-rules'));
    writeFileSync(join(dir, 'policy-rules', 'plan.yaml'), 'planRequired:\n  workspace: { mode: side_effects }\n');
    writeFileSync(join(dir, 'org.yaml'), 'crews: { desk: null }\nagents: { "0xWORKER": desk }\n');
    git('add', '.');
    git('commit', '-qm', 'one');
    writeFileSync(join(dir, 'policy-rules', 'plan.yaml'), 'planRequired:\n  workspace: { mode: "off" }\n');
    git('commit', '-qam', 'two');
    const r = child(['diff', 'HEAD~1', 'HEAD', '--org', 'org.yaml', '--tools', 'fs.write_file', '--format', 'json'], { cwd: dir, env: { ...env, PLANGATE_RULES: 'policy-rules' } });
    expect(r.status, r.stderr).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ changed: true, old: 'HEAD~1:policy-rules', new: 'HEAD:policy-rules' });
  }, 60_000);

  it('plangate --version prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = await cli(['--version']);
    expect(r.status).toBe(0);
    expect(r.out.trim()).toBe(pkg.version);
  });
});

describe('plangate serve --rules-optional', () => {
  it('starts failing open with /health degraded and the reason, plangate_fail_open 1, and enforces once rule files appear', async () => {
    const { dir, env } = world();
    const rules = join(dir, 'rules-later');
    const operator = 'operator-token-for-the-rules-optional-test';
    const server = spawn(process.execPath, ['--import', TSX, CLI_CHILD, '--rules', rules, '--rules-optional', 'serve', '--port', '0'], {
      cwd: ROOT, env: { ...process.env, ...env, PLANGATE_RULES: '', PLANGATE_TOKENS: `operator=${operator}` }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      let err = '';
      server.stderr.on('data', (chunk: Buffer) => { err += chunk.toString(); });
      const until = async <T>(what: string, get: () => Promise<T | undefined> | T | undefined): Promise<T> => {
        for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
          const got = await get();
          if (got !== undefined) return got;
        }
        throw new Error(`timed out waiting for ${what}: ${err}`);
      };
      const url = await until('the service', () => /serving (http:\/\/\S+)/.exec(err)?.[1]);
      const health = async () => (await fetch(`${url}/health`, { headers: { authorization: `Bearer ${operator}` } })).json() as Promise<{ status: string; reasons: string[] }>;
      const degraded = await health();
      expect(degraded.status).toBe('degraded');
      expect(degraded.reasons.join('\n')).toContain(rules);
      expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/^plangate_fail_open 1$/m);
      expect(err).toMatch(/NOT enforced|fail/i);

      cpSync(EXAMPLES, rules, { recursive: true });
      await until('the rules to load', async () => ((await health()).status === 'ok' ? true : undefined));
      expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/^plangate_fail_open 0$/m);
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
  }, 60_000);
});
