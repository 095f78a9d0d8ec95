/**
 * The six agent-host contracts (Codex, Gemini CLI, Cursor, Copilot,
 * Windsurf, Cline) on payloads recorded in each host's published shape
 * (test/hook/payloads/<host>/): what each reads, that each payload is
 * recognised by its own host only, and the exact reply that blocks or lets
 * a call go in that host (JSON field, stderr, exit code).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCode, PlangateError } from '../../src/core/errors.js';
import type { HookCall, HostContract } from '../../src/adapters/hook/contract.js';
import { HOSTS, recognise } from '../../src/adapters/hook/hosts/index.js';
import { cline } from '../../src/adapters/hook/hosts/cline.js';
import { codex } from '../../src/adapters/hook/hosts/codex.js';
import { copilot } from '../../src/adapters/hook/hosts/copilot.js';
import { cursor } from '../../src/adapters/hook/hosts/cursor.js';
import { geminiCli } from '../../src/adapters/hook/hosts/gemini-cli.js';
import { windsurf } from '../../src/adapters/hook/hosts/windsurf.js';

const PAYLOADS = resolve(import.meta.dirname, 'payloads');
const PLAN = { kind: 'plan', body: 'Write the release summary to summary.md, then push it.' };
const REASON = 'plan_required:Write:none - post a plan first';

function payload(host: string, name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(PAYLOADS, host, `${name}.json`), 'utf8')) as Record<string, unknown>;
}

function invalid(fn: () => unknown, message: RegExp): void {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(PlangateError);
  expect((caught as PlangateError).code).toBe(ErrorCode.InvalidInput);
  expect((caught as PlangateError).message).toMatch(message);
}

/** What each recorded payload reads as, per host. */
const READS: Record<string, Record<string, HookCall>> = {
  codex: {
    shell: { tool: 'Bash', input: { command: 'git push origin main' }, sessionId: '019a7c3e-5f21-7d40-b8a2-4c1e9f6d2b70', cwd: '/srv/notes' },
    write: { tool: 'apply_patch', input: { command: expect.stringContaining('*** Add File: summary.md') }, sessionId: '019a7c3e-5f21-7d40-b8a2-4c1e9f6d2b70', cwd: '/srv/notes' },
    read: { tool: 'mcp__filesystem__read_text_file', mcp: { server: 'filesystem', tool: 'read_text_file' }, input: { path: '/srv/notes/build.log' }, sessionId: '019a7c3e-5f21-7d40-b8a2-4c1e9f6d2b70', cwd: '/srv/notes' },
    mcp: { tool: 'mcp__github__merge_pull_request', mcp: { server: 'github', tool: 'merge_pull_request' }, input: { owner: 'acme', repo: 'notes', pullNumber: 42, merge_method: 'squash' }, sessionId: '019a7c3e-5f21-7d40-b8a2-4c1e9f6d2b70', cwd: '/srv/notes' },
    plan: { tool: 'mcp__plangate__plangate_say', mcp: { server: 'plangate', tool: 'plangate_say' }, input: PLAN, sessionId: '019a7c3e-5f21-7d40-b8a2-4c1e9f6d2b70', cwd: '/srv/notes' },
  },
  'gemini-cli': {
    shell: { tool: 'run_shell_command', input: { command: 'git push origin main', description: 'Push the release branch' }, sessionId: 'b2f7c1d4-93e0-4a6b-8d25-7e1f0c9a3b64', cwd: '/srv/notes' },
    write: { tool: 'write_file', input: { file_path: '/srv/notes/summary.md', content: '# Summary\n\nThe release went out on Tuesday.\n' }, sessionId: 'b2f7c1d4-93e0-4a6b-8d25-7e1f0c9a3b64', cwd: '/srv/notes' },
    read: { tool: 'read_file', input: { file_path: '/srv/notes/build.log' }, sessionId: 'b2f7c1d4-93e0-4a6b-8d25-7e1f0c9a3b64', cwd: '/srv/notes' },
    mcp: { tool: 'mcp_github_merge_pull_request', mcp: { server: 'github', tool: 'merge_pull_request' }, input: { owner: 'acme', repo: 'notes', pullNumber: 42 }, sessionId: 'b2f7c1d4-93e0-4a6b-8d25-7e1f0c9a3b64', cwd: '/srv/notes' },
    plan: { tool: 'mcp_plangate_plangate_say', mcp: { server: 'plangate', tool: 'plangate_say' }, input: PLAN, sessionId: 'b2f7c1d4-93e0-4a6b-8d25-7e1f0c9a3b64', cwd: '/srv/notes' },
  },
  cursor: {
    shell: { tool: 'Shell', input: { command: 'git push origin main' }, sessionId: 'c0a8e2f4-1b7d-4c39-a5e6-8f2d0b9c7e11', cwd: '/srv/notes' },
    // preToolUse sends cwd "": the only workspace root stands in.
    write: { tool: 'Write', input: { file_path: '/srv/notes/summary.md', contents: '# Summary\n\nThe release went out on Tuesday.\n' }, sessionId: 'c0a8e2f4-1b7d-4c39-a5e6-8f2d0b9c7e11', cwd: '/srv/notes' },
    read: { tool: 'Read', input: { file_path: '/srv/notes/build.log' }, sessionId: 'c0a8e2f4-1b7d-4c39-a5e6-8f2d0b9c7e11', cwd: '/srv/notes' },
    'tool-read': { tool: 'Read', input: { file_path: '/srv/notes/build.log' }, sessionId: 'c0a8e2f4-1b7d-4c39-a5e6-8f2d0b9c7e11', cwd: '/srv/notes' },
    // Cursor names no MCP server: no `mcp`, so no tool of any server passes for plangate's own.
    mcp: { tool: 'MCP:merge_pull_request', input: { owner: 'acme', repo: 'notes', pullNumber: 42 }, sessionId: 'c0a8e2f4-1b7d-4c39-a5e6-8f2d0b9c7e11' },
    plan: { tool: 'MCP:plangate_say', input: PLAN, sessionId: 'c0a8e2f4-1b7d-4c39-a5e6-8f2d0b9c7e11' },
  },
  copilot: {
    shell: { tool: 'bash', input: { command: 'git push origin main', description: 'Push the release branch' }, sessionId: '5c9e1a3b-7d2f-4b80-a6e4-1f3d5b7c9e02', cwd: '/srv/notes' },
    write: { tool: 'create', input: { path: '/srv/notes/summary.md', file_text: '# Summary\n\nThe release went out on Tuesday.\n' }, sessionId: '5c9e1a3b-7d2f-4b80-a6e4-1f3d5b7c9e02', cwd: '/srv/notes' },
    read: { tool: 'view', input: { path: '/srv/notes/build.log' }, sessionId: '5c9e1a3b-7d2f-4b80-a6e4-1f3d5b7c9e02', cwd: '/srv/notes' },
    mcp: { tool: 'github-merge_pull_request', mcp: { server: 'github', tool: 'merge_pull_request' }, input: { owner: 'acme', repo: 'notes', pullNumber: 42 }, sessionId: '5c9e1a3b-7d2f-4b80-a6e4-1f3d5b7c9e02' },
    plan: { tool: 'plangate-plangate_say', mcp: { server: 'plangate', tool: 'plangate_say' }, input: PLAN, sessionId: '5c9e1a3b-7d2f-4b80-a6e4-1f3d5b7c9e02' },
  },
  windsurf: {
    shell: { tool: 'run_command', input: { command_line: 'git push origin main' }, sessionId: '8e2b4d6f-0a1c-4e3b-9d5f-7a9c1e3b5d70', cwd: '/srv/notes' },
    write: { tool: 'write_code', input: { file_path: '/srv/notes/summary.md', edits: [{ old_string: '', new_string: '# Summary\n\nThe release went out on Tuesday.\n' }] }, sessionId: '8e2b4d6f-0a1c-4e3b-9d5f-7a9c1e3b5d70' },
    read: { tool: 'read_code', input: { file_path: '/srv/notes/build.log' }, sessionId: '8e2b4d6f-0a1c-4e3b-9d5f-7a9c1e3b5d70' },
    mcp: { tool: 'mcp__github__merge_pull_request', mcp: { server: 'github', tool: 'merge_pull_request' }, input: { owner: 'acme', repo: 'notes', pullNumber: 42 }, sessionId: '8e2b4d6f-0a1c-4e3b-9d5f-7a9c1e3b5d70' },
    plan: { tool: 'mcp__plangate__plangate_say', mcp: { server: 'plangate', tool: 'plangate_say' }, input: PLAN, sessionId: '8e2b4d6f-0a1c-4e3b-9d5f-7a9c1e3b5d70' },
  },
  cline: {
    shell: { tool: 'execute_command', input: { command: 'git push origin main', requires_approval: 'true' }, sessionId: '1764843690112', cwd: '/srv/notes' },
    write: { tool: 'write_to_file', input: { path: 'summary.md', content: '# Summary\n\nThe release went out on Tuesday.\n' }, sessionId: '1764843690112', cwd: '/srv/notes' },
    read: { tool: 'read_file', input: { path: 'build.log' }, sessionId: '1764843690112', cwd: '/srv/notes' },
    mcp: { tool: 'github__merge_pull_request', mcp: { server: 'github', tool: 'merge_pull_request' }, input: { owner: 'acme', repo: 'notes', pullNumber: '42' }, sessionId: '1764843690112' },
    plan: { tool: 'plangate__plangate_say', mcp: { server: 'plangate', tool: 'plangate_say' }, input: PLAN, sessionId: '1764843690112' },
    'use-mcp-tool': { tool: 'plangate__plangate_say', mcp: { server: 'plangate', tool: 'plangate_say' }, input: PLAN, sessionId: '1764843690112' },
  },
};

const CONTRACTS: Record<string, HostContract> = { codex, 'gemini-cli': geminiCli, cursor, copilot, windsurf, cline };

describe('host contracts: reading recorded payloads', () => {
  for (const [host, cases] of Object.entries(READS)) {
    const contract = CONTRACTS[host]!;
    it(`${host}: reads the shell, write, read, MCP and plan payloads`, () => {
      for (const [name, expected] of Object.entries(cases)) {
        expect(contract.read(payload(host, name)), `${host}/${name}`).toEqual(expected);
      }
    });

    it(`${host}: each of its payloads is recognised as ${host} and no other host's`, () => {
      const files = readdirSync(join(PAYLOADS, host)).filter((f) => f.endsWith('.json'));
      expect(files.length).toBeGreaterThanOrEqual(5);
      for (const file of files) {
        const doc = JSON.parse(readFileSync(join(PAYLOADS, host, file), 'utf8')) as Record<string, unknown>;
        expect(recognise(doc)?.name, `${host}/${file}`).toBe(host);
      }
    });

    it(`${host}: its garbage payload is not JSON a host could have sent`, () => {
      // The pipeline refuses a payload it cannot parse in the host's blocking shape; it never reaches read().
      expect(() => JSON.parse(readFileSync(join(PAYLOADS, host, 'garbage.txt'), 'utf8'))).toThrow();
    });
  }

  it("recognises none of Claude Code's payloads (that contract is not one of these six)", () => {
    for (const file of readdirSync(PAYLOADS).filter((f) => f.endsWith('.json'))) {
      const doc = JSON.parse(readFileSync(join(PAYLOADS, file), 'utf8')) as Record<string, unknown>;
      for (const contract of Object.values(CONTRACTS)) expect(contract.recognises(doc), `${contract.name} on ${file}`).toBe(false);
    }
  });

  it('registers the six hosts by their --format names', () => {
    expect(Object.keys(HOSTS)).toEqual(expect.arrayContaining(['cline', 'codex', 'copilot', 'cursor', 'gemini-cli', 'windsurf']));
    for (const [name, contract] of Object.entries(HOSTS)) {
      expect(contract.name).toBe(name);
      expect(contract.source).toMatch(/\S{10}/);
    }
  });
});

describe('host contracts: malformed payloads are named, never guessed', () => {
  it('codex', () => {
    invalid(() => codex.read({ ...payload('codex', 'shell'), tool_name: '' }), /codex.*tool_name is missing/);
    invalid(() => codex.read({ ...payload('codex', 'shell'), tool_input: 'rm -rf /' }), /tool_input is not an object/);
    invalid(() => codex.read({ ...payload('codex', 'shell'), cwd: 'srv/notes' }), /cwd is not an absolute path/);
    invalid(() => codex.read({ ...payload('codex', 'shell'), hook_event_name: 'PostToolUse' }), /hook_event_name is "PostToolUse"/);
    invalid(() => codex.read({ ...payload('codex', 'shell'), tool_name: 'x'.repeat(600) }), /longer than 512/);
  });

  it('gemini-cli', () => {
    invalid(() => geminiCli.read({ ...payload('gemini-cli', 'mcp'), mcp_context: 'github' }), /mcp_context is not an object/);
    invalid(() => geminiCli.read({ ...payload('gemini-cli', 'mcp'), mcp_context: { tool_name: 'merge_pull_request' } }), /mcp_context.server_name is missing/);
    invalid(() => geminiCli.read({ ...payload('gemini-cli', 'shell'), hook_event_name: 'AfterTool' }), /plangate answers BeforeTool/);
  });

  it('cursor', () => {
    invalid(() => cursor.read({ ...payload('cursor', 'mcp'), tool_input: '{"owner":' }), /tool_input is not JSON/);
    invalid(() => cursor.read({ ...payload('cursor', 'mcp'), tool_input: '[1,2]' }), /tool_input is not a JSON object/);
    invalid(() => cursor.read({ ...payload('cursor', 'shell'), command: 42 }), /command is missing/);
    invalid(() => cursor.read({ ...payload('cursor', 'shell'), hook_event_name: 'afterShellExecution' }), /plangate answers preToolUse/);
    invalid(() => cursor.read({ ...payload('cursor', 'write'), workspace_roots: '/srv/notes' }), /workspace_roots is not an array/);
    invalid(() => cursor.read({ ...payload('cursor', 'mcp'), tool_input: `"${'x'.repeat(1024 * 1024 + 1)}"` }), /longer than/);
  });

  it('copilot', () => {
    invalid(() => copilot.read({ ...payload('copilot', 'shell'), toolArgs: '{"command":' }), /toolArgs is not JSON/);
    invalid(() => copilot.read({ ...payload('copilot', 'shell'), toolName: 7 }), /toolName is missing/);
    // The PascalCase (VS Code-compatible) form has other fields: named, not half-read.
    invalid(() => copilot.read({ ...payload('copilot', 'shell'), hook_event_name: 'PreToolUse' }), /configure the event as preToolUse/);
  });

  it('windsurf', () => {
    invalid(() => windsurf.read({ ...payload('windsurf', 'shell'), agent_action_name: 'pre_user_prompt' }), /plangate answers pre_run_command/);
    invalid(() => windsurf.read({ ...payload('windsurf', 'shell'), tool_info: ['git push'] }), /tool_info is not an object/);
    invalid(() => windsurf.read({ ...payload('windsurf', 'write'), tool_info: { file_path: 'a.txt', edits: 'all of it' } }), /edits is not an array/);
    invalid(() => windsurf.read({ ...payload('windsurf', 'mcp'), tool_info: { mcp_tool_name: 'merge_pull_request' } }), /mcp_server_name is missing/);
  });

  it('cline', () => {
    invalid(() => cline.read({ ...payload('cline', 'shell'), preToolUse: 'execute_command' }), /preToolUse is not an object/);
    invalid(() => cline.read({ ...payload('cline', 'shell'), hookName: 'PostToolUse' }), /plangate answers PreToolUse/);
    invalid(() => cline.read({ ...payload('cline', 'use-mcp-tool'), preToolUse: { toolName: 'use_mcp_tool', parameters: { server_name: 'plangate', tool_name: 'plangate_say', arguments: '{' } } }), /arguments is not JSON/);
  });
});

describe('host contracts: names that must not pass for plangate\'s own tool', () => {
  it('copilot reads `<server>-<tool>` only when the split is unambiguous', () => {
    // `a-plangate-plangate_say` could be server `a` with tool `plangate-plangate_say` or server `a-plangate`: no mcp at all.
    const ambiguous = copilot.read({ ...payload('copilot', 'plan'), toolName: 'a-plangate-plangate_say' });
    expect(ambiguous.mcp).toBeUndefined();
    expect(ambiguous.cwd).toBeUndefined(); // still an MCP server's tool: not resolved in Copilot's directory
    expect(copilot.read({ ...payload('copilot', 'shell') }).mcp).toBeUndefined();
  });

  it('cline and codex split at the first separator, so another server cannot end its tool in __plangate_say and pass', () => {
    expect(cline.read({ ...payload('cline', 'plan'), preToolUse: { toolName: 'evil__plangate__plangate_say', parameters: {} } }).mcp).toEqual({ server: 'evil', tool: 'plangate__plangate_say' });
    expect(codex.read({ ...payload('codex', 'plan'), tool_name: 'mcp__evil__plangate__plangate_say' }).mcp).toEqual({ server: 'evil', tool: 'plangate__plangate_say' });
  });

  it("gemini-cli takes the server from mcp_context, not from the tool's name", () => {
    const doc = { ...payload('gemini-cli', 'plan'), mcp_context: { server_name: 'evil', tool_name: 'plangate_say' } };
    expect(geminiCli.read(doc).mcp).toEqual({ server: 'evil', tool: 'plangate_say' });
  });
});

describe('host contracts: the reply that blocks, and the one that lets the call go', () => {
  const stderr = `${REASON}\n`;

  it('codex: hookSpecificOutput deny, and exit 2 with the reason on stderr', () => {
    expect(codex.refuse(REASON)).toEqual({ stdout: `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: REASON } })}\n`, stderr, exitCode: 2 });
    // Codex rejects allow without updatedInput and suppressOutput: nothing is the only safe allow, grant or not.
    expect(codex.allow('plangate: no check refuses this call', false)).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect(codex.allow('plangate: no check refuses this call', true)).toEqual({ stdout: '', stderr: '', exitCode: 0 });
  });

  it('gemini-cli: a top-level decision deny with its reason, and exit 2 with the reason on stderr', () => {
    expect(geminiCli.refuse(REASON)).toEqual({ stdout: `${JSON.stringify({ decision: 'deny', reason: REASON })}\n`, stderr, exitCode: 2 });
    expect(geminiCli.allow('note', true)).toEqual({ stdout: '', stderr: '', exitCode: 0 });
  });

  it('cursor: permission deny with the reason for user and agent, and exit 2; an allowed call says allow (failClosed blocks an answer without one)', () => {
    expect(cursor.refuse(REASON)).toEqual({ stdout: `${JSON.stringify({ permission: 'deny', user_message: REASON, agent_message: REASON })}\n`, stderr, exitCode: 2 });
    expect(cursor.allow('note', false)).toEqual({ stdout: '{"permission":"allow"}\n', stderr: '', exitCode: 0 });
  });

  it('copilot: a top-level permissionDecision deny with exit 0 (exit 2 only warns in Copilot)', () => {
    expect(copilot.refuse(REASON)).toEqual({ stdout: `${JSON.stringify({ permissionDecision: 'deny', permissionDecisionReason: REASON })}\n`, stderr: '', exitCode: 0 });
    expect(copilot.allow('note', false)).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect(copilot.allow('note', true)).toEqual({ stdout: `${JSON.stringify({ permissionDecision: 'allow', permissionDecisionReason: 'note' })}\n`, stderr: '', exitCode: 0 });
  });

  it('windsurf: exit 2 with the reason on stderr, nothing on stdout', () => {
    expect(windsurf.refuse(REASON)).toEqual({ stdout: '', stderr, exitCode: 2 });
    expect(windsurf.allow('note', true)).toEqual({ stdout: '', stderr: '', exitCode: 0 });
  });

  it('cline: cancel with the errorMessage, and exit 2 with the reason on stderr', () => {
    expect(cline.refuse(REASON)).toEqual({ stdout: `${JSON.stringify({ cancel: true, errorMessage: REASON })}\n`, stderr, exitCode: 2 });
    expect(cline.allow('note', false)).toEqual({ stdout: '{"cancel":false}\n', stderr: '', exitCode: 0 });
  });

  it('never refuses with an empty reason (hosts drop it, and Codex will not block on one)', () => {
    for (const contract of Object.values(CONTRACTS)) {
      const reply = contract.refuse('   ');
      expect(`${reply.stdout}${reply.stderr}`, contract.name).toContain('refused by plangate');
    }
  });
});
