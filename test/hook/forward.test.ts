/**
 * bin/plangate-hook-forward, the hook command that starts no Node: run
 * with sh, as a host runs it, against a real `plangate serve`, against a
 * closed port, a service that does not answer in time, and a server that
 * is not plangate. When plangate cannot answer, the call is blocked.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HookReply } from '../../src/adapters/hook/contract.js';
import { claudeDeny } from '../../src/adapters/hook/hosts/claude-code.js';
import { CLI_CHILD, makeWorld } from '../mcp/support.js';
import { cliHook, recorded } from './flow.js';

const FORWARD = join(import.meta.dirname, '..', '..', 'bin', 'plangate-hook-forward');
const TOKEN = 'forward-worker-token-0123456789';
const RULES = `
planRequired:
  workspace: { mode: side_effects, windowMin: 10 }
tools:
  read: [Read, Grep, Glob]
`;
const HOST = 'claude-code';

/** Runs the forwarder as a host would (without blocking this process, which serves the fake services). */
function forward(host: string, payload: string, env: Record<string, string>): Promise<HookReply> {
  const child = spawn('sh', [FORWARD, host], { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
  // A forwarder that blocks before reading stdin (no URL, no token) closes it unread.
  child.stdin.on('error', () => {});
  child.stdin.end(payload);
  return new Promise((resolve) => child.once('close', (code) => resolve({ stdout, stderr, exitCode: code ?? -1 })));
}

function blocked(host: string, why: string): HookReply {
  const reason = `plangate could not decide this call, so it is refused: ${why}`;
  // Copilot ignores exit 2: its JSON deny with exit 0 is what blocks there.
  if (host === 'copilot') return { stdout: `${JSON.stringify({ permissionDecision: 'deny', permissionDecisionReason: reason })}\n`, stderr: `${reason}\n`, exitCode: 0 };
  const stdout = host === 'claude-code' ? `${JSON.stringify(claudeDeny(reason))}\n` : host === 'cline' ? `${JSON.stringify({ cancel: true, errorMessage: reason })}\n` : '';
  return { stdout, stderr: `${reason}\n`, exitCode: 2 };
}

/** A loopback server answering as told; its URL. */
async function serveWith(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((done) => {
      server.closeAllConnections();
      server.close(() => done());
    }),
  };
}

/** A port nothing listens on. */
async function closedPort(): Promise<string> {
  const s = await serveWith(() => {});
  await s.close();
  return s.url;
}

describe('plangate-hook-forward', () => {
  const w = makeWorld(RULES);
  let serve: ChildProcess;
  let url: string;

  beforeAll(async () => {
    serve = spawn(process.execPath, ['--import', 'tsx', CLI_CHILD, 'serve'], {
      env: { PATH: process.env['PATH'], PLANGATE_RULES: w.rules, PLANGATE_STORE: w.store, PLANGATE_AUDIT: w.audit, PLANGATE_PORT: '0', PLANGATE_TOKENS: `agent:0xWORKER=${TOKEN}` },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    url = await new Promise<string>((resolve, reject) => {
      serve.stderr!.on('data', (c: Buffer) => {
        err += c.toString();
        const m = /serving (http:\/\/\S+) /.exec(err);
        if (m) resolve(m[1] as string);
      });
      serve.once('exit', (code) => reject(new Error(`serve exited ${code}:\n${err}`)));
    });
  }, 60_000);

  afterAll(() => {
    if (serve?.exitCode === null) serve.kill('SIGTERM');
  });

  it("gives the host plangate's reply from a running plangate serve, as plangate hook would", async () => {
    const env = { PLANGATE_URL: url, PLANGATE_TOKEN: TOKEN };
    const cli = cliHook(w, HOST);
    for (const name of ['write.json', 'read.json', 'mcp-call.json', 'plan.json', 'garbage.txt']) {
      const payload = recorded(HOST, name);
      expect(await forward(HOST, payload, env), name).toEqual(await cli(payload));
    }
    expect((await forward(HOST, recorded(HOST, 'shell.json'), env)).stdout).toMatch(/"permissionDecision":"deny","permissionDecisionReason":"plan_required:Bash:none - /);
    // The route's options as the operator writes them in the hook's environment.
    const granted = await forward(HOST, recorded(HOST, 'read.json'), { ...env, PLANGATE_HOOK_QUERY: 'grant=true' });
    expect(JSON.parse(granted.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'plangate: no check refuses this call' }, suppressOutput: true });
  }, 120_000);

  it('blocks when the service answers anything but a hook reply: a host it has no contract for, a token it does not know', async () => {
    const payload = recorded(HOST, 'write.json');
    expect(await forward('no-such-host', payload, { PLANGATE_URL: url, PLANGATE_TOKEN: TOKEN })).toEqual(blocked('no-such-host', 'the plangate service answered HTTP 404'));
    expect(await forward(HOST, payload, { PLANGATE_URL: url, PLANGATE_TOKEN: 'not-a-token-of-this-service' })).toEqual(blocked(HOST, 'the plangate service answered HTTP 401'));
  });

  it('blocks, in each host\'s shape, when the service is down', async () => {
    const down = { PLANGATE_URL: await closedPort(), PLANGATE_TOKEN: TOKEN };
    const payload = recorded(HOST, 'write.json');
    for (const host of ['claude-code', 'gemini-cli', 'cline', 'copilot']) {
      expect(await forward(host, payload, down), host).toEqual(blocked(host, 'the plangate service did not answer (curl exit 7)'));
    }
    expect(JSON.parse((await forward(HOST, payload, down)).stdout).hookSpecificOutput.permissionDecision).toBe('deny');
  });

  it('blocks when the service does not answer in time, or is not configured', async () => {
    const silent = await serveWith(() => {});
    try {
      const t0 = Date.now();
      expect(await forward(HOST, '{}', { PLANGATE_URL: silent.url, PLANGATE_TOKEN: TOKEN, PLANGATE_HOOK_TIMEOUT: '1' })).toEqual(blocked(HOST, 'the plangate service did not answer (curl exit 28)'));
      expect(Date.now() - t0).toBeLessThan(10_000);
    } finally {
      await silent.close();
    }
    expect(await forward(HOST, '{}', { PLANGATE_TOKEN: TOKEN })).toEqual(blocked(HOST, 'PLANGATE_URL is not set'));
    expect(await forward(HOST, '{}', { PLANGATE_URL: url })).toEqual(blocked(HOST, 'PLANGATE_TOKEN is not set'));
    expect(await forward(HOST, '{}', { PLANGATE_URL: url, PLANGATE_TOKEN: TOKEN, PLANGATE_HOOK_TIMEOUT: '1; rm' })).toEqual(blocked(HOST, 'PLANGATE_HOOK_TIMEOUT is not a number of seconds'));
    expect((await forward('', '{}', { PLANGATE_URL: url, PLANGATE_TOKEN: TOKEN })).exitCode).toBe(2);
    expect((await forward('Claude Code', '{}', { PLANGATE_URL: url, PLANGATE_TOKEN: TOKEN })).exitCode).toBe(2);
  });

  it('reproduces a reply with stderr and any exit code, and blocks on a 200 that is not a hook reply', async () => {
    const seen: { auth?: string; body?: string } = {};
    const fake = await serveWith((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => { body += c.toString(); });
      req.on('end', () => {
        Object.assign(seen, { auth: req.headers.authorization, body });
        if (req.url === '/v1/hooks/windsurf') {
          res.writeHead(200, { 'x-plangate-hook-exit': '2', 'x-plangate-hook-stderr': Buffer.from('refusé: plan first\nthen retry\n').toString('base64') });
          res.end();
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"ok":true}');
        }
      });
    });
    try {
      const env = { PLANGATE_URL: `${fake.url}/`, PLANGATE_TOKEN: TOKEN };
      expect(await forward('windsurf', '{"tool_info":{"command_line":"ls"}}', env)).toEqual({ stdout: '', stderr: 'refusé: plan first\nthen retry\n', exitCode: 2 });
      expect(seen).toEqual({ auth: `Bearer ${TOKEN}`, body: '{"tool_info":{"command_line":"ls"}}' });
      expect(await forward(HOST, '{}', env)).toEqual(blocked(HOST, 'the answer is not a plangate hook reply'));
    } finally {
      await fake.close();
    }
  });
});

describe('the hooks-over-HTTP guide', () => {
  it("shows hook settings that are JSON naming the route and the forwarder, and the forwarder's variables", async () => {
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'guides', 'hooks-over-http.md'), 'utf8');
    const blocks = [...text.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1] as string, body: m[2] as string }));
    const settings = blocks.filter((b) => b.lang === 'json').map((b) => JSON.parse(b.body) as { hooks: { PreToolUse: Array<{ hooks: Array<{ type: string; url?: string; command?: string }> }> } });
    const hooks = settings.flatMap((s) => s.hooks.PreToolUse.flatMap((m) => m.hooks));
    expect(hooks.map((h) => h.url ?? h.command)).toEqual(['http://127.0.0.1:8787/v1/hooks/claude-code', '/opt/plangate/bin/plangate-hook-forward claude-code']);
    const sh = blocks.filter((b) => b.lang === 'sh').map((b) => b.body).join('\n');
    const script = readFileSync(FORWARD, 'utf8');
    for (const name of [...sh.matchAll(/export (\w+)=/g)].map((m) => m[1] as string)) expect(script, name).toContain(`\${${name}`);
  });
});
