#!/usr/bin/env node
/**
 * Runs the official MCP conformance suite's server scenarios against the
 * suite's reference server directly, then through `plangate mcp --listen`
 * in front of it, and prints both summaries.
 *
 *   node scripts/conformance-mcp.mjs <everything-server.ts> <conformance binary>
 *
 * <everything-server.ts>: the reference server from the suite's repository
 * (examples/servers/typescript/everything-server.ts at the suite's tag),
 * copied into a directory of this checkout and run with tsx, so its
 * imports (the SDK, express, cors, zod) resolve in this node_modules. <conformance binary>: the
 * suite's `conformance` (npm install @modelcontextprotocol/conformance@0.1.16;
 * it needs Node 22 or newer). The suite sends no Authorization header: a
 * loopback proxy here adds an agent's token. The rules require no plan, so
 * every scenario is passed through.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join, resolve } from 'node:path';

const [server, suite] = process.argv.slice(2);
if (!server || !suite) {
  process.stderr.write('usage: node scripts/conformance-mcp.mjs <everything-server.ts> <conformance binary>\n');
  process.exit(2);
}
const ROOT = resolve(import.meta.dirname, '..');
const TOKEN = 'conformance-token-0123456789abcdef';
const children = [];

/** Starts a process and resolves with the first match of `pattern` in its output. */
function start(command, args, pattern, options = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  children.push(child);
  return new Promise((resolveLine, reject) => {
    let text = '';
    const on = (chunk) => {
      text += chunk;
      const m = pattern.exec(text);
      if (m) resolveLine(m[1]);
    };
    child.stdout.on('data', on);
    child.stderr.on('data', on);
    child.once('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${text}`)));
  });
}

/** A loopback proxy to `target` that adds the token; resolves with its URL. */
function tokenProxy(target) {
  const to = new URL(target);
  const proxy = http.createServer((req, res) => {
    const up = http.request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: { ...req.headers, authorization: `Bearer ${TOKEN}` } }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
    res.on('close', () => up.destroy());
  });
  return new Promise((ok) => proxy.listen(0, '127.0.0.1', () => ok({ proxy, url: `http://127.0.0.1:${proxy.address().port}/mcp` })));
}

function run(url) {
  const r = spawnSync(suite, ['server', '--url', url], { encoding: 'utf8', timeout: 600_000 });
  const out = `${r.stdout}${r.stderr}`;
  return out.slice(out.indexOf('=== SUMMARY ==='));
}

// Inside this checkout, so that the reference server's imports resolve in its node_modules.
const dir = mkdtempSync(join(ROOT, '.conformance-'));
let proxy;
try {
  mkdirSync(join(dir, 'rules'));
  writeFileSync(join(dir, 'rules', 'rules.yaml'), 'planRequired:\n  workspace: { mode: off }\n');
  const port = 30000 + Math.floor(Math.random() * 20000);
  const copy = join(dir, 'everything-server.ts');
  copyFileSync(server, copy);
  await start(process.execPath, ['--import', 'tsx', copy], /(running on http:\S+)/, { cwd: ROOT, env: { ...process.env, PORT: String(port) } });
  const direct = `http://localhost:${port}/mcp`;
  const gateway = await start(process.execPath, ['--import', 'tsx', join(ROOT, 'test', 'http', 'cli-child.ts'),
    '--rules', join(dir, 'rules'), '--store', join(dir, 'plangate.db'), '--audit', join(dir, 'audit.jsonl'),
    'mcp', '--listen', '127.0.0.1:0', '--upstream', `reference=${direct}`], /serving (http:\S+) /, { cwd: ROOT, env: { ...process.env, PLANGATE_TOKENS: `agent:0xCONFORMANCE=${TOKEN}` } });
  const p = await tokenProxy(gateway);
  proxy = p.proxy;
  process.stdout.write(`directly (${direct}):\n${run(direct)}\nthrough plangate mcp --listen (${gateway}):\n${run(p.url)}\n`);
} finally {
  proxy?.close();
  for (const c of children) c.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
