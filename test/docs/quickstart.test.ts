/**
 * The README's set-up and quickstarts run as written, each in a fresh directory holding what a
 * clone holds (the example rules), with `plangate` run from the sources: the hook denies an
 * unplanned Write and lets it through after the plan the README posts; the MCP gateway refuses an
 * unplanned write_file (the filesystem server from node_modules instead of `npx -y`, the one
 * change); the HTTP service started as `npm start` starts it answers the README's curl calls
 * (409, then 201 and allowed); the library snippet refuses the spend and never runs it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_CHILD, FS_SERVER } from '../mcp/support.js';
import { blocksOf, ROOT } from './snippets.js';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const EXAMPLES = join(ROOT, 'examples', 'rules');

/** The README's block of a kind under a heading. */
function readmeBlock(heading: string, lang: string): string {
  const found = blocksOf('README.md').filter((b) => b.heading === heading && b.lang === lang);
  expect(found, `${lang} under ${heading}`).toHaveLength(1);
  return (found[0]?.text ?? '');
}

/** Splits a shell command line into words: '…' literal, "…" with $NAME expanded, # ends the line. */
function words(line: string, env: Record<string, string> = {}): string[] {
  const out: string[] = [];
  let word: string | null = null;
  const expand = (s: string): string => s.replace(/\$(\w+)/g, (_, n: string) => env[n] ?? '');
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      const end = line.indexOf('"', i + 1);
      word = (word ?? '') + expand(line.slice(i + 1, end));
      i = end;
    } else if (c === ' ' || c === '\t') {
      if (word !== null) out.push(word);
      word = null;
    } else if (c === '#' && word === null) {
      break;
    } else if (c === '$') {
      const m = /^\$(\w+)/.exec(line.slice(i)) as RegExpExecArray;
      word = (word ?? '') + (env[m[1] as string] ?? '');
      i += m[0].length - 1;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== null) out.push(word);
  return out;
}

/** The commands of a shell block: continued lines joined, comments and blank lines dropped, `&&` split. */
function commands(block: string, env: Record<string, string> = {}): string[][] {
  return block.replace(/\\\n\s*/g, ' ').split('\n').flatMap((l) => l.split(' && ')).map((l) => l.trim()).filter((l) => l && !l.startsWith('#')).map((l) => words(l, env));
}

/** Runs `plangate ARGS` from the sources in `cwd`. */
function plangate(cwd: string, args: string[], input?: string): { status: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, ['--import', TSX, CLI_CHILD, ...args], { cwd, input, encoding: 'utf8', env: { ...process.env, PLANGATE_RULES: '', PLANGATE_STORE: '', PLANGATE_AUDIT: '' } });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

/** A fresh clone's worth: the example rules at examples/rules, after the README's set-up block. */
function clone(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-quickstart-'));
  cpSync(EXAMPLES, join(dir, 'examples', 'rules'), { recursive: true });
  return dir;
}

function setUp(dir: string): void {
  const block = blocksOf('README.md').filter((b) => b.heading === '## Set-up' && b.lang === 'sh').map((b) => b.text).find((t) => t.includes('cp -r'));
  expect(block).toBeDefined();
  for (const cmd of commands(block ?? '')) {
    if (cmd[0] === 'cp') {
      expect(cmd).toEqual(['cp', '-r', 'examples/rules', 'rules']);
      cpSync(join(dir, 'examples', 'rules'), join(dir, 'rules'), { recursive: true });
      continue;
    }
    expect(cmd[0]).toBe('plangate');
    const r = plangate(dir, cmd.slice(1));
    expect(r.status, r.err).toBe(0);
  }
}

describe("the README's quickstarts", () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0)) await f();
  });

  it("a coding agent through its hook: init --hook sets it up, a read goes on, an unplanned Write is denied, a planned one goes on", () => {
    const dir = clone();
    setUp(dir);
    for (const cmd of commands(readmeBlock('## Quickstart: a coding agent, through its hook', 'sh'))) {
      expect(cmd[0]).toBe('plangate');
      const r = plangate(dir, cmd.slice(1));
      expect(r.status, r.err).toBe(0);
    }
    const settings = JSON.parse(readFileSync(join(dir, '.claude', 'settings.json'), 'utf8')) as {
      hooks: { PreToolUse: Array<{ matcher: string; hooks: Array<{ type: string; command: string }> }> };
    };
    const command = words(settings.hooks.PreToolUse[0]?.hooks[0]?.command ?? '');
    // No plangate on this PATH: init writes this installation's Node and entry point, and the host runs exactly that.
    expect(command.slice(0, 2)).toEqual([process.execPath, join(ROOT, 'bin', 'plangate.js')]);
    const hook = (input: string) => {
      const r = spawnSync(command[0]!, command.slice(1), { cwd: dir, input, encoding: 'utf8', env: { ...process.env, PLANGATE_RULES: '', PLANGATE_STORE: '', PLANGATE_AUDIT: '' } });
      return { status: r.status, out: r.stdout, err: r.stderr };
    };
    const payloadOf = (tool: string, input: Record<string, unknown>) => JSON.stringify({
      session_id: 's1', transcript_path: join(dir, 't.jsonl'), cwd: dir, permission_mode: 'default', hook_event_name: 'PreToolUse',
      tool_name: tool, tool_input: input, tool_use_id: 't1',
    });
    // The host's own read is classified by the file init wrote: no wall of refusals.
    const read = JSON.parse(hook(payloadOf('Read', { file_path: join(dir, 'rules', 'seats.yaml') })).out);
    expect(read.hookSpecificOutput).toEqual({ hookEventName: 'PreToolUse' });
    const payload = payloadOf('Write', { file_path: 'a.txt', content: 'notes' });
    const denied = hook(payload);
    expect(denied.status).toBe(0);
    expect(JSON.parse(denied.out).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/^plan_required:Write:none - /) });

    const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const say = /`(plangate say [^`]+)`/.exec(text.replace(/\s*\n\s*/g, ' '))?.[1];
    expect(say).toBeDefined();
    const posted = plangate(dir, words(say ?? '').slice(1));
    expect(posted.status, posted.err).toBe(0);
    const goesOn = JSON.parse(hook(payload).out);
    expect(goesOn.hookSpecificOutput).toEqual({ hookEventName: 'PreToolUse' });
  }, 60_000);

  it('any MCP client through the gateway: an unplanned write_file is refused', async () => {
    const dir = clone();
    setUp(dir);
    const files = join(dir, 'work');
    mkdirSync(files);
    const [cmd] = commands(readmeBlock('## Quickstart: any MCP client, through the gateway', 'sh'));
    const at = cmd?.indexOf('--') ?? -1;
    expect(cmd?.slice(at + 1)).toEqual(['npx', '-y', '@modelcontextprotocol/server-filesystem', '/srv/work']);
    const args = [...(cmd?.slice(1, at + 1) ?? []), process.execPath, FS_SERVER, files];
    const client = new Client({ name: 'quickstart', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', TSX, CLI_CHILD, ...args], cwd: dir, stderr: 'pipe' }));
    cleanup.push(() => client.close());
    const r = await client.callTool({ name: 'write_file', arguments: { path: join(files, 'a.txt'), content: 'x' } });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({ check: 'plan_required', code: 'plan_required:write_file:none' });
  }, 60_000);

  it('a service through HTTP: refused, then a plan, then allowed', async () => {
    const dir = clone();
    const start = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start as string;
    const startArgs = words(start);
    expect(startArgs.slice(0, 3)).toEqual(['node', 'bin/plangate.js', 'serve']);
    const server = spawn(process.execPath, ['--import', TSX, CLI_CHILD, ...startArgs.slice(2), '--port', '0'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    cleanup.push(() => new Promise<void>((done) => { server.once('exit', () => done()); server.kill('SIGTERM'); }));
    let out = '';
    let err = '';
    server.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    const url = await new Promise<string>((resolve, reject) => {
      server.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        const m = /plangate: serving (http:\/\/\S+)/.exec(err);
        if (m) resolve(m[1] as string);
      });
      server.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
    });
    const token = (name: string): string => new RegExp(`^\\s+${name}\\s+(\\S+)$`, 'm').exec(out)?.[1] ?? '';
    const env: Record<string, string> = { PG: url, WORKER: token('agent:0xWORKER'), OPS: token('operator') };
    expect(env['WORKER']).not.toBe('');

    const answers: Array<{ path: string; status: number; body: Record<string, unknown> }> = [];
    for (const cmd of commands(readmeBlock('## Quickstart: a service, through HTTP', 'sh'), env)) {
      if (cmd[0] === 'export') continue; // the tokens npm start printed: env above
      expect(cmd[0]).toBe('curl');
      let method = 'GET';
      let target = '';
      let body: string | undefined;
      const headers: Record<string, string> = {};
      for (let i = 1; i < cmd.length; i++) {
        const a = cmd[i] as string;
        if (a === '-s') continue;
        else if (a === '-X') method = cmd[++i] as string;
        else if (a === '-H') { const [k, ...v] = (cmd[++i] as string).split(':'); headers[k as string] = v.join(':').trim(); }
        else if (a === '-d') { body = cmd[++i]; if (method === 'GET') method = 'POST'; }
        else target = a;
      }
      const res = await fetch(target, { method, headers, ...(body !== undefined ? { body } : {}) });
      answers.push({ path: new URL(res.url).pathname, status: res.status, body: (await res.json()) as Record<string, unknown> });
    }
    expect(answers.map((a) => `${a.status} ${a.path}`)).toEqual([
      '200 /v1/org/crews/desk', '200 /v1/org/agents/0xWORKER', '409 /mcp/call', '201 /v1/say', '200 /v1/decide',
    ]);
    expect(answers[2]?.body).toMatchObject({ code: 'plan_required:github.merge_pull_request:none' });
    expect(answers[4]?.body).toMatchObject({ allowed: true });
  }, 60_000);

  it('a Node program through the library: the spend is refused and never runs', () => {
    const dir = clone();
    setUp(dir);
    const snippet = readmeBlock('## Quickstart: a Node program, through the library', 'ts');
    expect(snippet).toContain("from 'plangate';");
    const program = [
      "let ran = false; const proposeSpend = () => { ran = true; };",
      snippet.replace("from 'plangate';", `from ${JSON.stringify(pathToFileURL(join(ROOT, 'src', 'index.ts')).href)};`),
      'console.log(JSON.stringify({ ran }));',
    ].join('\n');
    const file = join(dir, 'program.mts');
    writeFileSync(file, program);
    const r = spawnSync(process.execPath, ['--import', TSX, file], { cwd: dir, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^plan_required:wallet\.propose_spend:none plan_required:wallet\.propose_spend:none - /);
    expect(JSON.parse(lines.at(-1) as string)).toEqual({ ran: false });
  }, 60_000);
});
