/**
 * The approvals page's snippets as written: the rule compiles and means what
 * the page says (a merge needs approval everywhere, the trading desk's
 * spends and deploys to main, 0xBOT is carved out), and the console shows
 * the CLI's own commands and output shape.
 */
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/policy.js';
import { compileRules } from '../../src/rules/load.js';
import { createMemoryStore } from '../../src/facts/memory/store.js';
import { createGate } from '../../src/gate/gate.js';
import { approvalLine } from '../../src/adapters/cli/commands/approvals.js';
import { CLIENT_DENIAL_REASON } from '../../src/core/approvals.js';
import { CLIENT_APPROVAL_TIMEOUT_MS, MAX_ELICITED_ARGS_CHARS } from '../../src/adapters/mcp/elicit.js';
import { section, snippet } from '../docs/snippets.js';

describe('docs/concepts/approvals.md', () => {
  it('the rule compiles and means what the page says', async () => {
    const compiled = compileRules([{ file: 'approvals.yaml', text: snippet('approvalsRule') }, { file: 'tools.yaml', text: 'tools: { spend: [wallet.*] }\n' }]);
    const engine = await Engine.load({ data: compiled.data });
    const store = createMemoryStore();
    await store.putCrew({ id: 'desk', parent: null });
    await store.putCrew({ id: 'trading', parent: 'desk' });
    await store.putAgent({ id: '0xT', crew: 'trading' });
    await store.putAgent({ id: '0xD', crew: 'desk' });
    await store.putAgent({ id: '0xBOT', crew: 'trading' });
    const gate = createGate({ engine, store });
    const code = async (agent: string, tool: string, args?: Record<string, unknown>) => (await gate.decide({ agent, tool, ...(args ? { args } : {}) })).code;
    expect(await code('0xD', 'github.merge_pull_request')).toBe('approval_required:github.merge_pull_request:pending');
    // trading's own rule replaces the workspace's: no merge, but spends and deploys to main.
    expect(await code('0xT', 'github.merge_pull_request')).toBeUndefined();
    expect(await code('0xT', 'wallet.propose_spend', { branch: 'main' })).toBe('approval_required:wallet.propose_spend:pending');
    expect(await code('0xT', 'deploy.site', { branch: 'dev' })).toBeUndefined();
    const d = await gate.decide({ agent: '0xT', tool: 'deploy.site', args: { branch: 'main' } });
    expect(d.approval).toMatchObject({ windowMin: 5, approvers: { roles: ['approver'], names: ['ops-alice'] }, scope: 'crew' });
    expect(await code('0xBOT', 'deploy.site', { branch: 'main' })).toBeUndefined();
  });

  it('the client snippet lets the person at the client approve the crew\'s writes, and the page\'s figures are the code\'s', async () => {
    const compiled = compileRules([{ file: 'approvals.yaml', text: snippet('approvalsClient') }]);
    const engine = await Engine.load({ data: compiled.data });
    const store = createMemoryStore();
    await store.putCrew({ id: 'docs', parent: null });
    await store.putAgent({ id: '0xWRITER', crew: 'docs' });
    await store.putCrew({ id: 'site', parent: null });
    await store.putAgent({ id: '0xELSE', crew: 'site' });
    const gate = createGate({ engine, store });
    const d = await gate.decide({ agent: '0xWRITER', tool: 'write_file', args: { path: 'a.md' } });
    expect(d.approval).toMatchObject({ status: 'pending', atClient: true, approvers: { roles: ['approver'], names: [] } });
    expect((await gate.decide({ agent: '0xELSE', tool: 'write_file' })).approval).toBeUndefined();
    const page = section('docs/concepts/approvals.md', "## Approving at the agent's MCP client").replace(/\s+/g, ' ');
    expect(page).toContain(`\`${CLIENT_DENIAL_REASON}\``);
    expect(CLIENT_APPROVAL_TIMEOUT_MS).toBe(5 * 60_000);
    expect(page).toContain('within five minutes');
    expect(MAX_ELICITED_ARGS_CHARS).toBe(16 * 1024);
    expect(page).toContain('16 KiB');
  });

  it('the console shows the commands and the list line as the CLI prints it', async () => {
    const text = snippet('approvalsCli');
    for (const cmd of ['plangate approvals list', 'plangate approvals show', 'plangate approvals approve', 'plangate approvals deny']) expect(text).toContain(cmd);
    const line = approvalLine({
      id: '3f0c…', seat: '0xWORKER', tool: 'github.merge_pull_request', runId: null, digest: '0'.repeat(64), args: {}, planId: '12',
      status: 'pending', requestedAt: Date.parse('2026-06-01T12:00:00Z'), windowMin: 15, approvers: { roles: ['approver'], names: [] },
      decidedBy: null, decidedAt: null, reason: null, expiresAt: null, usedAt: null,
    });
    expect(text).toContain(line);
  });
});

describe('approvals rules: bad input', () => {
  it('reports a scope defined twice and an out-of-range window with file:line:col, and compiles nothing', async () => {
    const { checkRules } = await import('../../src/rules/load.js');
    const twice = checkRules([
      { file: 'a.yaml', text: 'approvals:\n  workspace: { tools: [x.y] }\n' },
      { file: 'b.yaml', text: 'approvals:\n  workspace: { classes: [spend] }\n  crews:\n    desk: { windowMin: 2000, approvers: { roles: [agent!] } }\n' },
    ]);
    expect(twice.data).toBeUndefined();
    const text = twice.problems.map((p) => `${p.file}:${p.line}:${p.col}: ${p.message}`).join('\n');
    expect(text).toMatch(/b\.yaml:2:3: .*workspace approvals rule is already defined at a\.yaml:2:3/);
    expect(text).toMatch(/b\.yaml:4:\d+: .*windowMin/);
    expect(text).toMatch(/b\.yaml:4:\d+: .*roles/);
  });
});
