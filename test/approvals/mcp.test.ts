/**
 * The human gate through the MCP gateway, with the SDK's Client over
 * Streamable HTTP in front of the real filesystem server: a call that needs
 * approval is a tool error naming its request and nothing is written; an
 * approver grants it elsewhere; the same call then goes through once, the
 * next identical one is refused `used`, and changed arguments need a new
 * request.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { call, httpHarness, makeWorld, RULES, textOf, type Harness } from '../mcp/support.js';

const codeOf = (r: Awaited<ReturnType<typeof call>>): string | undefined => (r.structuredContent as { code?: string } | undefined)?.code;

describe('approvals through the MCP gateway', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('refused pending → approved by an approver → through once → used → changed arguments pending anew', async () => {
    const w = makeWorld(`${RULES}\napprovals:\n  workspace: { tools: [write_file], approvers: { roles: [approver] } }\n`);
    h = await httpHarness(w);
    const worker = await h.client('0xWORKER');
    expect((await call(worker, 'plangate_say', { body: 'write the release notes to notes.txt' })).isError).toBeFalsy();
    const target = join(w.files, 'notes.txt');
    const args = { path: target, content: 'v1.2: faster startup' };

    const first = await call(worker, 'write_file', args);
    expect(first.isError).toBe(true);
    expect(codeOf(first)).toBe('approval_required:write_file:pending');
    const id = /approve request (\S+?)[;,. ]/.exec(textOf(first))?.[1];
    expect(id, textOf(first)).toBeDefined();
    expect(existsSync(target)).toBe(false);
    // The same call again joins its request: one request, not two.
    expect(textOf(await call(worker, 'write_file', { content: args.content, path: target }))).toContain(`approve request ${id}`);
    expect(await h.operator.gate.approvals.list({ status: 'pending' })).toHaveLength(1);

    // An approver, not the agent, grants it.
    await expect(h.operator.gate.approvals.approve(id!, { role: 'agent', name: '0xWORKER' })).rejects.toThrow();
    expect(await h.operator.gate.approvals.approve(id!, { role: 'approver', name: 'ops-alice' })).toMatchObject({ status: 'granted' });

    const through = await call(worker, 'write_file', args);
    expect(through.isError, textOf(through)).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe(args.content);
    rmSync(target);

    const again = await call(worker, 'write_file', args);
    expect(codeOf(again)).toBe('approval_required:write_file:used');
    expect(existsSync(target)).toBe(false);

    const changed = await call(worker, 'write_file', { ...args, content: 'v1.2: faster startup, fewer bugs' });
    expect(codeOf(changed)).toBe('approval_required:write_file:pending');
    expect(textOf(changed)).not.toContain(`approve request ${id}`);
    expect(existsSync(target)).toBe(false);
  }, 60_000);
});
