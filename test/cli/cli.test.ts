import { cpSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './run.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'rules');

function workspace() {
  const dir = tempDir();
  const rules = join(dir, 'rules');
  cpSync(EXAMPLES, rules, { recursive: true });
  const env = { PLANGATE_RULES: rules, PLANGATE_STORE: join(dir, 'store.db'), PLANGATE_AUDIT: join(dir, 'audit.jsonl') };
  return { dir, rules, env };
}

describe('plangate CLI', () => {
  it('check: exit 0 on the examples, exit 1 with file:line:col for every problem', async () => {
    const ok = await cli(['check', EXAMPLES]);
    expect(ok.status).toBe(0);
    expect(ok.out).toMatch(/^ok: 4 rule file\(s\)/);

    const { rules } = workspace();
    writeFileSync(join(rules, 'bad.yaml'), 'planRequired:\n  crews:\n    ops: { mode: sometimes }\n    qa: { mode: off, windowMin: -5 }\n');
    const bad = await cli(['check', rules]);
    expect(bad.status).toBe(1);
    const lines = bad.err.trim().split('\n');
    expect(lines.filter((l) => /bad\.yaml:\d+:\d+: /.test(l)).length).toBeGreaterThanOrEqual(2);
    expect(bad.err).toMatch(/bad\.yaml:3:\d+: .*sometimes/);
    expect(bad.err).toMatch(/bad\.yaml:4:\d+: .*-5/);

    const asJson = await cli(['check', rules, '--json']);
    expect(asJson.status).toBe(1);
    expect(JSON.parse(asJson.out).problems.length).toBeGreaterThanOrEqual(2);
  });

  it('check: warns, and still exits 0, about a read spec whose range lists an offset', async () => {
    const clean = await cli(['check', EXAMPLES, '--json']);
    expect(JSON.parse(clean.out).warnings).toEqual([]);

    const { rules } = workspace();
    writeFileSync(join(rules, 'reads.yaml'), 'readGuard:\n  tools:\n    fs.read_at: { path: path, range: [offset, limit] }\n    fs.head: { path: path, range: [count, max_lines] }\n');
    const warned = await cli(['check', rules]);
    expect(warned.status).toBe(0);
    expect(warned.out).toMatch(/^ok: /);
    const lines = warned.err.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^warning: .*reads\.yaml:3:\d+: readGuard\.tools\["fs\.read_at"\]: range lists "offset", .* list it under skip/);

    const asJson = JSON.parse((await cli(['check', rules, '--json'])).out);
    expect(asJson.ok).toBe(true);
    expect(asJson.warnings).toHaveLength(1);
    expect(asJson.warnings[0]).toMatchObject({ line: 3, message: expect.stringContaining('"offset"') });
  });

  it('check: the warning reads argument names by their words, and says what to do when the offset is under skip too', async () => {
    const { rules } = workspace();
    writeFileSync(join(rules, 'reads.yaml'), 'readGuard:\n  tools:\n    a.read: { path: p, range: [startLine, count] }\n    b.read: { path: p, range: [byte_offset], skip: [byte_offset] }\n    c.read: { path: p, range: [offsets_seen, limit] }\n');
    const warnings = JSON.parse((await cli(['check', rules, '--json'])).out).warnings as Array<{ message: string }>;
    expect(warnings.map((w) => /tools\["(\w)\.read"\]: range lists "(\w+)"/.exec(w.message)?.slice(1).join(' '))).toEqual(['a startLine', 'b byte_offset']);
    expect(warnings[0]!.message).toMatch(/list it under skip instead/);
    expect(warnings[1]!.message).toMatch(/remove it from range \(it is also under skip, and range wins\)/);
  });

  it('check: warns about a reviewer channel the rules classify as an effect, which would open it to every seat without a plan', async () => {
    const { rules } = workspace();
    writeFileSync(join(rules, 'channel.yaml'), 'planningGate:\n  profiles:\n    loose: { reviewerChannel: Bash }\n    fine: { reviewerChannel: review.send }\ntools:\n  effect: [Bash]\n  say: [review.send]\n');
    const warned = await cli(['check', rules, '--json']);
    expect(warned.status).toBe(0);
    const warnings = JSON.parse(warned.out).warnings as Array<{ message: string }>;
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/^planningGate\.profiles\.loose\.reviewerChannel names "Bash", which the rules classify as effect: .*without a plan/);
  });

  it('decide: exit 3 with the refusal as JSON, exit 0 once the agent has planned; refusals are audited', async () => {
    const { env, dir } = workspace();
    expect((await cli(['org', 'crew', 'desk'], env)).status).toBe(0);
    expect((await cli(['org', 'crew', 'trading', '--parent', 'desk'], env)).status).toBe(0);
    expect((await cli(['org', 'agent', '0xW', '--crew', 'trading'], env)).status).toBe(0);

    const refused = await cli(['decide', '--agent', '0xW', '--tool', 'github.merge_pull_request'], env);
    expect(refused.status).toBe(3);
    expect(JSON.parse(refused.out)).toMatchObject({ allowed: false, code: 'plan_required:github.merge_pull_request:none' });

    const said = await cli(['say', '--thread', 'crew:desk', '--as', '0xW', '--kind', 'plan', 'merge PR 5 once CI is green'], env);
    expect(said.status).toBe(0);
    const allowed = await cli(['decide', '--agent', '0xW', '--tool', 'github.merge_pull_request'], env);
    expect(allowed.status).toBe(0);
    expect(JSON.parse(allowed.out).plan.id).toBe(JSON.parse(said.out).id);

    const audit = readFileSync(join(dir, 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ type: 'PlanRequiredBlocked', agent: '0xW', crew: 'trading', code: 'plan_required:github.merge_pull_request:none' });
    expect(readFileSync(join(dir, 'audit.jsonl'), 'utf8')).not.toContain('merge PR 5');
  });

  it('explain: says why, with the scope of each setting, and audits nothing', async () => {
    const { env, dir } = workspace();
    await cli(['org', 'crew', 'desk'], env);
    await cli(['org', 'agent', '0xW', '--crew', 'desk'], env);
    await cli(['say', '--thread', 'agent:0xW', '--as', '0xW', '--kind', 'note', 'about to merge'], env);
    const r = await cli(['explain', '--agent', '0xW', '--tool', 'github.merge_pull_request'], env);
    expect(r.status).toBe(3);
    expect(r.out).toContain('REFUSED');
    expect(r.out).toMatch(/mode\s+side_effects\s+— crew rule for desk \(plan-required\.yaml:\d+:\d+\)/);
    expect(r.out).toMatch(/note by 0xW in agent:0xW.*not a plan/);
    expect(existsSync(join(dir, 'audit.jsonl')) ? readFileSync(join(dir, 'audit.jsonl'), 'utf8') : '').toBe('');
  });

  it('say --at and decide --at: a plan posted later does not count earlier', async () => {
    const { env } = workspace();
    await cli(['say', '--thread', 'org', '--as', '0xZ', '--kind', 'plan', '--at', '2026-01-01T10:00:00Z', 'pay'], env);
    const before = await cli(['decide', '--agent', '0xZ', '--tool', 'wallet.propose_spend', '--at', '2026-01-01T09:59:00Z'], env);
    expect(before.status).toBe(3);
    const after = await cli(['decide', '--agent', '0xZ', '--tool', 'wallet.propose_spend', '--at', '2026-01-01T10:05:00Z'], env);
    expect(after.status).toBe(0);
  });

  it('plan-required set/clear edit the files in place, and list --as shows where each setting comes from', async () => {
    const { env, rules } = workspace();
    await cli(['org', 'crew', 'desk'], env);
    await cli(['org', 'agent', '0xN', '--crew', 'desk'], env);
    const before = readFileSync(join(rules, 'seats.yaml'), 'utf8');

    expect((await cli(['plan-required', 'set', '--agent', '0xN', '--mode', 'off'], env)).status).toBe(0);
    const after = readFileSync(join(rules, 'seats.yaml'), 'utf8');
    expect(after).toContain('0xN');
    expect(after.startsWith(before.split('\n').slice(0, 5).join('\n'))).toBe(true); // comments kept
    const listed = await cli(['plan-required', 'list', '--as', '0xN'], env);
    expect(listed.out).toMatch(/mode\s+off\s+from agent rule for 0xN/);
    expect(listed.out).toMatch(/windowMin\s+15\s+from crew rule for desk/);

    expect((await cli(['plan-required', 'clear', '--agent', '0xN'], env)).status).toBe(0);
    expect(readFileSync(join(rules, 'seats.yaml'), 'utf8')).toBe(before);
    const inherited = await cli(['plan-required', 'list', '--as', '0xN', '--json'], env);
    expect(JSON.parse(inherited.out).settings.mode).toMatchObject({ value: 'side_effects', scope: 'crew', id: 'desk' });

    expect((await cli(['plan-required', 'set', '--crew', 'desk', '--mode', 'spends_only', '--window-min', '5'], env)).status).toBe(0);
    expect(JSON.parse((await cli(['plan-required', 'list', '--json'], env)).out).crews.desk).toMatchObject({ mode: 'spends_only', windowMin: 5 });
  });

  it('plan-required set refuses bad input and writes nothing', async () => {
    const { env, rules } = workspace();
    const snapshot = () => ['plan-required.yaml', 'seats.yaml', 'tools.yaml'].map((f) => readFileSync(join(rules, f), 'utf8')).join('\n---\n');
    const before = snapshot();
    const cases = [
      ['plan-required', 'set', '--workspace', '--mode', 'sometimes'],
      ['plan-required', 'set', '--workspace', '--mode', 'off', '--window-min', '-3'],
      ['plan-required', 'set', '--workspace', '--mode', 'off', '--window-min', '99999'],
      ['plan-required', 'set', '--crew', '__proto__', '--mode', 'off'],
      ['plan-required', 'set', '--workspace', '--crew', 'desk', '--mode', 'off'],
      ['plan-required', 'set', '--mode', 'off'],
    ];
    for (const args of cases) {
      const r = await cli(args, env);
      expect(r.status, args.join(' ')).toBe(1);
      expect(r.err.length, args.join(' ')).toBeGreaterThan(0);
    }
    expect(snapshot()).toBe(before);
  });

  it('org: rejects a cycle and an unknown parent with a clear message', async () => {
    const { env } = workspace();
    await cli(['org', 'crew', 'a'], env);
    await cli(['org', 'crew', 'b', '--parent', 'a'], env);
    const cycle = await cli(['org', 'crew', 'a', '--parent', 'b'], env);
    expect(cycle.status).toBe(1);
    expect(cycle.err).toMatch(/cycle/i);
    const unknown = await cli(['org', 'agent', '0xQ', '--crew', 'nope'], env);
    expect(unknown.status).toBe(1);
    expect(unknown.err).toMatch(/nope/);
  });

  it('compile: writes an OPA bundle with the manifest, data, Rego and policy.wasm', async () => {
    const { dir } = workspace();
    const out = join(dir, 'bundle.tar.gz');
    const r = await cli(['compile', EXAMPLES, '-o', out]);
    expect(r.status).toBe(0);
    const list = spawnSync('tar', ['-tzf', out], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
    expect(list).toEqual(expect.arrayContaining(['.manifest', 'data.json', 'policy.wasm', 'policies/plangate/plan_required.rego']));
    expect(list.some((f) => f.endsWith('_test.rego'))).toBe(false);
    const manifest = JSON.parse(spawnSync('tar', ['-xzOf', out, '.manifest'], { encoding: 'utf8' }).stdout);
    expect(manifest).toMatchObject({ roots: ['plangate'], rego_version: 1 });
    const data = JSON.parse(spawnSync('tar', ['-xzOf', out, 'data.json'], { encoding: 'utf8' }).stdout);
    expect(data.plangate.rules.planRequired.crews.desk.mode).toBe('side_effects');
  });

  it('every command has --help, and a usage error exits 1', async () => {
    for (const args of [['--help'], ['check', '--help'], ['plan-required', 'set', '--help'], ['org', 'crew', '--help'], ['say', '--help'], ['decide', '--help'], ['explain', '--help'], ['compile', '--help']]) {
      const r = await cli(args);
      expect(r.status, args.join(' ')).toBe(0);
      expect(r.out, args.join(' ')).toMatch(/Usage: plangate/);
    }
    expect((await cli(['decide', '--agent', 'x'])).status).toBe(1);
    expect((await cli(['no-such-command'])).status).toBe(1);
  });

  it('the installed bin runs (built dist)', () => {
    const bin = join(import.meta.dirname, '..', '..', 'bin', 'plangate.js');
    const r = spawnSync(process.execPath, [bin, 'check', EXAMPLES], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ok: /);
  });
});
