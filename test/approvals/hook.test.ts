/**
 * The human gate through an agent host's hook: `plangate hook --format
 * claude-code` as a child process, on Claude Code's recorded Write payload.
 * With a plan on record, the Write is denied for want of approval (the
 * reason names the request); once an approver grants it, the same Write is
 * left to the host once, then denied `used`; other content needs a new
 * request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openPlangate, type Plangate } from '../../src/main/open.js';
import { cliHook, recorded } from '../hook/flow.js';
import { makeWorld, RULES } from '../mcp/support.js';

const denied = (stdout: string): string | undefined => {
  const out = JSON.parse(stdout) as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
  return out.hookSpecificOutput?.permissionDecision === 'deny' ? out.hookSpecificOutput.permissionDecisionReason : undefined;
};

describe('approvals through a hook', () => {
  let pg: Plangate | undefined;
  afterEach(async () => {
    await pg?.close();
    pg = undefined;
  });

  it('Claude Code: denied pending → granted → left to the host once → denied used; other content pending anew', async () => {
    const w = makeWorld(`${RULES}\napprovals:\n  workspace: { tools: [Write], approvers: { roles: [approver] } }\n`);
    pg = await openPlangate({ rules: w.rules, store: w.store, audit: w.audit, log: () => {} });
    await pg.gate.sayAsAgent({ thread: 'agent:0xWORKER', author: '0xWORKER', kind: 'plan', body: 'write the weekly summary' });
    const hook = cliHook(w, 'claude-code');
    const write = recorded('claude-code', 'write.json');

    const first = await hook(write);
    expect(first.exitCode).toBe(0);
    const reason = denied(first.stdout);
    expect(reason).toMatch(/^approval_required:Write:pending - /);
    const id = /approve request (\S+?)[;,. ]/.exec(reason ?? '')?.[1];
    expect(id, reason).toBeDefined();
    expect(await pg.gate.approvals.list({ status: 'pending' })).toEqual([expect.objectContaining({ id, seat: '0xWORKER', tool: 'Write' })]);

    await pg.gate.approvals.approve(id!, { role: 'approver', name: 'ops-alice' });
    const through = await hook(write);
    expect(denied(through.stdout), through.stderr).toBeUndefined();
    expect(denied((await hook(write)).stdout)).toMatch(/^approval_required:Write:used - /);

    const other = JSON.parse(write) as { tool_input: { content: string } };
    other.tool_input.content = '# Summary\n\nFour fixes shipped this week.\n';
    const changed = denied((await hook(JSON.stringify(other))).stdout);
    expect(changed).toMatch(/^approval_required:Write:pending - /);
    expect(changed).not.toContain(`approve request ${id}`);
  }, 60_000);
});
