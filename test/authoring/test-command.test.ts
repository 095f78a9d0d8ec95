/**
 * `plangate test`: suites next to the rules, run through the real policy;
 * every field of a case, located schema errors, JUnit output checked against
 * the JUnit XML shape, rules no case exercised, --filter, exit statuses.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { cli } from '../cli/run.js';
import { dirWith, EXAMPLES, examplesWith, RULES } from './support.js';

const XSD = readFileSync(join(import.meta.dirname, 'junit.xsd'), 'utf8');

/** A suite exercising every field a case and a suite can carry; every case passes. */
const EVERY_FIELD = `# a suite with every field
description: every field of a suite and of a case
now: 2026-06-01T12:00:00Z
org:
  crews: { hq: null, desk: hq, trading: hq }
  agents: { 0xA1: desk, 0xMGR: hq, 0xT: trading, 0xBOT: hq, 0xH: desk }
messages:
  - { thread: "agent:0xA1", author: 0xA1, kind: plan, age: 20m }
  - { thread: "agent:0xA1", author: 0xA1, kind: plan, at: "2026-06-01T09:00:00Z", run: r-1 }
  - { thread: "agent:0xA1", author: 0xA1, kind: plan, age: 3h, run: r-old }
  - { thread: "agent:0xA1", author: 0xA1, kind: plan, age: 3h, run: r-unrecorded }
  - { thread: "crew:hq", author: 0xMGR, kind: plan, age: 1m, body: "merge it" }
  - { thread: "agent:0xT", author: ops-alice, authorKind: human, kind: plan, age: 1m }
runs:
  - { id: r-1, seat: 0xA1, age: 4h, expiresIn: 12h }
  - { id: r-old, seat: 0xA1, age: 5h, endedAge: 1h }
delegations:
  - { id: d-1, manager: 0xMGR, worker: 0xT, run: r-9, age: 5m, expiresIn: 1h }
holds:
  - { agent: 0xH, kind: on_demand, task: Rework the auth, by: ops-alice, age: 10m, plans: 1, pushBacks: 1 }
cases:
  - name: stale plan refused with every refusal field
    call: { agent: 0xA1, tool: github.merge_pull_request }
    expect: { allowed: false, check: plan_required, code: "plan_required:github.merge_pull_request:stale", reason: stale, scope: "crew:desk", class: effect, shadow: false }
  - name: same run counts however old
    call: { agent: 0xA1, tool: github.merge_pull_request, run: r-1, at: "2026-06-01T12:00:00Z" }
    expect: { allowed: true, via: same_run }
  - name: an ended run's plan counts no more
    call: { agent: 0xA1, tool: github.merge_pull_request, run: r-old }
    expect: { allowed: false, reason: stale }
  - name: a run nobody recorded is no exception
    call: { agent: 0xA1, tool: github.merge_pull_request, run: r-unrecorded }
    expect: { allowed: false, reason: stale }
  - name: a plan as fresh as 20 minutes, decided earlier
    call: { agent: 0xA1, tool: github.merge_pull_request, at: "2026-06-01T11:45:00Z" }
    expect: { allowed: true, via: fresh }
  - name: the delegation's manager heads the chain
    call: { agent: 0xT, tool: payments.refund, delegation: d-1, run: r-9 }
    expect: { allowed: true, class: spend, scope: "crew:trading" }
  - name: a human's plan does not count
    call: { agent: 0xT, tool: payments.refund }
    expect: { allowed: false, reason: none }
  - name: a claimed delegation the record does not back counts for nothing
    call: { agent: 0xT, tool: wallet.propose_spend, delegatedBy: [0xMGR] }
    expect: { allowed: false, reason: none }
  - name: the carve-out
    call: { agent: 0xBOT, tool: wallet.propose_spend }
    expect: { allowed: true, scope: "agent:0xBOT" }
  - name: the hold refuses a read outside the whitelist
    call: { agent: 0xH, tool: github.get_issue }
    expect: { allowed: false, check: planning_hold, code: "planning_hold:github.get_issue" }
  - name: the read guard sees the args
    call: { agent: 0xA1, tool: fs.read_file, args: { path: big.log } }
    expect: { allowed: false, check: read_guard, code: "read_guard:fs.read_file" }
  - name: a ranged read passes
    call: { agent: 0xA1, tool: fs.read_file, args: { path: big.log, offset: 0, limit: 10 } }
    expect: { allowed: true, class: read }
`;

/** `line:col` (1-based) of the first occurrence of `needle` in `text`, plus `shift` columns. */
function placeOf(text: string, needle: string, shift = 0): string {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`not in the text: ${needle}`);
  const before = text.slice(0, at).split('\n');
  return `${before.length}:${(before[before.length - 1] as string).length + 1 + shift}`;
}

function everyFieldDir(extra: Record<string, string> = {}): string {
  return dirWith({ 'rules.yaml': RULES, 'all.test.yaml': EVERY_FIELD, 'big.log': 'x'.repeat(5000), ...extra });
}

describe('plangate test', () => {
  it('passes the example suite and exits 0', async () => {
    const r = await cli(['test', EXAMPLES]);
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    expect(r.out).toMatch(/plangate test: 8 passed, 0 failed, 0 errors in 1 suite\(s\)/);
  });

  it('decides every field of a case and a suite as the gate does', async () => {
    const r = await cli(['test', everyFieldDir()]);
    expect(r.out).toMatch(/12 passed, 0 failed, 0 errors/);
    expect(r.status).toBe(0);
  });

  it('reports each failing case at its place, expected against got, with the explanation; exit 1', async () => {
    const wrong = EVERY_FIELD.replace('expect: { allowed: true, via: same_run }', 'expect: { allowed: false, code: "plan_required:github.merge_pull_request:none" }')
      .replace('expect: { allowed: true, scope: "agent:0xBOT" }', 'expect: { allowed: true, scope: workspace }');
    const dir = everyFieldDir({ 'all.test.yaml': wrong });
    const r = await cli(['test', dir]);
    expect(r.status).toBe(1);
    const lines = r.out.split('\n');
    const fails = lines.filter((l) => l.includes(': FAIL '));
    expect(fails).toEqual([
      `${dir}/all.test.yaml:${placeOf(wrong, 'name: same run')}: FAIL "same run counts however old": expected refused, code plan_required:github.merge_pull_request:none; got allowed, code (none)`,
      `${dir}/all.test.yaml:${placeOf(wrong, 'name: the carve-out')}: FAIL "the carve-out": expected allowed, scope workspace; got allowed, scope agent:0xBOT`,
    ]);
    // The explanation of the decision got follows each line.
    expect(r.out).toContain('ALLOWED  0xA1 → github.merge_pull_request');
    expect(r.out).toMatch(/✓ #\d+ plan by 0xA1 in agent:0xA1, \d+ min ago, run r-1 — counts \(same run\)/);
    expect(r.out).toMatch(/10 passed, 2 failed, 0 errors/);
  });

  it('points at a schema error in a suite and runs nothing; exit 2', async () => {
    const bad = EVERY_FIELD.replace('reason: none }', 'reason: absent }').replace('kind: on_demand,', 'kind: on_demand, color: red,');
    const dir = everyFieldDir({ 'all.test.yaml': bad });
    const r = await cli(['test', dir]);
    expect(r.status).toBe(2);
    expect(r.out).toContain(`${dir}/all.test.yaml:${placeOf(bad, 'color')}: holds[0]: unknown key "color" (expected agent, kind, task, by, age, plans, pushBacks)`);
    expect(r.out).toContain(`${dir}/all.test.yaml:${placeOf(bad, 'absent')}: cases[6].expect.reason: must be one of none, stale (got "absent")`);
    expect(r.out).not.toContain('FAIL');
  });

  it('refuses invalid rules with their place, and a suite whose org does not hold; exit 2', async () => {
    let r = await cli(['test', everyFieldDir({ 'rules.yaml': RULES.replace('mode: spends_only', 'mode: sometimes') })]);
    expect(r.status).toBe(2);
    expect(r.out).toMatch(/rules\.yaml:2:22: planRequired\.workspace\.mode: must be one of off, spends_only, side_effects \(got "sometimes"\)/);
    const noCrew = EVERY_FIELD.replace('0xBOT: hq,', '0xBOT: nowhere,');
    r = await cli(['test', everyFieldDir({ 'all.test.yaml': noCrew })]);
    expect(r.status).toBe(2);
    expect(r.out).toContain(`all.test.yaml:${placeOf(noCrew, '0xBOT: nowhere')}: unknown crew: nowhere`);
  });

  it('refuses a suite that is not a regular file (a FIFO) without blocking; exit 2', async () => {
    const dir = examplesWith();
    execFileSync('mkfifo', [join(dir, 'pipe.test.yaml')]);
    const r = await cli(['test', dir]);
    expect(r.status).toBe(2);
    expect(r.out).toContain(`${dir}/pipe.test.yaml: not a regular file (a FIFO); suites must be regular files`);
  }, 10_000);

  it('reads ids as written: 0x10 is the agent "0x10", not 16', async () => {
    const dir = dirWith({
      'rules.yaml': 'planRequired:\n  agents:\n    0x10: { mode: side_effects }\n',
      'hex.test.yaml': 'org:\n  crews: { c: null }\n  agents: { 0x10: c }\ncases:\n  - name: hex\n    call: { agent: 0x10, tool: db.drop }\n    expect: { allowed: false, scope: "agent:0x10" }\n',
    });
    const r = await cli(['test', dir]);
    expect(r.out).toMatch(/1 passed, 0 failed/);
  });

  it('lists the rules no case exercised: scopes, tool patterns, profiles', async () => {
    const r = await cli(['test', everyFieldDir()]);
    const line = r.out.split('\n').find((l) => l.includes('not exercised by any case')) ?? '';
    // payments.* is used (payments.refund), github.get_* by the held agent's read; the rest is not.
    expect(line).toContain('the workspace rule (');
    expect(line).not.toContain('crew rule "desk"');
    expect(line).not.toContain('tool pattern "payments.*"');
    expect(line).not.toContain('tool pattern "github.get_*"');
    expect(line).toContain('profile "loose" (');
    expect(line).not.toContain('profile "careful"');
    const dir = everyFieldDir();
    const only = await cli(['test', dir, '--filter', 'carve-out']);
    const onlyLine = only.out.split('\n').find((l) => l.includes('not exercised by any case')) ?? '';
    expect(onlyLine).toMatch(/crew rule "desk" \(.*rules\.yaml:4:5\)/);
    expect(onlyLine).toContain(`tool pattern "payments.*" (${dir}/rules.yaml:${placeOf(RULES, 'payments.*')})`);
    expect(onlyLine).toContain('profile "careful"');
  });

  it('selects cases with --filter, and exits 2 when it selects none', async () => {
    let r = await cli(['test', everyFieldDir(), '--filter', 'READ GUARD']);
    expect(r.out).toMatch(/1 passed, 0 failed, 0 errors in 1 suite\(s\), 11 left out by --filter/);
    r = await cli(['test', everyFieldDir(), '--filter', 'no such case']);
    expect(r.status).toBe(2);
    expect(r.err).toContain('no case was selected');
  });

  it('writes JUnit XML that matches the JUnit shape, with failures and explanations', async () => {
    const wrong = EVERY_FIELD.replace('expect: { allowed: true, via: same_run }', 'expect: { allowed: false }');
    const dir = everyFieldDir({ 'all.test.yaml': wrong, 'bad.test.yaml': 'cases: []\n' });
    const invalid = await cli(['test', dir, EXAMPLES, '--format', 'junit']);
    expect(invalid.status).toBe(2);
    const ok = dirWith({ 'rules.yaml': RULES, 'all.test.yaml': wrong, 'big.log': 'x'.repeat(5000) });
    const failing = await cli(['test', ok, EXAMPLES, '--format', 'junit']);
    expect(failing.status).toBe(1);
    for (const xml of [invalid.out, failing.out]) {
      const result = await validateXML({ xml: { fileName: 'report.xml', contents: xml }, schema: { fileName: 'junit.xsd', contents: XSD } });
      expect(result.errors).toEqual([]);
      expect(result.valid).toBe(true);
    }
    expect(failing.out).toContain('<testsuites name="plangate test" tests="20" failures="1" errors="0"');
    expect(failing.out).toMatch(new RegExp(`<testcase name="same run counts however old" classname="[^"]*all\\.test\\.yaml" file="[^"]*all\\.test\\.yaml" line="${placeOf(wrong, 'name: same run').split(':')[0]}"`));
    expect(failing.out).toContain('<failure message="expected refused; got allowed" type="expectation">');
    expect(failing.out).toContain('ALLOWED  0xA1 → github.merge_pull_request');
    expect(invalid.out).toMatch(/<error message="1 problem\(s\)" type="invalid">[^<]*bad\.test\.yaml:1:8: cases: must NOT have fewer than 1 items/);
  });

  it('writes the report to --output and a summary to stdout; JSON too', async () => {
    const dir = everyFieldDir();
    const out = join(dir, 'report.xml');
    const r = await cli(['test', dir, '--format', 'junit', '--output', out]);
    expect(r.status).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^<\?xml/);
    expect(r.out).toMatch(/12 passed/);
    const j = await cli(['test', dir, '--format', 'json']);
    const report = JSON.parse(j.out) as { passed: number; exit: number; dirs: Array<{ suites: Array<{ cases: unknown[] }> }> };
    expect(report).toMatchObject({ passed: 12, failed: 0, exit: 0 });
    expect(report.dirs[0]?.suites[0]?.cases).toHaveLength(12);
  });

  it('does not load a suite as a rule file (check and decide ignore *.test.yaml)', async () => {
    const dir = examplesWith();
    writeFileSync(join(dir, 'more.test.yml'), 'cases: [ { name: x, call: { agent: a, tool: t }, expect: { allowed: true } } ]\n');
    const r = await cli(['check', dir]);
    expect(r.status).toBe(0);
    expect(r.out).toMatch(/ok: 4 rule file\(s\)/);
  });
});
