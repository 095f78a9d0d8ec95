/**
 * Claude Code's PreToolUse hook, end to end, with payloads recorded in its
 * published shape (test/hook/payloads/claude-code): through `plangate hook
 * --format claude-code` (a child process, as Claude Code runs a command
 * hook) and through `POST /v1/hooks/claude-code` (as its `type: "http"`
 * hook posts), each answer asserted exactly.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createHttpApp, type HttpApp } from '../../src/adapters/http/app.js';
import { createTokenSet } from '../../src/adapters/http/auth.js';
import { httpOptionsFrom } from '../../src/adapters/http/plangate.js';
import type { HookReply } from '../../src/adapters/hook/contract.js';
import { claudeCode, claudeDeny } from '../../src/adapters/hook/hosts/claude-code.js';
import { openPlangate, type Plangate } from '../../src/main/open.js';
import { TOKEN_ENTRIES, TOKENS } from '../http/support.js';
import { makeWorld, type World } from '../mcp/support.js';
import { cliHook, httpHook, planPathFlow, recorded, sayThroughMcp, type HookRun } from './flow.js';

const RULES = `
planRequired:
  workspace: { mode: side_effects, windowMin: 10 }
tools:
  read: [Read, Grep, Glob]
`;

const HOST = 'claude-code';
const LEFT_TO_HOST: HookReply = { stdout: '{"hookSpecificOutput":{"hookEventName":"PreToolUse"},"suppressOutput":true}\n', stderr: '', exitCode: 0 };

function denied(reason: string): HookReply {
  return { stdout: `${JSON.stringify(claudeDeny(reason))}\n`, stderr: '', exitCode: 0 };
}

/** The reason of a Claude Code deny, checked against the whole reply. */
function reasonOf(reply: HookReply): string {
  const reason = (JSON.parse(reply.stdout) as { hookSpecificOutput: { permissionDecisionReason: string } }).hookSpecificOutput.permissionDecisionReason;
  expect(reply).toEqual(denied(reason));
  return reason;
}

function withTool(payload: string, tool: string): string {
  return JSON.stringify({ ...JSON.parse(payload), tool_name: tool });
}

const pgs: Plangate[] = [];
afterAll(async () => {
  for (const pg of pgs) await pg.close();
});

async function serveWorld(w: World): Promise<HttpApp> {
  const pg = await openPlangate({ rules: w.rules, store: w.store, audit: w.audit, log: () => {} });
  pgs.push(pg);
  return createHttpApp({ ...httpOptionsFrom(pg), tokens: createTokenSet(TOKEN_ENTRIES), onError: () => {} });
}

describe("Claude Code's hook, on the command line and over HTTP", () => {
  it('answers each recorded payload exactly, the same through both', async () => {
    const w = makeWorld(RULES);
    const app = await serveWorld(w);
    const runs: Record<string, HookRun> = { cli: cliHook(w, HOST), http: httpHook(app, HOST, TOKENS.worker) };
    for (const [via, run] of Object.entries(runs)) {
      expect(reasonOf(await run(recorded(HOST, 'shell.json'))), via).toMatch(/^plan_required:Bash:none - /);
      expect(reasonOf(await run(recorded(HOST, 'write.json'))), via).toMatch(/^plan_required:Write:none - /);
      expect(reasonOf(await run(recorded(HOST, 'mcp-call.json'))), via).toMatch(/^plan_required:mcp__github__merge_pull_request:none - /);
      expect(await run(recorded(HOST, 'read.json')), via).toEqual(LEFT_TO_HOST);
      expect(await run(recorded(HOST, 'plan.json')), via).toEqual(LEFT_TO_HOST);
      expect(await run(recorded(HOST, 'garbage.txt')), via).toEqual(denied('plangate could not decide this call, so it is refused: plangate hook: the payload is not JSON'));
    }
    for (const name of ['shell.json', 'write.json', 'read.json', 'mcp-call.json', 'plan.json', 'garbage.txt']) {
      expect(await runs['http']!(recorded(HOST, name)), name).toEqual(await runs['cli']!(recorded(HOST, name)));
    }
    // Counted once per call, by door and outcome: 3 refused and 3 left to the host (plan.json is plangate's own) over HTTP, then again.
    const metrics = (await app.request('GET', '/metrics')).text;
    expect(metrics).toContain('plangate_tool_calls_total{door="hook:claude-code",outcome="refused"} 6');
    expect(metrics).toContain('plangate_tool_calls_total{door="hook:claude-code",outcome="allowed"} 2');
    expect(metrics).toContain('plangate_tool_calls_total{door="hook:claude-code",outcome="own"} 2');
    const audit = readFileSync(w.audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; agent: string; tool: string });
    expect(audit.filter((e) => e.type === 'PlanRequiredBlocked').map((e) => e.tool)).toEqual([
      'Bash', 'Write', 'mcp__github__merge_pull_request', 'Bash', 'Write', 'mcp__github__merge_pull_request', 'Bash', 'Bash', 'Write', 'Write', 'mcp__github__merge_pull_request', 'mcp__github__merge_pull_request',
    ]);
  }, 120_000);

  it('refused → the plan posted through plangate mcp with the SDK client → allowed, on the command line', async () => {
    const w = makeWorld(RULES);
    await planPathFlow(claudeCode, { effect: recorded(HOST, 'write.json'), plan: recorded(HOST, 'plan.json') }, cliHook(w, HOST), async () => {
      const said = await sayThroughMcp(w, '0xWORKER', 'Write summary.md with the three fixes, then push it.');
      expect(said.isError, JSON.stringify(said.content)).toBeFalsy();
    });
  }, 120_000);

  it('refused → the plan posted through plangate mcp with the SDK client → allowed, over HTTP', async () => {
    const w = makeWorld(RULES);
    const app = await serveWorld(w);
    await planPathFlow(claudeCode, { effect: recorded(HOST, 'shell.json'), plan: recorded(HOST, 'plan.json') }, httpHook(app, HOST, TOKENS.worker), async () => {
      const said = await sayThroughMcp(w, '0xWORKER', 'Push the release notes to main.');
      expect(said.isError, JSON.stringify(said.content)).toBeFalsy();
    });
  }, 120_000);

  it("gates plangate_say on any server but the one configured as plangate's; the reviewer channel passes on that one", async () => {
    const w = makeWorld(RULES);
    const app = await serveWorld(w);
    const plan = recorded(HOST, 'plan.json');
    const elsewhere = withTool(plan, 'mcp__notes__plangate_say');
    for (const run of [cliHook(w, HOST), httpHook(app, HOST, TOKENS.worker)]) {
      expect(reasonOf(await run(elsewhere))).toMatch(/^plan_required:mcp__notes__plangate_say:none - /);
      expect(await run(withTool(plan, 'mcp__plangate__plangate_submit_plan'))).toEqual(LEFT_TO_HOST);
      // Not a server name Claude Code gives: mcp__plangate_say is a tool of no server.
      expect(reasonOf(await run(withTool(plan, 'mcp__plangate_say')))).toMatch(/^plan_required:mcp__plangate_say:none - /);
    }
    for (const run of [cliHook(w, HOST, '0xWORKER', '--plangate-server', 'notes'), httpHook(app, HOST, TOKENS.worker, '?server=notes')]) {
      expect(await run(elsewhere)).toEqual(LEFT_TO_HOST);
      expect(reasonOf(await run(plan))).toMatch(/^plan_required:mcp__plangate__plangate_say:none - /);
    }
    // A server name no host writes is a misconfigured hook: refused.
    expect(reasonOf(await cliHook(w, HOST, '0xWORKER', '--plangate-server', 'a b')(plan))).toMatch(/--plangate-server: "a b" is not an MCP server name/);
    expect(reasonOf(await httpHook(app, HOST, TOKENS.worker, '?server=a%20b')(plan))).toMatch(/--plangate-server: "a b" is not an MCP server name/);
  }, 120_000);

  it('a hostile agent: the seat comes from the token or --agent, never from the payload', async () => {
    const w = makeWorld(RULES);
    const app = await serveWorld(w);
    const said = await sayThroughMcp(w, '0xMGR', 'Write summary.md and push it.');
    expect(said.isError).toBeFalsy();
    // The payload names the manager, who has planned, in every field an agent might try.
    const claim = JSON.stringify({ ...JSON.parse(recorded(HOST, 'write.json')), agent: '0xMGR', seat: '0xMGR', session_id: '0xMGR', tool_input: { file_path: '/srv/notes/summary.md', agent: '0xMGR' } });
    for (const run of [httpHook(app, HOST, TOKENS.worker), cliHook(w, HOST, '0xWORKER')]) {
      expect(reasonOf(await run(claim))).toMatch(/^plan_required:Write:none - /);
    }
    expect(await httpHook(app, HOST, TOKENS.mgr)(claim)).toEqual(LEFT_TO_HOST);
    const audit = readFileSync(w.audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; agent: string });
    expect(audit.filter((e) => e.type === 'PlanRequiredBlocked').map((e) => e.agent)).toEqual(['0xWORKER', '0xWORKER']);
    // Only an agent token acts as a seat; a host plangate has no contract for is a 404 that says which it has.
    const body = recorded(HOST, 'write.json');
    expect((await app.request('POST', `/v1/hooks/${HOST}`, { body, headers: { 'content-type': 'application/json' } })).status).toBe(401);
    expect((await app.request('POST', `/v1/hooks/${HOST}`, { token: TOKENS.operator, body })).status).toBe(403);
    const unknown = await app.request('POST', '/v1/hooks/no-such-host', { token: TOKENS.worker, body });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatchObject({ code: 'unknown_host', message: expect.stringContaining('claude-code') });
  }, 120_000);

  it('without --format: recognises a Claude Code payload, and refuses in a shape that blocks in any host otherwise', async () => {
    const w = makeWorld(RULES);
    const bare = cliHook(w, undefined);
    expect(reasonOf(await bare(recorded(HOST, 'write.json')))).toMatch(/^plan_required:Write:none - /);
    const blocking = (reason: string): HookReply => ({ stdout: `${JSON.stringify(claudeDeny(reason))}\n`, stderr: `${reason}\n`, exitCode: 2 });
    expect(await bare(recorded(HOST, 'garbage.txt'))).toEqual(blocking('plangate could not decide this call, so it is refused: plangate hook: the payload is not JSON'));
    const unrecognised = blocking("plangate could not decide this call, so it is refused: plangate hook: the payload is not recognisably one host's; name the host with --format (claude-code, codex, gemini-cli, cursor, copilot, windsurf, cline)");
    expect(await bare('{"tool_name":"Write","tool_input":{}}')).toEqual(unrecognised);
    // Claude Code's payload with a field another host's has: no longer only Claude Code's.
    expect(await bare(JSON.stringify({ ...JSON.parse(recorded(HOST, 'write.json')), turn_id: 't1' }))).toEqual(unrecognised);
    expect((await cliHook(w, 'no-such-host')(recorded(HOST, 'write.json'))).exitCode).toBe(2);
    // Nesting no policy input needs, and text that is not well-formed Unicode: refused, never allowed.
    for (const odd of [JSON.stringify({ ...JSON.parse(recorded(HOST, 'write.json')), tool_input: { file_path: '\ud800' } }), recorded(HOST, 'write.json').replace('"cwd"', `"deep": ${'['.repeat(300)}${']'.repeat(300)}, "cwd"`)]) {
      expect(reasonOf(await cliHook(w, HOST)(odd))).toMatch(/^plangate could not decide this call, so it is refused: plangate hook: the payload/);
    }
    // A command line the host was given wrong: refused in the shape --format names, else the payload's.
    const misconfigured = await cliHook(w, HOST, '0xWORKER', '--no-such-option')(recorded(HOST, 'write.json'));
    // Claude Code reads stdout on exit 0; commander's usage on stderr goes to the operator's transcript.
    expect({ ...misconfigured, stderr: '' }).toEqual(denied("plangate could not decide this call, so it is refused: plangate hook is misconfigured: unknown option '--no-such-option'"));
    expect((await cliHook(w, undefined, '0xWORKER', '--no-such-option')('not json')).exitCode).toBe(2);
  }, 120_000);
});

describe("Claude Code's contract", () => {
  it('reads the server and tool of an MCP name, and nothing from a name that is not one', () => {
    const read = (tool: string) => claudeCode.read({ hook_event_name: 'PreToolUse', tool_name: tool, tool_input: {} }).mcp;
    expect(read('mcp__plangate__plangate_say')).toEqual({ server: 'plangate', tool: 'plangate_say' });
    expect(read('mcp__my_server__do__it')).toEqual({ server: 'my_server', tool: 'do__it' });
    for (const tool of ['Write', 'mcp__', 'mcp__x', 'mcp__x__', 'mcp____y']) expect(read(tool), tool).toBeUndefined();
    expect(claudeCode.source).toContain('https://code.claude.com/docs/en/hooks');
  });
});

describe('plangate mcp --plangate-tools-only', () => {
  it('takes no upstream with it', async () => {
    const { main } = await import('../../src/adapters/cli/main.js');
    const lines: string[] = [];
    const io = { out: (s: string) => void lines.push(s), err: (s: string) => void lines.push(s), env: {} };
    expect(await main(['mcp', '--agent', '0xW', '--plangate-tools-only', '--upstream', 'http://127.0.0.1:9/mcp'], io)).toBe(1);
    expect(lines.join('\n')).toContain("--plangate-tools-only serves plangate's own tools alone: give no upstream with it");
  });
});
