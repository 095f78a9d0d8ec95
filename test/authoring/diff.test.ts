/**
 * `plangate diff`: between two directories and between two Git revisions of
 * a temp repository (read through git, no checkout): a crew window change, an
 * agent carve-out added, a tool moved from read to effect, a pattern added
 * that captures existing tools, a shadow rule turned to enforce; --replay
 * over a decision log and an audit recorded by a real plangate, where the
 * flips are known; exit statuses.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/facts/sqlite/store.js';
import { openPlangate } from '../../src/main/open.js';
import type { DiffReport } from '../../src/main/diff/diff.js';
import { cli, tempDir } from '../cli/run.js';
import { dirWith } from './support.js';

const OLD = `planRequired:
  workspace: { mode: side_effects, windowMin: 30 }
  crews:
    desk: { mode: side_effects, windowMin: 15 }
    lab: { mode: side_effects, enforce: false }
tools:
  read: [github.get_*, db.query]
  effect: [github.merge_pull_request]
`;

const NEW = `planRequired:
  workspace: { mode: side_effects, windowMin: 30 }
  crews:
    desk: { mode: side_effects, windowMin: 5 }
    lab: { mode: side_effects, enforce: true }
  agents:
    0xBOT: { mode: off }
tools:
  read: [github.get_*]
  effect: [github.merge_pull_request, db.query]
  spend: ["deploy.*"]
`;

const ORG = `crews: { desk: null, lab: null }
agents: { 0xD1: desk, 0xD2: desk, 0xBOT: desk, 0xL1: lab }
`;

const NOW = Date.parse('2026-06-01T12:00:00Z');
const MIN = 60_000;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=ci@example.test', '-c', 'user.name=ci', ...args], { cwd, encoding: 'utf8' });
}

let repo: string;
let oldDir: string;
let newDir: string;
let org: string;
let decisions: string;
let audit: string;

/** Records past decisions with a real plangate on the OLD rules: its decision log and its audit. */
async function record(): Promise<void> {
  const pg = await openPlangate({ rules: oldDir, store: ':memory:', audit, decisionLog: decisions, clock: () => NOW, env: {}, log: () => {} });
  try {
    await pg.store.putCrew({ id: 'desk', parent: null });
    await pg.store.putCrew({ id: 'lab', parent: null });
    for (const [id, crew] of [['0xD1', 'desk'], ['0xD2', 'desk'], ['0xBOT', 'desk'], ['0xL1', 'lab']] as const) await pg.store.putAgent({ id, crew });
    const plan = (author: string, ago: number) => pg.gate.say({ thread: `agent:${author}`, author, authorKind: 'agent', kind: 'plan', body: `SECRET plan body of ${author}`, at: NOW - ago * MIN });
    await plan('0xD1', 10);
    await plan('0xD2', 2);
    const decide = (agent: string, tool: string) => pg.gate.decide({ agent, tool });
    expect((await decide('0xD1', 'github.merge_pull_request')).allowed).toBe(true); // window 15 → 5: flips to refused (stale)
    expect((await decide('0xBOT', 'github.merge_pull_request')).allowed).toBe(false); // carve-out: flips to allowed
    expect((await decide('0xL1', 'github.merge_pull_request')).shadow).toBe(true); // shadow → enforce: flips to refused
    expect((await decide('0xD2', 'db.query')).allowed).toBe(true); // read → effect, no plan by 0xD2 that is … 2 min old: stays allowed
    expect((await decide('0xD1', 'db.query')).allowed).toBe(true); // read → effect, 10-min plan is stale at 5: flips
    expect((await decide('0xD1', 'github.get_pr')).allowed).toBe(true); // unchanged
    expect((await decide('0xD2', 'github.merge_pull_request')).allowed).toBe(true); // unchanged
  } finally {
    await pg.close();
  }
}

beforeAll(async () => {
  repo = tempDir('plangate-diff-repo-');
  mkdirSync(join(repo, 'rules'));
  writeFileSync(join(repo, 'rules', 'rules.yaml'), OLD);
  git(repo, 'init', '-q');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'old rules');
  writeFileSync(join(repo, 'rules', 'rules.yaml'), NEW);
  git(repo, 'commit', '-qam', 'new rules');
  oldDir = dirWith({ 'rules.yaml': OLD });
  newDir = dirWith({ 'rules.yaml': NEW });
  org = join(dirWith({ 'org.yaml': ORG }), 'org.yaml');
  const logs = tempDir('plangate-diff-logs-');
  decisions = join(logs, 'decisions.jsonl');
  audit = join(logs, 'audit.jsonl');
  await record();
});

async function diffJson(...args: string[]): Promise<{ status: number; report: DiffReport }> {
  const r = await cli(['diff', ...args, '--format', 'json']);
  expect(r.err).toBe('');
  return { status: r.status, report: JSON.parse(r.out) as DiffReport };
}

const EXPECTED_RULES = [
  { scope: 'crew:desk', field: 'windowMin', old: 15, new: 5, oldSource: 'rules.yaml:4:5', newSource: 'rules.yaml:4:5' },
  { scope: 'crew:lab', field: 'enforce', old: false, new: true, oldSource: 'rules.yaml:5:5', newSource: 'rules.yaml:5:5' },
  { scope: 'agent:0xBOT', field: 'mode', new: 'off', newSource: 'rules.yaml:7:5' },
  { scope: 'tool:db.query', field: 'class', old: 'read', new: 'effect', oldSource: 'rules.yaml:7:24', newSource: 'rules.yaml:10:39' },
  { scope: 'pattern:deploy.*', field: 'class', new: 'spend', newSource: 'rules.yaml:11:11' },
];

describe('plangate diff', () => {
  it('lists the changed rules between two directories, with file:line on both sides; exit 1', async () => {
    const { status, report } = await diffJson(oldDir, newDir);
    expect(status).toBe(1);
    expect(report.changed).toBe(true);
    expect(report.rules).toEqual(expect.arrayContaining(EXPECTED_RULES));
    expect(report.rules).toHaveLength(EXPECTED_RULES.length);
  });

  it('compares every other rules section too (runs.maxMinutes)', async () => {
    const a = dirWith({ 'rules.yaml': OLD, 'runs.yaml': 'runs: { maxMinutes: 600 }\n' });
    const b = dirWith({ 'rules.yaml': OLD, 'runs.yaml': 'runs: { maxMinutes: 60 }\n' });
    const { status, report } = await diffJson(a, b);
    expect(status).toBe(1);
    expect(report.rules).toEqual([{ scope: 'runs', field: 'maxMinutes', old: 600, new: 60, oldSource: 'runs.yaml:1:9', newSource: 'runs.yaml:1:9' }]);
  });

  it('reports the read roots changing, added and removed', async () => {
    const guard = (roots: string) => `readGuard:\n  roots: ${roots}\n  tools:\n    fs.read_file: { path: path, range: [limit] }\n`;
    const a = dirWith({ 'rules.yaml': OLD, 'guard.yaml': guard('[workspace]') });
    const b = dirWith({ 'rules.yaml': OLD, 'guard.yaml': guard('[workspace, /etc]') });
    const c = dirWith({ 'rules.yaml': OLD, 'guard.yaml': 'readGuard:\n  tools:\n    fs.read_file: { path: path, range: [limit] }\n' });
    const changed = await diffJson(a, b);
    expect(changed.status).toBe(1);
    expect(changed.report.rules).toEqual([
      { scope: 'readGuard', field: 'roots', old: ['workspace'], new: ['workspace', '/etc'], oldSource: 'guard.yaml:2:3', newSource: 'guard.yaml:2:3' },
    ]);
    const removed = await diffJson(a, c);
    expect(removed.status).toBe(1);
    expect(removed.report.rules).toEqual([{ scope: 'readGuard', field: 'roots', old: ['workspace'], oldSource: 'guard.yaml:2:3' }]);
    expect((await diffJson(a, a)).status).toBe(0);
  });

  it('reads two Git revisions without a checkout, and a revision against a directory', async () => {
    const rules = join(repo, 'rules');
    const byRev = await diffJson('HEAD~1', 'HEAD', '--rules', rules);
    expect(byRev.report.old).toBe('HEAD~1:rules');
    expect(byRev.report.rules).toEqual(expect.arrayContaining(EXPECTED_RULES));
    const mixed = await diffJson('HEAD~1:rules', newDir, '--rules', rules);
    expect(mixed.report.rules).toHaveLength(EXPECTED_RULES.length);
    // The working tree is untouched: still the new rules.
    expect(readFileSync(join(rules, 'rules.yaml'), 'utf8')).toBe(NEW);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    const same = await cli(['diff', 'HEAD', newDir, '--rules', rules]);
    expect(same.status).toBe(0);
    expect(same.out).toContain('behaviour changes: none');
  });

  it('groups the effective settings per seat by crew', async () => {
    const { report } = await diffJson(oldDir, newDir, '--org', org);
    expect(report.seats).toBe(4);
    expect(report.settings).toEqual([
      { crew: 'desk', wholeCrew: false, crewSize: 3, agents: ['0xD1', '0xD2'], changes: [{ field: 'windowMin', old: 15, new: 5 }] },
      { crew: 'desk', wholeCrew: false, crewSize: 3, agents: ['0xBOT'], changes: [{ field: 'mode', old: 'side_effects', new: 'off' }, { field: 'windowMin', old: 15, new: 5 }] },
      { crew: 'lab', wholeCrew: true, crewSize: 1, agents: ['0xL1'], changes: [{ field: 'enforce', old: false, new: true }] },
    ]);
    const people = await cli(['diff', oldDir, newDir, '--org', org]);
    expect(people.out).toContain('  2 of the 3 agents of crew desk (0xD1, 0xD2): windowMin 15 → 5');
    expect(people.out).toContain('  crew lab and its 1 agent: enforce false → true');
    expect(people.out).toContain(`  crew desk: windowMin 15 → 5  (${oldDir}/rules.yaml:4:5 → ${newDir}/rules.yaml:4:5)`);
  });

  it('refuses an org file that is a FIFO or too large, unread, without hanging', async () => {
    const dir = tempDir('plangate-diff-org-');
    const fifo = join(dir, 'org.yaml');
    execFileSync('mkfifo', [fifo]);
    const big = join(dir, 'big.yaml');
    writeFileSync(big, `crews: {}\n#${'x'.repeat(1024 * 1024)}\n`);
    const piped = await cli(['diff', oldDir, newDir, '--org', fifo]);
    expect(piped.status).not.toBe(0);
    expect(piped.err).toMatch(/cannot read the org file .*org\.yaml: not a regular file \(a FIFO\)/);
    const large = await cli(['diff', oldDir, newDir, '--org', big]);
    expect(large.err).toMatch(/cannot read the org file .*big\.yaml: file is too large/);
  });

  it('reads the seats from a store as well (an SQLite file), and refuses a store that does not exist', async () => {
    const path = join(tempDir('plangate-diff-store-'), 'org.db');
    const store = openSqliteStore(path);
    await store.putCrew({ id: 'desk', parent: null });
    for (let i = 0; i < 40; i++) await store.putAgent({ id: `0xS${i}`, crew: 'desk' });
    await store.close();
    const r = await cli(['diff', oldDir, newDir, '--store', path]);
    expect(r.out).toContain('seats: effective settings change for 40 of the 40 agent(s) of the org');
    expect(r.out).toContain('  crew desk and its 40 agents: windowMin 15 → 5');
    const missing = await cli(['diff', oldDir, newDir, '--store', join(repo, 'none.db')]);
    expect(missing.status).toBe(2);
    expect(missing.err).toContain('no store at');
  });

  it('says which known tools change class, from --tools and the tool names in the audit', async () => {
    const { report } = await diffJson(oldDir, newDir, '--tools', 'db.query,deploy.prod,github.get_pr');
    expect(report.tools).toEqual([
      { tool: 'db.query', old: 'read', new: 'effect' },
      { tool: 'deploy.prod', old: 'effect', new: 'spend' },
    ]);
    const fromAudit = await cli(['diff', oldDir, newDir, '--audit', audit, '--format', 'json']);
    // The audit holds refusals of github.merge_pull_request only: its class does not change.
    expect((JSON.parse(fromAudit.out) as DiffReport).toolsCompared).toBe(1);
  });

  it('replays a decision log: the flips are the known ones, counted by crew, tool and code', async () => {
    const log = readFileSync(decisions, 'utf8');
    expect(log.trim().split('\n')).toHaveLength(7);
    expect(log).not.toContain('SECRET');
    const { status, report } = await diffJson(oldDir, newDir, '--replay', decisions, '--org', org);
    expect(status).toBe(1);
    const r = report.replay;
    expect(r).toMatchObject({ lines: 7, replayed: 7, fromDecisionLog: 7, fromAudit: 0, unreadable: 0, undetermined: 0 });
    expect(r?.toRefused).toMatchObject({
      total: 3,
      byCrew: { desk: 2, lab: 1 },
      byTool: { 'github.merge_pull_request': 2, 'db.query': 1 },
      byCode: { 'plan_required:github.merge_pull_request:stale': 1, 'plan_required:github.merge_pull_request:none': 1, 'plan_required:db.query:stale': 1 },
    });
    expect(r?.toAllowed).toMatchObject({ total: 1, byCrew: { desk: 1 }, byCode: { 'plan_required:github.merge_pull_request:none': 1 } });
    expect(r?.toAllowed.examples).toEqual([
      { line: 2, time: '2026-06-01T12:00:00.000Z', agent: '0xBOT', tool: 'github.merge_pull_request', old: 'refused plan_required:github.merge_pull_request:none', new: 'allowed' },
    ]);
    expect(r?.toRefused.examples.map((e) => e.line)).toEqual([1, 3, 5]);
    expect(report.tools).toEqual([{ tool: 'db.query', old: 'read', new: 'effect' }]);
    const people = await cli(['diff', oldDir, newDir, '--replay', decisions]);
    expect(people.out).toContain('replay');
    expect(people.out).toContain('  allowed → refused: 3');
    expect(people.out).toContain('    by crew: desk 2, lab 1');
    expect(people.out).toContain('  refused → allowed: 1');
  });

  it('replays the audit: refusals that would be let through, shadow refusals that would be enforced', async () => {
    const { report } = await diffJson(oldDir, newDir, '--replay', audit, '--org', org);
    expect(report.replay).toMatchObject({ replayed: 2, fromAudit: 2, fromDecisionLog: 0 });
    expect(report.replay?.toAllowed).toMatchObject({ total: 1, byTool: { 'github.merge_pull_request': 1 } });
    expect(report.replay?.toRefused).toMatchObject({ total: 1, byCrew: { lab: 1 } });
  });

  it('counts lines it cannot read, and nothing flips between identical rules; exit 0', async () => {
    const logs = tempDir('plangate-diff-bad-');
    const bad = join(logs, 'bad.jsonl');
    writeFileSync(bad, `${readFileSync(decisions, 'utf8')}not json\n{"input": {"now": "x"}}\n{"type":"HoldPlaced","time":"2026-06-01T12:00:00Z"}\n{"v":1,"inp`);
    const r = await diffJson(oldDir, oldDir, '--replay', bad);
    expect(r.status).toBe(0);
    expect(r.report.replay).toMatchObject({ replayed: 7, unreadable: 3, firstUnreadable: 8, skipped: 1 });
    expect(r.report.changed).toBe(false);
  });

  it('exits 2 for an invalid side (with its place), an unknown revision, a missing log', async () => {
    const broken = dirWith({ 'rules.yaml': OLD.replace('windowMin: 15', 'windowMin: -1') });
    let r = await cli(['diff', oldDir, broken]);
    expect(r.status).toBe(2);
    expect(r.err).toContain(`${broken}/rules.yaml:4:44: planRequired.crews.desk: windowMin must be an integer from 1 to 10080 (got -1)`);
    r = await cli(['diff', 'no-such-rev', 'HEAD', '--rules', join(repo, 'rules')]);
    expect(r.status).toBe(2);
    expect(r.err).toContain('"no-such-rev" is neither a directory nor a Git revision');
    r = await cli(['diff', oldDir, newDir, '--replay', join(repo, 'missing.jsonl')]);
    expect(r.status).toBe(2);
    expect(r.err).toContain('cannot read the log to replay');
  });
});

describe('plangate diff usage errors', () => {
  it('exit 2, never the 1 that means a change', async () => {
    expect((await cli(['diff', 'only-one'])).status).toBe(2);
    expect((await cli(['--rules', 'x', 'diff', 'a', 'b', '--no-such-option'])).status).toBe(2);
    expect((await cli(['test', '--no-such-option'])).status).toBe(2);
  });
});
