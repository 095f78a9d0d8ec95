/**
 * Harnesses for a host's hook, shared by every host's tests: run a recorded
 * payload through `plangate hook --format HOST` (a child process, as the
 * host runs it) or `POST /v1/hooks/HOST`, post a plan through `plangate mcp
 * --plangate-tools-only` with the SDK's client, and the plan-path flow
 * (refused → plan posted through the plan tool → allowed) in any host's
 * contract.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import type { HttpApp } from '../../src/adapters/http/app.js';
import { HOOK_EXIT_HEADER, HOOK_STDERR_HEADER } from '../../src/adapters/http/routes/hooks.js';
import type { HookReply, HostContract } from '../../src/adapters/hook/contract.js';
import { ALLOWED_NOTE, OWN_TOOL_NOTE } from '../../src/adapters/hook/pretooluse.js';
import { CLI_CHILD, type World } from '../mcp/support.js';

/** Runs one payload through a hook and gives its reply. */
export type HookRun = (payload: string) => Promise<HookReply>;

export const PAYLOADS = join(import.meta.dirname, 'payloads');

/**
 * A host's recorded payload, by file name (`test/hook/payloads/<host>/<name>`).
 *
 * @example
 * recorded('claude-code', 'write.json')
 */
export function recorded(host: string, name: string): string {
  return readFileSync(join(PAYLOADS, host, name), 'utf8');
}

/** The CLI's global options for a world. */
export function globalOptions(w: World): string[] {
  return ['--rules', w.rules, '--store', w.store, '--audit', w.audit];
}

/** `plangate hook --agent SEAT --format HOST …` as a child process, the payload on stdin. */
export function cliHook(w: World, host: string | undefined, seat = '0xWORKER', ...args: string[]): HookRun {
  return async (payload) => {
    const format = host !== undefined ? ['--format', host] : [];
    const r = spawnSync(process.execPath, ['--import', 'tsx', CLI_CHILD, ...globalOptions(w), 'hook', '--agent', seat, ...format, ...args], { input: payload, encoding: 'utf8' });
    return { stdout: r.stdout, stderr: r.stderr, exitCode: r.status ?? -1 };
  };
}

/** The reply an HTTP answer carries: its body, and the exit code and stderr headers. */
export function replyOf(answer: { status: number; headers: Record<string, string>; text: string }): HookReply {
  expect(answer.status, answer.text).toBe(200);
  const stderr = answer.headers[HOOK_STDERR_HEADER];
  return { stdout: answer.text, stderr: stderr === undefined ? '' : Buffer.from(stderr, 'base64').toString('utf8'), exitCode: Number(answer.headers[HOOK_EXIT_HEADER]) };
}

/** `POST /v1/hooks/HOST` on an in-process app, with an agent token. */
export function httpHook(app: HttpApp, host: string, token: string, query = ''): HookRun {
  return async (payload) => replyOf(await app.request('POST', `/v1/hooks/${host}${query}`, { token, body: payload, headers: { 'content-type': 'application/json' } }));
}

/** Calls plangate's plan tool through `plangate mcp --plangate-tools-only`, as the host's MCP client would. */
export async function sayThroughMcp(w: World, seat: string, body: string): Promise<CallToolResult> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', CLI_CHILD, ...globalOptions(w), 'mcp', '--agent', seat, '--plangate-tools-only'],
    stderr: 'pipe',
  });
  const client = new Client({ name: 'host', version: '1.0.0' });
  await client.connect(transport);
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(['plangate_say', 'plangate_submit_plan']);
    return await client.callTool({ name: 'plangate_say', arguments: { body } }) as CallToolResult;
  } finally {
    await client.close();
  }
}

/**
 * The plan path in one host: the effect is refused (plan_required, in the
 * host's blocking shape), the host's call of plangate's plan tool passes
 * the hook untouched, the plan is posted, and the effect is then left to
 * the host (the contract's allow, no grant).
 *
 * @example
 * await planPathFlow(claudeCode, { effect: recorded('claude-code', 'write.json'), plan: recorded('claude-code', 'plan.json') }, cliHook(w, 'claude-code'), post);
 */
export async function planPathFlow(contract: HostContract, payloads: { effect: string; plan: string }, run: HookRun, postPlan: () => Promise<void>): Promise<void> {
  const effect = JSON.parse(payloads.effect) as Record<string, unknown>;
  const plan = JSON.parse(payloads.plan) as Record<string, unknown>;
  const allowed = contract.allow(ALLOWED_NOTE, false, effect);
  const refused = await run(payloads.effect);
  expect(refused, 'the effect before a plan').not.toEqual(allowed);
  expect(JSON.stringify(refused)).toMatch(/plan_required:[^"]*:none/);
  expect(await run(payloads.plan), "the host's call of plangate's plan tool").toEqual(contract.allow(OWN_TOOL_NOTE, false, plan));
  await postPlan();
  expect(await run(payloads.effect), 'the effect after the plan').toEqual(allowed);
}
