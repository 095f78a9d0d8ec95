/**
 * Cursor's plan path as `plangate init --hook cursor` sets it up: the hook
 * commands init writes into .cursor/hooks.json run as Cursor runs them (a
 * shell, the payload on stdin), with payloads in Cursor's shapes, and the
 * plan posted through the MCP server init writes into .cursor/mcp.json,
 * started from that entry with the SDK's client. One MCP call reaches both
 * hooks (preToolUse names it `MCP:<tool>`, beforeMCPExecution names its
 * server by its command): refused effect → plan posted → allowed; a
 * plangate_say on another server refused; garbage refused; and with only
 * the preToolUse line, MCP calls are still decided (never let through).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { cursor } from '../../src/adapters/hook/hosts/cursor.js';
import { commandWords, isPlangateMcpHook, mcpHookConfigured } from '../../src/adapters/hook/hosts/cursor-hooks-file.js';
import { MCP_VIA_NOTE } from '../../src/adapters/hook/options.js';
import { OWN_TOOL_NOTE, ALLOWED_NOTE } from '../../src/adapters/hook/pretooluse.js';
import type { HookReply } from '../../src/adapters/hook/contract.js';
import { cli, tempDir } from '../cli/run.js';
import { CLI_CHILD } from '../mcp/support.js';
import { recorded } from './flow.js';

const SEAT = '0xWORKER';
const TSX = import.meta.resolve('tsx');

interface World { root: string; bin: string; project: string; home: string; rules: string; store: string; audit: string }

/** A project with an installed `plangate` on the PATH (this checkout, run from its sources). */
function world(): World {
  const root = tempDir('plangate-cursor-');
  const w = { root, bin: join(root, 'bin'), project: join(root, 'project'), home: join(root, 'home'), rules: join(root, 'rules'), store: join(root, 'store.db'), audit: join(root, 'audit.jsonl') };
  for (const dir of [w.bin, w.project, w.home]) mkdirSync(dir);
  writeFileSync(join(w.bin, 'plangate'), `#!/bin/sh\nexec '${process.execPath}' --import '${TSX}' '${CLI_CHILD}' "$@"\n`, { mode: 0o755 });
  return w;
}

const env = (w: World) => ({ PATH: `${w.bin}:/usr/bin:/bin`, HOME: w.home });

async function initCursor(w: World): Promise<void> {
  const r = await cli(['--rules', w.rules, '--store', w.store, '--audit', w.audit, 'init', '--hook', 'cursor', '--agent', SEAT, '--project', w.project], env(w));
  expect(r.status, r.out + r.err).toBe(0);
  writeFileSync(join(w.rules, 'plan.yaml'), 'planRequired:\n  workspace: { mode: side_effects, windowMin: 10 }\n');
}

function settings(w: World, file: string): Record<string, any> {
  return JSON.parse(readFileSync(join(w.project, '.cursor', file), 'utf8')) as Record<string, any>;
}

/** Runs a hook command as Cursor does: through a shell, in the project, the payload on stdin. */
function run(w: World, command: string, payload: string): HookReply {
  const r = spawnSync('sh', ['-c', command], { input: payload, cwd: w.project, env: env(w), encoding: 'utf8' });
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.status ?? -1 };
}

/** A recorded Cursor payload, in this project. */
function payload(w: World, name: string, change: Record<string, unknown> = {}): string {
  return JSON.stringify({ ...JSON.parse(recorded('cursor', name)), workspace_roots: [w.project], ...change });
}

/** preToolUse for an MCP tool, as Cursor names it: `MCP:<tool>`, the input an object, no server. */
function preToolUseMcp(w: World, tool: string, input: Record<string, unknown>): string {
  return payload(w, 'write.json', { tool_name: `MCP:${tool}`, tool_input: input, tool_use_id: `tool_${tool}` });
}

/** beforeMCPExecution for the same call: the bare name, the input as a JSON string, the server's command or URL. */
function beforeMcp(w: World, tool: string, input: Record<string, unknown>, server: { command: string } | { url: string }): string {
  const { command: _command, ...base } = JSON.parse(payload(w, 'plan.json')) as Record<string, unknown>;
  return JSON.stringify({ ...base, tool_name: tool, tool_input: JSON.stringify(input), ...server });
}

function expectRefused(reply: HookReply, pattern: RegExp): void {
  const reason = reply.stderr.trim();
  expect(reason, JSON.stringify(reply)).toMatch(pattern);
  expect(reply).toEqual(cursor.refuse(reason));
}

/** Posts the plan through plangate's MCP server, started from its entry in .cursor/mcp.json as Cursor starts it. */
async function postPlan(w: World, body: string): Promise<CallToolResult> {
  const entry = settings(w, 'mcp.json').mcpServers.plangate as { command: string; args: string[] };
  const client = new Client({ name: 'cursor', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, env: env(w), cwd: w.project, stderr: 'pipe' }));
  try {
    return await client.callTool({ name: 'plangate_say', arguments: { body } }) as CallToolResult;
  } finally {
    await client.close();
  }
}

describe("Cursor's plan path through the hooks plangate init writes", () => {
  it('refused effect → plan posted through the plan tool (both events of one MCP call) → allowed; another server, garbage refused', async () => {
    const w = world();
    await initCursor(w);
    const hooks = settings(w, 'hooks.json').hooks;
    const toolHook = hooks.preToolUse[0].command as string;
    const mcpHook = hooks.beforeMCPExecution[0].command as string;
    const server = settings(w, 'mcp.json').mcpServers.plangate as { command: string; args: string[] };
    // What Cursor reports as the command of a server it launches: the entry's command and arguments joined by spaces.
    const plangateServer = { command: [server.command, ...server.args].join(' ') };
    const say = { body: 'Write the release summary to summary.md, then push it.' };
    const write = payload(w, 'write.json');

    expectRefused(run(w, toolHook, write), /^plan_required:Write:none/);
    expectRefused(run(w, toolHook, payload(w, 'shell.json', { hook_event_name: 'preToolUse', tool_name: 'Shell', tool_input: { command: 'git push' }, tool_use_id: 't1' })), /^plan_required:Shell:none/);

    // Another server's MCP tool: preToolUse leaves it to beforeMCPExecution, which refuses it.
    const merge = { owner: 'acme', repo: 'notes', pullNumber: 42 };
    expect(run(w, toolHook, preToolUseMcp(w, 'merge_pull_request', merge))).toEqual(cursor.allow(MCP_VIA_NOTE, false));
    expectRefused(run(w, mcpHook, beforeMcp(w, 'merge_pull_request', merge, { url: 'https://api.githubcopilot.com/mcp/' })), /^plan_required:MCP:merge_pull_request:none/);
    // A plangate_say on any other server is an ordinary tool.
    for (const other of [{ command: 'npx -y other-mcp' }, { command: `${plangateServer.command} --extra` }, { url: 'http://127.0.0.1:7070/mcp' }]) {
      expectRefused(run(w, mcpHook, beforeMcp(w, 'plangate_say', say, other)), /^plan_required:MCP:plangate_say:none/);
    }
    // Garbage, to either hook: refused in Cursor's blocking shape.
    for (const hook of [toolHook, mcpHook]) {
      expectRefused(run(w, hook, recorded('cursor', 'garbage.txt')), /plangate could not decide this call/);
      expectRefused(run(w, hook, JSON.stringify({ hook_event_name: 'preToolUse', conversation_id: 'c', tool_name: 7 })), /plangate could not decide this call.*tool_name is missing/);
    }

    // plangate's own plan tool on plangate's server: both events let it through, and the server posts the plan.
    expect(run(w, toolHook, preToolUseMcp(w, 'plangate_say', say))).toEqual(cursor.allow(MCP_VIA_NOTE, false));
    expect(run(w, mcpHook, beforeMcp(w, 'plangate_say', say, plangateServer))).toEqual(cursor.allow(OWN_TOOL_NOTE, false));
    expect((await postPlan(w, say.body)).isError).not.toBe(true);

    expect(run(w, toolHook, write)).toEqual(cursor.allow(ALLOWED_NOTE, false));
  }, 180_000);

  it('with only the preToolUse line (no beforeMCPExecution hook for the seat), MCP calls are decided there, never let through', async () => {
    const w = world();
    await initCursor(w);
    const full = settings(w, 'hooks.json');
    const toolHook = full.hooks.preToolUse[0].command as string;
    const partner = full.hooks.beforeMCPExecution[0] as Record<string, unknown>;
    const say = { body: 'Write the release summary.' };
    const onlyToolHook = (extra: Record<string, unknown> = {}) => writeFileSync(join(w.project, '.cursor', 'hooks.json'), JSON.stringify({ version: 1, hooks: { preToolUse: full.hooks.preToolUse, ...extra } }));

    onlyToolHook();
    expectRefused(run(w, toolHook, preToolUseMcp(w, 'plangate_say', say)), /^plan_required:MCP:plangate_say:none/);
    expectRefused(run(w, toolHook, preToolUseMcp(w, 'merge_pull_request', {})), /^plan_required:MCP:merge_pull_request:none/);
    // An entry that would not gate every MCP call of this seat, or would let it through when it fails, does not count.
    for (const weak of [{ ...partner, failClosed: false }, { ...partner, failClosed: undefined }, { ...partner, matcher: 'github' }, { ...partner, command: (partner['command'] as string).replace(SEAT, '0xOTHER') }]) {
      onlyToolHook({ beforeMCPExecution: [weak] });
      expectRefused(run(w, toolHook, preToolUseMcp(w, 'merge_pull_request', {})), /^plan_required:MCP:merge_pull_request:none/);
    }
    // The user's own hooks file counts too (Cursor runs it for every project).
    onlyToolHook();
    mkdirSync(join(w.home, '.cursor'));
    writeFileSync(join(w.home, '.cursor', 'hooks.json'), JSON.stringify({ version: 1, hooks: { beforeMCPExecution: [partner] } }));
    expect(run(w, toolHook, preToolUseMcp(w, 'merge_pull_request', {}))).toEqual(cursor.allow(MCP_VIA_NOTE, false));

    // Once a plan is posted, an MCP call decided in preToolUse is allowed, and the operator is told why it was decided there.
    writeFileSync(join(w.home, '.cursor', 'hooks.json'), '{}');
    expect((await postPlan(w, say.body)).isError).not.toBe(true);
    const after = run(w, toolHook, preToolUseMcp(w, 'merge_pull_request', {}));
    expect(after.exitCode).toBe(0);
    expect(JSON.parse(after.stdout)).toEqual({ permission: 'allow' });
    expect(after.stderr).toMatch(/--mcp-via beforeMCPExecution, but no plangate beforeMCPExecution hook for 0xWORKER with failClosed in .*\.cursor\/hooks\.json.*; MCP:merge_pull_request is decided here/);
  }, 180_000);

  it('--mcp-via takes one event and only for Cursor: anything else refuses the call as misconfigured', async () => {
    const w = world();
    await initCursor(w);
    const call = preToolUseMcp(w, 'plangate_say', { body: 'x' });
    const base = `plangate --rules ${w.rules} --store ${w.store} --audit ${w.audit} hook --agent ${SEAT}`;
    expectRefused(run(w, `${base} --format cursor --mcp-via beforeShellExecution`, call), /plangate could not decide this call.*--mcp-via: "beforeShellExecution"/);
    expectRefused(run(w, `${base} --mcp-via beforeMCPExecution`, call), /plangate could not decide this call.*give --format cursor/);
  }, 120_000);
});

describe("Cursor's preToolUse, read", () => {
  const doc = (change: Record<string, unknown>) => ({ ...JSON.parse(recorded('cursor', 'write.json')) as Record<string, unknown>, ...change });
  it('marks an MCP tool as one whose server is not named, with the workspace roots; no other tool', () => {
    expect(cursor.read(doc({ tool_name: 'MCP:plangate_say', tool_input: { body: 'x' }, workspace_roots: ['/srv/a', '/srv/b'] }))).toEqual({ tool: 'MCP:plangate_say', input: { body: 'x' }, mcpUnnamed: true, roots: ['/srv/a', '/srv/b'], sessionId: 'c0a8e2f4-1b7d-4c39-a5e6-8f2d0b9c7e11' });
    const write = cursor.read(doc({}));
    expect(write.mcpUnnamed).toBeUndefined();
    expect(write.mcp ?? write.mcpEndpoint).toBeUndefined();
    expect(() => cursor.read(doc({ tool_name: 'MCP:x', workspace_roots: ['/srv/a', 'relative'] }))).toThrow(/workspace_roots\[1\] is not an absolute path/);
  });
});

describe("the beforeMCPExecution entry that counts as plangate's", () => {
  const command = `plangate --rules /srv/rules hook --format cursor --agent ${SEAT} --plangate-server-command 'plangate mcp'`;
  it('is plangate launched for Cursor and this seat, failing closed, for every MCP tool', () => {
    expect(isPlangateMcpHook({ command, failClosed: true }, SEAT)).toBe(true);
    expect(isPlangateMcpHook({ command: `/usr/bin/node /opt/plangate/bin/plangate.js hook --format cursor --agent ${SEAT}`, failClosed: true }, SEAT)).toBe(true);
    for (const entry of [
      { command, failClosed: 'true' },
      { command, failClosed: true, matcher: '.*' },
      { command: `echo ${command}`, failClosed: true },
      { command: `true # ${command}`, failClosed: true },
      { command: command.replace('cursor', 'claude-code'), failClosed: true },
      { command: command.replace(SEAT, `${SEAT}X`), failClosed: true },
      // The seat named only inside another option's value, or the hook's own seat overridden by a later one.
      { command: `plangate hook --format cursor --plangate-server-command 'plangate mcp --agent ${SEAT}'`, failClosed: true },
      { command: `${command} --agent 0xOTHER`, failClosed: true },
      { command: `plangate hook --format cursor --agent ${SEAT} "unclosed`, failClosed: true },
      { command: 7, failClosed: true },
      'plangate hook',
    ]) expect(isPlangateMcpHook(entry, SEAT), JSON.stringify(entry)).toBe(false);
  });

  it('is read from the command line as a shell reads plain words, and from nothing more', () => {
    expect(commandWords(`a  'b c' "d e"f g=h`)).toEqual(['a', 'b c', 'd ef', 'g=h']);
    expect(commandWords(`plangate hook ''`)).toEqual(['plangate', 'hook', '']);
    for (const line of ['a; b', 'a | b', 'a && b', 'a $X', 'a `b`', 'a > f', 'a # c', 'a "$X"', "a 'b", 'a\\ b']) expect(commandWords(line), line).toBeUndefined();
  });

  it('is looked for in each workspace root and the user file; a file that is not a hooks file counts as none', () => {
    const root = tempDir('plangate-cursor-file-');
    const [a, b, home] = ['a', 'b', 'home'].map((d) => join(root, d)) as [string, string, string];
    for (const d of [a, b, home]) mkdirSync(join(d, '.cursor'), { recursive: true });
    writeFileSync(join(a, '.cursor', 'hooks.json'), '{ not json');
    writeFileSync(join(home, '.cursor', 'hooks.json'), JSON.stringify({ hooks: { beforeMCPExecution: 'x' } }));
    const none = mcpHookConfigured([a, b, 'relative'], SEAT, home);
    expect(none.found).toBe(false);
    expect(none.looked).toEqual(expect.arrayContaining([join(a, '.cursor', 'hooks.json'), join(b, '.cursor', 'hooks.json'), join(home, '.cursor', 'hooks.json')]));
    expect(none.looked.some((f) => f.startsWith('relative'))).toBe(false);
    writeFileSync(join(b, '.cursor', 'hooks.json'), JSON.stringify({ version: 1, hooks: { beforeMCPExecution: [{ command: './audit.sh' }, { command, failClosed: true }] } }));
    expect(mcpHookConfigured([a, b], SEAT, home).found).toBe(true);
  });
});
