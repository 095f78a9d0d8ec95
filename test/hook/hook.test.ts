/**
 * `plangate hook` with recorded PreToolUse payloads (the published shape:
 * session_id, transcript_path, cwd, permission_mode, hook_event_name,
 * tool_name, tool_input, tool_use_id), run as the host runs it: a child
 * process, the payload on stdin, the answer on stdout.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runHook } from '../../src/adapters/hook/pretooluse.js';
import { openPlangate } from '../../src/main/open.js';
import { CLI_CHILD, makeWorld } from '../mcp/support.js';

const PAYLOADS = resolve(import.meta.dirname, 'payloads');
const RULES = `
planRequired:
  workspace: { mode: side_effects, windowMin: 10 }
tools:
  read: [Read, Grep, Glob, "mcp__*__read_*"]
planningGate:
  defaults: { readGuardMaxBytes: 1000 }
readGuard:
  tools:
    Read: { path: file_path, lines: { head: limit }, skip: [offset] }
`;

function payload(name: string, big: string): string {
  return readFileSync(join(PAYLOADS, `${name}.json`), 'utf8').replaceAll('BIG_FILE', big);
}

describe('plangate hook', () => {
  const w = makeWorld(RULES);
  const big = join(w.files, 'big.log');
  writeFileSync(big, 'nineteen bytes: xyz\n'.repeat(300)); // 6000 bytes
  const global = ['--rules', w.rules, '--store', w.store, '--audit', w.audit];

  function hook(input: string, ...args: string[]) {
    // The host runs the hook in the project's directory; here the read roots name it.
    const env = { ...process.env, PLANGATE_READ_BASE: w.files };
    const r = spawnSync(process.execPath, ['--import', 'tsx', CLI_CHILD, ...global, 'hook', '--agent', '0xWORKER', ...args], { input, encoding: 'utf8', env });
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { hookSpecificOutput: { hookEventName: string; permissionDecision?: string; permissionDecisionReason?: string } };
  }

  it('denies a side effect without a plan, with the instruction as the reason; leaves it to the host after a plan', () => {
    const denied = hook(payload('write', big)).hookSpecificOutput;
    expect(denied.hookEventName).toBe('PreToolUse');
    expect(denied.permissionDecision).toBe('deny');
    expect(denied.permissionDecisionReason).toMatch(/^plan_required:Write:none - /);
    expect(hook(payload('bash', big)).hookSpecificOutput.permissionDecision).toBe('deny');

    const said = spawnSync(process.execPath, ['--import', 'tsx', CLI_CHILD, ...global, 'say', '--thread', 'agent:0xWORKER', '--as', '0xWORKER', '--kind', 'plan', 'write the summary and push it'], { encoding: 'utf8' });
    expect(said.status, said.stderr).toBe(0);
    const allowed = hook(payload('write', big)).hookSpecificOutput;
    expect(allowed).toEqual({ hookEventName: 'PreToolUse' });
    expect(hook(payload('write', big), '--grant').hookSpecificOutput).toMatchObject({ permissionDecision: 'allow' });
    const audit = readFileSync(w.audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(audit.filter((e) => e.type === 'PlanRequiredBlocked').map((e) => e.tool)).toEqual(['Write', 'Bash']);
  }, 60_000);

  it('applies the read guard to the host Read tool and to an MCP filesystem read', () => {
    expect(hook(payload('read', big)).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('read_guard:Read - this call reads all of') });
    const range = hook(payload('read-range', big)).hookSpecificOutput;
    expect(range.permissionDecision, range.permissionDecisionReason).toBeUndefined(); // 40 lines: 799 bytes
    // Read counts lines: 60 of them from line 1 are 1199 bytes, over the 1000-byte ceiling.
    const more = hook(payload('read-range', big).replace('"limit": 40', '"limit": 60')).hookSpecificOutput;
    expect(more).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('the first 60 lines of') });
    expect(hook(payload('mcp-read', big)).hookSpecificOutput.permissionDecisionReason).toContain('read_guard:mcp__filesystem__read_text_file');
  }, 60_000);

  it("resolves a relative file_path against the host's cwd, where the host's Read reads it", () => {
    // The agent moved the host into a subdirectory (Bash `cd` persists); the roots stay the project's.
    const sub = join(w.files, 'sub');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'huge.log'), 'x'.repeat(6000));
    const relative = (cwd: string) => JSON.stringify({ ...JSON.parse(payload('read', big)), cwd, tool_input: { file_path: 'huge.log' } });
    expect(hook(relative(sub)).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('read_guard:Read - this call reads all of huge.log (6000 bytes') });
    // A cwd outside the roots leads the relative path out of them: the guard cannot vouch for it.
    expect(hook(relative(w.root)).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('is outside the directories plangate may look at') });
    // An MCP filesystem server resolves it in its own directories (the read roots), wherever the host is.
    const mcp = JSON.stringify({ ...JSON.parse(payload('mcp-read', big)), cwd: sub, tool_input: { path: 'big.log' } });
    expect(hook(mcp).hookSpecificOutput.permissionDecisionReason).toContain('read_guard:mcp__filesystem__read_text_file - this call reads all of big.log (6000 bytes');
    expect(hook(relative('sub')).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('cwd is not an absolute path') });
  }, 60_000);

  it('denies a Read of a FIFO, which has no size and is read until it ends, and does not wait on it', () => {
    const fifo = join(w.files, 'feed');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const read = JSON.stringify({ ...JSON.parse(payload('read', big)), tool_input: { file_path: fifo } });
    expect(hook(read).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining(`read_guard:Read - ${fifo} has no size to check`) });
    const lines = JSON.stringify({ ...JSON.parse(payload('read', big)), tool_input: { file_path: fifo, offset: 1, limit: 10 } });
    expect(hook(lines).hookSpecificOutput.permissionDecision).toBe('deny');
    // A directory is no such read: the tool reports its own error.
    const folder = JSON.stringify({ ...JSON.parse(payload('read', big)), tool_input: { file_path: w.files } });
    expect(hook(folder).hookSpecificOutput.permissionDecision).toBeUndefined();
  }, 60_000);

  it('denies, with exit 0, when plangate cannot be opened: a host lets a call through a hook that exits 1', () => {
    const notADatabase = join(w.root, 'not-a.db');
    writeFileSync(notADatabase, 'garbage');
    const cases = [
      { options: ['--store', notADatabase], agent: '0xWORKER' },
      { options: ['--audit', w.files], agent: '0xWORKER' }, // a directory: the audit file cannot be opened
      { options: [], agent: 'not a seat' },
    ];
    for (const { options, agent } of cases) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', CLI_CHILD, ...global, ...options, 'hook', '--agent', agent], { input: payload('bash', big), encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).hookSpecificOutput, options.join(' ')).toMatchObject({
        hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/^plangate could not decide this call, so it is refused: /),
      });
      if (options[0] === '--store') {
        // The agent reads the reason: the store's words stay in the log (stderr), its path with them.
        expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecisionReason).toBe("plangate could not decide this call, so it is refused: plangate's store failed");
        expect(r.stderr).toContain(notADatabase);
      }
    }
    // A hook command the host was given wrong (no --agent, an option it does not have) denies too.
    for (const args of [['hook'], ['hook', '--agent', '0xWORKER', '--no-such-option']]) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', CLI_CHILD, ...global, ...args], { input: payload('bash', big), encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).hookSpecificOutput, args.join(' ')).toMatchObject({
        permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/^plangate could not decide this call, so it is refused: plangate hook is misconfigured: /),
      });
    }
  }, 60_000);

  it('reads a payload that arrives in parts (stdin is read synchronously until it ends)', async () => {
    const write = Buffer.from(payload('write', big));
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_CHILD, ...global, 'hook', '--agent', '0xWORKER'], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, PLANGATE_READ_BASE: w.files } });
    let out = '';
    child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    child.stdin.write(write.subarray(0, 100));
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.stdin.end(write.subarray(100));
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(0);
    expect(JSON.parse(out)).toEqual(hook(payload('write', big))); // as the same payload in one piece
  }, 60_000);

  it('answers every malformed payload with a well-formed deny', async () => {
    expect(hook('not json', '--format', 'claude-code').hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/^plangate could not decide this call/) });
    // Over the bound on stdin, the payload is refused for its size, not as the JSON its cut would make.
    const huge = `{"tool_name":"Write","tool_input":{"p":"${'y'.repeat(2 * 1024 * 1024)}"}}`;
    expect(hook(huge, '--format', 'claude-code').hookSpecificOutput.permissionDecisionReason).toMatch(/the payload is larger than \d+ bytes/);
    const pg = await openPlangate({ rules: w.rules, store: ':memory:', audit: join(w.root, 'unit-audit.jsonl'), log: () => {} });
    try {
      for (const input of ['', '[]', 'null', '{"hook_event_name":"PreToolUse"}', '{"hook_event_name":"PostToolUse","tool_name":"Write"}',
        '{"tool_name":"Write","tool_input":"x"}', '{"tool_name":"has space","tool_input":{}}', `{"tool_name":"Write","tool_input":{"p":"${'y'.repeat(1024 * 1024)}"}}`]) {
        const out = JSON.parse(await runHook(pg.gate, input, { agent: '0xWORKER' })).hookSpecificOutput;
        expect(out.permissionDecision, input.slice(0, 60)).toBe('deny');
        expect(out.permissionDecisionReason).toMatch(/^plangate could not decide this call, so it is refused: plangate hook: |invalid call/);
      }
    } finally {
      await pg.close();
    }
  }, 60_000);
});
