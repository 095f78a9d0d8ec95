/**
 * The CLI for operators: failing open (decide/explain go through, check
 * fails loudly), the environment pinning the workspace rule (precedence,
 * refused edits, sources in `list`), crew blueprints (recommendations
 * applied only when asked) and shadow mode end to end.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './run.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'rules');

function workspace() {
  const dir = tempDir();
  const rules = join(dir, 'rules');
  cpSync(EXAMPLES, rules, { recursive: true });
  const env: Record<string, string> = { PLANGATE_RULES: rules, PLANGATE_STORE: join(dir, 'store.db'), PLANGATE_AUDIT: join(dir, 'audit.jsonl') };
  return { dir, rules, env };
}

function auditOf(dir: string): Array<Record<string, unknown>> {
  const file = join(dir, 'audit.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

const MERGE = ['--agent', '0xW', '--tool', 'github.merge_pull_request'];

describe('failing open at the CLI', () => {
  it('decide and explain go through with failOpen (exit 0) and a banner; check fails loudly with file:line:col', async () => {
    const { rules, env, dir } = workspace();
    writeFileSync(join(rules, 'plan-required.yaml'), 'planRequired:\n  workspace: { mode: side_effects\n');

    const decided = await cli(['decide', ...MERGE], env);
    expect(decided.status).toBe(0);
    const d = JSON.parse(decided.out);
    expect(d).toMatchObject({ allowed: true, gated: false });
    expect(d.failOpen.reason).toMatch(/plan-required\.yaml:\d+:\d+: invalid YAML/);
    expect(decided.err).toContain('PLAN-REQUIRED IS NOT ENFORCED');
    expect(decided.err).toMatch(/FAIL-OPEN 0xW → github\.merge_pull_request/);
    expect(auditOf(dir)).toEqual([]);

    const explained = await cli(['explain', ...MERGE], env);
    expect(explained.status).toBe(0);
    expect(explained.out).toContain('ALLOWED (FAIL-OPEN: plan-required is NOT enforced)');
    expect(explained.out).toMatch(/fail-open\s+plan-required is not enforced: plan-required\.yaml:\d+:\d+/);

    const checked = await cli(['check'], env);
    expect(checked.status).toBe(1);
    expect(checked.err).toMatch(/^plan-required\.yaml:\d+:\d+: invalid YAML/m);
  });

  it('a corrupt policy: decide fails open, check names the policy', async () => {
    const { dir, env } = workspace();
    const policy = join(dir, 'policy.wasm');
    writeFileSync(policy, 'not wasm');
    const decided = await cli(['--policy', policy, 'decide', ...MERGE], env);
    expect(decided.status).toBe(0);
    expect(JSON.parse(decided.out).failOpen.reason).toContain('policy.wasm cannot be loaded');
    const checked = await cli(['check', '--json'], { ...env, PLANGATE_POLICY: policy });
    expect(checked.status).toBe(1);
    expect(JSON.parse(checked.out)).toMatchObject({ ok: false, code: 'policy_unavailable' });
    // A held agent stays held without the policy, and explain says so as decide does.
    expect((await cli(['--policy', policy, 'hold', '0xW'], env)).status).toBe(0);
    expect((await cli(['--policy', policy, 'decide', ...MERGE], env)).status).toBe(3);
    const explained = await cli(['--policy', policy, 'explain', ...MERGE], env);
    expect(explained.status).toBe(3);
    expect(explained.out).toContain('REFUSED  0xW → github.merge_pull_request  planning_hold:github.merge_pull_request');
    expect(explained.out).toMatch(/fail-closed\s+the policy is unavailable: .*policy\.wasm cannot be loaded.*a held agent stays held/);
    expect(explained.out).toMatch(/planning hold\s+held \(hold \d+, on demand\)/);
  });
});

describe('the environment pins the workspace rule', () => {
  it('env wins over the file\'s workspace rule, crew and agent rules still win over env, and list says where each value comes from', async () => {
    const { env } = workspace();
    const pinned = { ...env, PLANGATE_WORKSPACE_MODE: 'side_effects', PLANGATE_WORKSPACE_WINDOW_MIN: '10' };
    await cli(['org', 'crew', 'ops'], env);
    await cli(['org', 'crew', 'desk'], env);
    await cli(['org', 'agent', '0xOPS', '--crew', 'ops'], env);
    await cli(['org', 'agent', '0xDESK', '--crew', 'desk'], env);

    // The file says spends_only for the workspace: a merge by 0xOPS (no crew rule) is not gated...
    expect((await cli(['decide', '--agent', '0xOPS', '--tool', 'github.merge_pull_request'], env)).status).toBe(0);
    // ...the environment says side_effects: it is.
    const refused = await cli(['decide', '--agent', '0xOPS', '--tool', 'github.merge_pull_request'], pinned);
    expect(refused.status).toBe(3);
    expect(JSON.parse(refused.out).settings).toMatchObject({
      mode: { value: 'side_effects', scope: 'workspace', source: 'env:PLANGATE_WORKSPACE_MODE' },
      windowMin: { value: 10, scope: 'workspace', source: 'env:PLANGATE_WORKSPACE_WINDOW_MIN' },
    });
    // The desk crew rule (side_effects, window 15) still beats the environment.
    const desk = JSON.parse((await cli(['decide', '--agent', '0xDESK', '--tool', 'github.merge_pull_request'], pinned)).out);
    expect(desk.settings.windowMin).toMatchObject({ value: 15, scope: 'crew', id: 'desk' });

    const list = await cli(['plan-required', 'list'], pinned);
    expect(list.status).toBe(0);
    expect(list.out).toContain('workspace  mode side_effects (env:PLANGATE_WORKSPACE_MODE), window 10 min (env:PLANGATE_WORKSPACE_WINDOW_MIN)');
    expect(list.out).toMatch(/overrides the workspace rule in the files: mode spends_only, window 30 min, acceptUpstream false\s+\(plan-required\.yaml:16:3\)/);
    expect(list.out).toMatch(/crew desk\s+mode side_effects, window 15 min\s+\(plan-required\.yaml:\d+:\d+\)/);

    const asOps = await cli(['plan-required', 'list', '--as', '0xOPS'], pinned);
    expect(asOps.out).toMatch(/mode\s+side_effects\s+from workspace rule, env:PLANGATE_WORKSPACE_MODE/);
    expect(asOps.out).toMatch(/windowMin\s+10\s+from workspace rule, env:PLANGATE_WORKSPACE_WINDOW_MIN/);
  });

  it('refuses runtime edits of the pinned workspace rule, saying why; crew and agent edits still work', async () => {
    const { rules, env } = workspace();
    const pinned = { ...env, PLANGATE_WORKSPACE_MODE: 'off' };
    const before = readFileSync(join(rules, 'plan-required.yaml'), 'utf8');
    for (const args of [['set', '--workspace', '--mode', 'side_effects'], ['clear', '--workspace']]) {
      const r = await cli(['plan-required', ...args], pinned);
      expect(r.status).toBe(1);
      expect(r.err).toContain('the workspace rule is pinned by the environment (PLANGATE_WORKSPACE_MODE=off)');
      expect(r.err).toContain("change the deployment's environment instead");
    }
    expect(readFileSync(join(rules, 'plan-required.yaml'), 'utf8')).toBe(before);
    expect((await cli(['plan-required', 'set', '--crew', 'ops', '--mode', 'spends_only'], pinned)).status).toBe(0);
    expect((await cli(['plan-required', 'set', '--agent', '0xNEW', '--mode', 'off'], pinned)).status).toBe(0);
    expect((await cli(['plan-required', 'set', '--workspace', '--mode', 'side_effects'], env)).status).toBe(0);
  });

  it('an invalid variable: decide fails open naming it, check reports it', async () => {
    const { env } = workspace();
    const bad = { ...env, PLANGATE_WORKSPACE_MODE: 'side_effects', PLANGATE_WORKSPACE_WINDOW_MIN: 'soon' };
    const decided = await cli(['decide', ...MERGE], bad);
    expect(decided.status).toBe(0);
    expect(JSON.parse(decided.out).failOpen.reason).toContain('env:PLANGATE_WORKSPACE_WINDOW_MIN: must be a whole number of minutes');
    const checked = await cli(['check'], bad);
    expect(checked.status).toBe(1);
    expect(checked.err).toContain('env:PLANGATE_WORKSPACE_WINDOW_MIN: must be a whole number of minutes from 1 to 10080 (got "soon")');
    const orphan = await cli(['check'], { ...env, PLANGATE_WORKSPACE_ENFORCE: 'false' });
    expect(orphan.err).toContain('env:PLANGATE_WORKSPACE_ENFORCE: is set but PLANGATE_WORKSPACE_MODE is not');
  });
});

describe('crew blueprints', () => {
  const BLUEPRINT = [
    '# A trading crew',
    'name: trading-desk',
    'description: "Handoff-shaped: the manager plans, the workers execute."',
    'crew:',
    '  parent: desk',
    'agents: [0x10, 0xTRADER]',
    'recommends:',
    '  planRequired:',
    '    mode: side_effects',
    '    windowMin: 15',
    '    acceptUpstream: true',
    '',
  ].join('\n');

  it('apply sets up the crew and prints the recommendation without applying it', async () => {
    const { dir, rules, env } = workspace();
    const file = join(dir, 'trading.yaml');
    writeFileSync(file, BLUEPRINT);
    await cli(['org', 'crew', 'desk'], env);
    const before = readFileSync(join(rules, 'plan-required.yaml'), 'utf8');
    const r = await cli(['blueprint', 'apply', file, '--crew', 'fx'], env);
    expect(r.status).toBe(0);
    expect(r.out).toContain('crew fx (parent desk) from blueprint trading-desk');
    expect(r.out).toContain('agent 0x10 in crew fx');
    expect(r.out).toContain('recommended plan-required for crew fx: mode side_effects, window 15 min, acceptUpstream true  (trading.yaml:8:3)');
    expect(r.out).toContain('NOT applied');
    expect(r.out).toContain('plangate plan-required set --crew fx --mode side_effects --window-min 15 --accept-upstream');
    expect(readFileSync(join(rules, 'plan-required.yaml'), 'utf8')).toBe(before);
    const org = JSON.parse((await cli(['org', 'list', '--json'], env)).out);
    expect(org.crews).toContainEqual({ id: 'fx', parent: 'desk' });
    expect(org.agents).toContainEqual({ id: '0x10', crew: 'fx' });
    const list = await cli(['plan-required', 'list', '--json'], env);
    expect(JSON.parse(list.out).crews.fx).toBeUndefined();
  });

  it('with --apply-recommended-controls it also writes the crew rule', async () => {
    const { dir, env } = workspace();
    const file = join(dir, 'trading.yaml');
    writeFileSync(file, BLUEPRINT);
    await cli(['org', 'crew', 'desk'], env);
    const r = await cli(['blueprint', 'apply', file, '--crew', 'fx', '--apply-recommended-controls'], env);
    expect(r.status).toBe(0);
    expect(r.out).toContain('applied: the crew rule for fx in plan-required.yaml');
    const list = JSON.parse((await cli(['plan-required', 'list', '--json'], env)).out);
    expect(list.crews.fx).toMatchObject({ mode: 'side_effects', windowMin: 15, acceptUpstream: true });
    const decided = await cli(['decide', '--agent', '0xTRADER', '--tool', 'github.get_pull_request'], env);
    expect(JSON.parse(decided.out).settings.mode).toMatchObject({ value: 'side_effects', scope: 'crew', id: 'fx' });
    const again = await cli(['blueprint', 'apply', file, '--crew', 'fx', '--apply-recommended-controls'], env);
    expect(again.out).toContain('already in force');
  });

  it('a refused rule edit leaves no crew behind: the controls go in before the crew and its agents', async () => {
    const { dir, rules, env } = workspace();
    const file = join(dir, 'trading.yaml');
    writeFileSync(file, BLUEPRINT);
    await cli(['org', 'crew', 'desk'], env);
    // A rule for fx that an alias reuses: editing it would change lab's too, so the edit is refused.
    writeFileSync(join(rules, 'aliased.yaml'), 'planRequired:\n  crews:\n    fx: &r { mode: off }\n    lab: *r\n');
    const r = await cli(['blueprint', 'apply', file, '--crew', 'fx', '--apply-recommended-controls'], env);
    expect(r.status).not.toBe(0);
    expect(r.err).toMatch(/alias/);
    const list = JSON.parse((await cli(['org', 'list', '--json'], env)).out) as { crews: Array<{ id: string }>; agents: Array<{ id: string }> };
    expect(list.crews.map((c) => c.id)).toEqual(['desk']);
    expect(list.agents.map((a) => a.id)).not.toContain('0xTRADER');
  });

  it('an invalid blueprint is refused with file:line:col', async () => {
    const { dir, env } = workspace();
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'name: x\nrecommends:\n  planRequired: { mode: always }\nagents: [ok, "bad id"]\n');
    const r = await cli(['blueprint', 'apply', file, '--crew', 'fx'], env);
    expect(r.status).toBe(1);
    expect(r.err).toMatch(/bad\.yaml:3:\d+: recommends\.planRequired\.mode: must be one of off, spends_only, side_effects/);
    expect(r.err).toMatch(/bad\.yaml:4:\d+: agents\[1\]: must match/);
  });

  it('a blueprint that is a FIFO or too large is refused unread, without hanging', async () => {
    const { dir, env } = workspace();
    const fifo = join(dir, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    const big = join(dir, 'big.yaml');
    writeFileSync(big, `name: x\n#${'x'.repeat(1024 * 1024)}\n`);
    const piped = await cli(['blueprint', 'apply', fifo, '--crew', 'fx'], env);
    expect([piped.status, piped.err]).toEqual([1, expect.stringMatching(/fifo\.yaml: cannot read the blueprint: not a regular file \(a FIFO\)/)]);
    const large = await cli(['blueprint', 'apply', big, '--crew', 'fx'], env);
    expect([large.status, large.err]).toEqual([1, expect.stringMatching(/big\.yaml: cannot read the blueprint: file is too large/)]);
  });
});

describe('shadow mode end to end', () => {
  it('a rule with enforce: false lets the would-be refusal through, audited with shadow: true and counted', async () => {
    const { dir, env } = workspace();
    await cli(['org', 'crew', 'desk'], env);
    await cli(['org', 'agent', '0xW', '--crew', 'desk'], env);
    const set = await cli(['plan-required', 'set', '--crew', 'desk', '--mode', 'side_effects', '--shadow'], env);
    expect(set.status).toBe(0);
    expect((await cli(['plan-required', 'list'], env)).out).toMatch(/crew desk\s+mode side_effects, enforce false \(shadow\)/);

    const decided = await cli(['decide', ...MERGE], env);
    expect(decided.status).toBe(0);
    const d = JSON.parse(decided.out);
    expect(d).toMatchObject({ allowed: true, gated: true, shadow: true, code: 'plan_required:github.merge_pull_request:none', reason: 'none' });
    expect(d.settings.enforce).toMatchObject({ value: false, scope: 'crew', id: 'desk' });
    expect(auditOf(dir)).toEqual([
      expect.objectContaining({ type: 'PlanRequiredBlocked', agent: '0xW', code: 'plan_required:github.merge_pull_request:none', shadow: true }),
    ]);

    const explained = await cli(['explain', ...MERGE], env);
    expect(explained.status).toBe(0);
    expect(explained.out).toContain('ALLOWED (SHADOW: would be refused)');
    expect(explained.out).toMatch(/enforce\s+no \(shadow mode/);

    // Turning it on: the same call is refused.
    await cli(['plan-required', 'set', '--crew', 'desk', '--mode', 'side_effects'], env);
    expect((await cli(['decide', ...MERGE], env)).status).toBe(3);
    const audit = auditOf(dir);
    expect(audit).toHaveLength(2);
    expect(audit[1]?.['shadow']).toBeUndefined();
  });
});
