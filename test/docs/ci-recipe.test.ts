/**
 * The CI recipe of docs/guides/testing-rule-changes.md runs as written: the
 * commands of "What a reviewer sees" run in a Git repository holding the
 * example rules on origin/main and a change on HEAD, with a decision log
 * recorded on the old rules, and print what the page shows.
 * `PLANGATE_UPDATE_DOCS=1` rewrites the block from the run (never edit it by
 * hand).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPlangate } from '../../src/main/open.js';
import { cli, tempDir } from '../cli/run.js';
import { ROOT, snippet, snippetBlock } from './snippets.js';
import { EXAMPLES } from '../authoring/support.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const MIN = 60_000;

const ORG = `crews: { desk: null, trading: desk, ops: null }
agents: { 0xWORKER: desk, 0xMGR: desk, 0xA1: desk, 0xA2: desk, 0xTRADER: trading, 0xBOT: ops }
`;

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.email=ci@example.test', '-c', 'user.name=ci', ...args], { cwd, stdio: 'ignore' });
}

/** The repository: example rules on origin/main; HEAD shortens desk's window and makes deploy.* a spend. */
async function makeRepo(): Promise<string> {
  const repo = tempDir('plangate-ci-');
  cpSync(EXAMPLES, join(repo, 'rules'), { recursive: true });
  writeFileSync(join(repo, 'org.yaml'), ORG);
  git(repo, 'init', '-q');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'rules');
  git(repo, 'update-ref', 'refs/remotes/origin/main', 'HEAD');
  // A decision log from production, recorded on the rules of origin/main.
  const pg = await openPlangate({ rules: join(repo, 'rules'), store: ':memory:', audit: join(repo, '.audit.jsonl'), decisionLog: join(repo, 'decisions.jsonl'), clock: () => NOW, env: {}, log: () => {} });
  try {
    for (const [id, parent] of [['desk', null], ['trading', 'desk'], ['ops', null]] as const) await pg.store.putCrew({ id, parent });
    for (const [id, crew] of [['0xWORKER', 'desk'], ['0xMGR', 'desk'], ['0xA1', 'desk'], ['0xA2', 'desk'], ['0xTRADER', 'trading'], ['0xBOT', 'ops']] as const) await pg.store.putAgent({ id, crew });
    const plan = (author: string, ago: number) => pg.gate.say({ thread: `agent:${author}`, author, authorKind: 'agent', kind: 'plan', body: 'plan', at: NOW - ago * MIN });
    await plan('0xMGR', 9);
    await plan('0xTRADER', 7);
    await plan('0xA1', 2);
    for (const [agent, tool] of [
      ['0xMGR', 'github.merge_pull_request'], ['0xTRADER', 'github.merge_pull_request'], ['0xA1', 'github.merge_pull_request'],
      ['0xA2', 'github.create_issue'], ['0xA1', 'deploy.production'], ['0xBOT', 'deploy.production'], ['0xMGR', 'github.get_pull_request'],
    ] as const) await pg.gate.decide({ agent, tool });
  } finally {
    await pg.close();
  }
  const edit = (file: string, from: string, to: string): void => {
    const p = join(repo, 'rules', file);
    writeFileSync(p, readFileSync(p, 'utf8').replace(from, to));
  };
  edit('plan-required.yaml', 'desk: { mode: side_effects, windowMin: 15 }', 'desk: { mode: side_effects, windowMin: 5 }');
  edit('tools.yaml', '    - payments.*\n', '    - payments.*\n    - "deploy.*"\n');
  git(repo, 'commit', '-qam', 'desk: 5-minute plans; deploys are spends');
  return repo;
}

describe('the CI recipe of the docs', () => {
  it('the suite example is a valid suite that passes on the example rules', async () => {
    const dir = tempDir('plangate-readme-suite-');
    cpSync(EXAMPLES, dir, { recursive: true });
    writeFileSync(join(dir, 'desk.test.yaml'), snippet('suite'));
    const r = await cli(['test', dir]);
    expect(r.out).toMatch(/plangate test: 2 passed, 0 failed, 0 errors in 1 suite/);
  });

  it('prints what a reviewer sees', async () => {
    const repo = await makeRepo();
    const shown = snippetBlock('reviewer');
    const commands = shown.text.split('\n').filter((l) => l.startsWith('$ ')).map((l) => l.slice(2));
    expect(commands.length).toBe(2);
    const transcript: string[] = [];
    for (const command of commands) {
      const args = command.split(/\s+/).slice(1).map((a) => (existsSync(join(repo, a)) ? join(repo, a) : a));
      const r = await cli(args);
      const out = `${r.out}${r.err}`.replaceAll(`${repo}/`, '').trimEnd();
      transcript.push(`$ ${command}`, out, `# exit ${r.status}`);
    }
    const text = `${transcript.join('\n')}\n`;
    if (process.env['PLANGATE_UPDATE_DOCS'] === '1') {
      const file = join(ROOT, shown.file);
      const page = readFileSync(file, 'utf8');
      writeFileSync(file, page.slice(0, shown.start) + text + page.slice(shown.end));
      return;
    }
    expect(shown.text).toBe(text);
  });
});
