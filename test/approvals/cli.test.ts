/**
 * The human gate from the command line: `plangate decide` refuses a call that
 * needs approval (exit 3), `approvals list` shows the request, `approvals
 * show` prints the exact call with its arguments, `approve` lets the same
 * call through once, `deny` needs a reason and stands.
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from '../cli/run.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'rules');

function workspace() {
  const dir = tempDir();
  const rules = join(dir, 'rules');
  cpSync(EXAMPLES, rules, { recursive: true });
  writeFileSync(join(rules, 'approvals.yaml'), 'approvals: { workspace: { tools: [github.merge_pull_request] } }\n');
  const env: Record<string, string> = { PLANGATE_RULES: rules, PLANGATE_STORE: join(dir, 'store.db'), PLANGATE_AUDIT: join(dir, 'audit.jsonl'), PLANGATE_USER: 'ops-alice' };
  return { dir, env };
}

// 0xBOT is carved out of plan-required in the example rules.
const MERGE = (args: object) => ['decide', '--agent', '0xBOT', '--tool', 'github.merge_pull_request', '--args', JSON.stringify(args)];

describe('plangate approvals', () => {
  it('list, show, approve: the same call goes through once; deny needs a reason', async () => {
    const { dir, env } = workspace();
    const refused = await cli(MERGE({ pr: 12, base: 'main' }), env);
    expect(refused.status).toBe(3);
    const id = JSON.parse(refused.out).approval.request as string;

    const listed = await cli(['approvals', 'list'], env);
    expect(listed.status).toBe(0);
    expect(listed.out).toContain(`approval ${id}  pending  0xBOT  github.merge_pull_request`);
    const shown = await cli(['approvals', 'show', id], env);
    expect(shown.out).toContain('"base": "main"');
    expect(shown.out).toMatch(/digest\s+sha256:[0-9a-f]{64}/);

    const approved = await cli(['approvals', 'approve', id], env);
    expect(approved.status).toBe(0);
    expect(approved.out).toContain('granted by ops-alice');
    expect((await cli(MERGE({ base: 'main', pr: 12 }), env)).status).toBe(0);
    expect(JSON.parse((await cli(MERGE({ pr: 12, base: 'main' }), env)).out).code).toBe('approval_required:github.merge_pull_request:used');

    const other = JSON.parse((await cli(MERGE({ pr: 13 }), env)).out).approval.request as string;
    const noReason = await cli(['approvals', 'deny', other], env);
    expect(noReason.status).not.toBe(0);
    expect((await cli(['approvals', 'deny', other, '--reason', 'wrong PR'], env)).status).toBe(0);
    expect(JSON.parse((await cli(MERGE({ pr: 13 }), env)).out).code).toBe('approval_required:github.merge_pull_request:denied');
    expect((await cli(['approvals', 'show', 'nope'], env)).status).not.toBe(0);
    expect((await cli(['approvals', 'list', '--status', 'denied', '--json'], env)).out).toContain('wrong PR');
    expect(shown.out).toContain('plan       none (no plan was required)');

    const audit = existsSync(join(dir, 'audit.jsonl')) ? readFileSync(join(dir, 'audit.jsonl'), 'utf8') : '';
    expect(audit).toContain('"type":"ApprovalGranted"');
    expect(audit).toContain('"type":"ApprovalDenied"');
  });

  it('show prints the text of the plan that counted, line by line, control characters escaped', async () => {
    const { env } = workspace();
    const said = await cli(['say', 'merge PR 12 once CI is green\nthen tell #ops\u001b[2J', '--thread', 'agent:0xWORKER', '--as', '0xWORKER', '--kind', 'plan'], env);
    expect(said.status).toBe(0);
    const refused = await cli(['decide', '--agent', '0xWORKER', '--tool', 'github.merge_pull_request', '--args', '{"pr":12}'], env);
    expect(refused.status).toBe(3);
    const id = JSON.parse(refused.out).approval.request as string;
    const shown = await cli(['approvals', 'show', id], env);
    expect(shown.out).toMatch(/plan {7}\d+ by 0xWORKER in agent:0xWORKER at /);
    expect(shown.out).toContain('\n    merge PR 12 once CI is green\n    then tell #ops\\u001b[2J\n');
    expect(shown.out).not.toContain('\u001b');
    const json = JSON.parse((await cli(['approvals', 'show', id, '--json'], env)).out);
    expect(json.plan).toMatchObject({ pruned: false, author: '0xWORKER', body: 'merge PR 12 once CI is green\nthen tell #ops\u001b[2J' });
    expect(json.approval.planId).toBe(json.plan.id);
  });
});
