/** `plangate hold / release / unblock / holds / submit-plan / push-back`, and decide's --args. */
import { cpSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from '../cli/run.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'rules');

/** The example rules in a temp workspace; each CLI run opens and closes the store, like a new process. */
async function workspace() {
  const dir = tempDir();
  const rules = join(dir, 'rules');
  cpSync(EXAMPLES, rules, { recursive: true });
  const env = { PLANGATE_RULES: rules, PLANGATE_STORE: join(dir, 'store.db'), PLANGATE_AUDIT: join(dir, 'audit.jsonl'), USER: 'ops-alice' };
  for (const args of [['org', 'crew', 'desk'], ['org', 'crew', 'trading', '--parent', 'desk'], ['org', 'agent', '0xWORKER', '--crew', 'trading'], ['org', 'agent', '0xW2', '--crew', 'desk']]) {
    expect((await cli(args, env)).status).toBe(0);
  }
  const audit = () => readFileSync(join(dir, 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string });
  return { dir, env, audit };
}

describe('plangate hold and friends', () => {
  it('holds on demand, refuses work (exit 3), takes a plan and a push-back, releases, and lists the history', async () => {
    const { env, audit } = await workspace();
    const held = await cli(['hold', '0xWORKER', '--task', 'Refactor the auth middleware'], env);
    expect(held.status).toBe(0);
    expect(held.out).toMatch(/^hold 1 {2}0xWORKER {2}active {2}on demand ops-alice at \S+ {2}"Refactor the auth middleware" {2}plans 0, push-backs 0$/m);
    expect(held.out).toContain('it sends its plan through plangate_submit_plan');

    const refused = await cli(['decide', '--agent', '0xWORKER', '--tool', 'github.merge_pull_request'], env);
    expect(refused.status).toBe(3);
    expect(JSON.parse(refused.out)).toMatchObject({ allowed: false, check: 'planning_hold', code: 'planning_hold:github.merge_pull_request' });
    const whitelisted = await cli(['decide', '--agent', '0xWORKER', '--tool', 'github.get_pull_request'], env);
    expect(whitelisted.status).toBe(0);

    const explained = await cli(['explain', '--agent', '0xWORKER', '--tool', 'github.merge_pull_request'], env);
    expect(explained.status).toBe(3);
    expect(explained.out).toMatch(/planning hold +held \(hold 1, on demand\)/);
    expect(explained.out).toMatch(/decided by +planning_hold/);

    expect((await cli(['submit-plan', '0xWORKER', 'Add an API-key branch; two callers change.'], env)).out).toMatch(/^plan #\d+ sent on hold 1 \(1 so far\)/);
    expect((await cli(['push-back', '0xWORKER', 'Which callers?', '--by', 'reviewer'], env)).out).toMatch(/^push-back #\d+ on hold 1; 0xWORKER stays held/);
    expect((await cli(['holds'], env)).out).toMatch(/^hold 1 {2}0xWORKER {2}active .* plans 1, push-backs 1$/m);

    const unread = await cli(['release', '0xWORKER', '--by', 'reviewer'], env);
    expect(unread.status).not.toBe(0);
    const newest = /0xWORKER's newest is plan #(\d+): --plan \1/.exec(unread.err)?.[1];
    expect(newest, unread.err).toBeDefined();
    expect((await cli(['release', '0xWORKER', '--by', 'reviewer', '--plan', String(Number(newest) + 1)], env)).err).toMatch(/has sent a plan since/);
    const released = await cli(['release', '0xWORKER', '--by', 'reviewer', '--plan', newest!], env);
    expect(released.status).toBe(0);
    expect(released.out).toMatch(/released by reviewer at /);
    expect((await cli(['holds'], env)).out.trim()).toBe('no active holds');
    const all = await cli(['holds', '--all', '--json'], env);
    expect(JSON.parse(all.out)).toEqual([expect.objectContaining({ id: '1', state: 'released', releasedBy: 'reviewer', plans: 1, pushBacks: 1 })]);
    expect(JSON.parse((await cli(['holds', '--all', '--before', '1', '--json'], env)).out)).toEqual([]);

    // Released: decided as usual (the plan sent through the channel is a fresh plan).
    expect((await cli(['decide', '--agent', '0xWORKER', '--tool', 'github.merge_pull_request'], env)).status).toBe(0);
    expect(audit().map((e) => e.type)).toEqual(['HoldPlaced', 'PlanningHoldBlocked', 'HoldPlanSubmitted', 'HoldPushedBack', 'HoldReleased']);
    expect(readFileSync(join(env.PLANGATE_AUDIT), 'utf8')).not.toMatch(/API-key|Which callers/);
  });

  it('refuses a second hold until unblock, and a reviewer hold where the gate is off', async () => {
    const { env } = await workspace();
    expect((await cli(['hold', '0xW2'], env)).status).toBe(0);
    const again = await cli(['hold', '0xW2', '--task', 'another'], env);
    expect(again.status).toBe(1);
    expect(again.err).toMatch(/0xW2 is already held \(hold 1, placed by ops-alice\)\. Only one hold at a time: clear it first with unblock/);
    const unblocked = await cli(['unblock', '0xW2', '--json'], env);
    expect(JSON.parse(unblocked.out)).toMatchObject({ state: 'cleared', clearedBy: 'ops-alice' });
    expect((await cli(['hold', '0xW2', '--task', 'another'], env)).status).toBe(0);

    // 0xW2 sits in desk: no profile, the defaults keep the gate off. 0xWORKER's crew (trading) picks "careful".
    const reviewer = await cli(['hold', '0xW2', '--reviewer', '--by', 'reviewer'], env);
    expect(reviewer.status).toBe(1);
    expect(reviewer.err).toMatch(/the reviewer cannot hold 0xW2: the planning gate is off for it \(the planning-gate defaults \(planning\.yaml:\d+:\d+\)\)/);
    expect((await cli(['hold', '0xWORKER', '--reviewer', '--by', 'reviewer'], env)).status).toBe(0);
    expect((await cli(['release', 'nobody'], env)).err).toMatch(/nobody is not held/);
  });

  it('decide --args: the read guard refuses a whole read of a large file, exit 3', async () => {
    const { dir, env } = await workspace();
    const big = join(dir, 'big.log');
    writeFileSync(big, '');
    truncateSync(big, 2 * 1024 * 1024);
    const args = JSON.stringify({ path: big });
    const r = await cli(['decide', '--agent', '0xW2', '--tool', 'fs.read_file', '--args', args], env);
    expect(r.status).toBe(3);
    expect(JSON.parse(r.out)).toMatchObject({ check: 'read_guard', code: 'read_guard:fs.read_file' });
    const ranged = await cli(['decide', '--agent', '0xW2', '--tool', 'fs.read_file', '--args', JSON.stringify({ path: big, limit: 100 })], env);
    expect(ranged.status).toBe(0);
    const bad = await cli(['decide', '--agent', '0xW2', '--tool', 'fs.read_file', '--args', '[1]'], env);
    expect(bad.status).toBe(1);
    expect(bad.err).toMatch(/--args must be a JSON object/);
  });
});
