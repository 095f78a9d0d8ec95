#!/usr/bin/env node
/**
 * Runs the official MCP conformance suite's server scenarios against the
 * suite's reference server directly, then through `plangate mcp --listen`
 * in front of it, one scenario at a time, and prints a table of both.
 *
 *   node scripts/conformance-mcp.mjs <everything-server.ts> <conformance binary>
 *
 * <everything-server.ts>: the reference server from the suite's repository
 * (examples/servers/typescript/everything-server.ts at the suite's tag),
 * copied into a directory of this checkout and run with tsx, so its
 * imports (the SDK, express, cors, zod) resolve in this node_modules. <conformance binary>: the
 * suite's `conformance` (npm install @modelcontextprotocol/conformance@0.1.16
 * in a directory of its own; it needs Node 22 or newer). The suite sends no
 * Authorization header: a loopback proxy here adds an agent's token and
 * passes every other header on as it came (the gateway is told the proxy's
 * host and origin as its allowed ones, so the rebinding scenario's forged
 * Host and Origin reach it). Each scenario runs as a seat of its own: the
 * suite opens a session per scenario and never ends one, and a seat may
 * open 16 sessions at once, then one every 10 s (session-rate.ts), so one
 * seat for the whole run would measure that limit, not the protocol. The
 * rules require no plan, so every scenario is passed through.
 *
 * The scenarios are those of the suite's active set (CONFORMANCE_SUITE=all
 * adds its pending ones), as its run against the reference server directly
 * names them. Each run of the suite is a child
 * process with a deadline (CONFORMANCE_SCENARIO_TIMEOUT_MS, default 60000):
 * one that overruns is killed and reported TIMEOUT with the tail of its
 * output and of the gateway's log, and the run goes on. The whole script
 * has a deadline too (CONFORMANCE_TOTAL_TIMEOUT_MS, default 900000).
 * CONFORMANCE_SCENARIOS=a,b runs only those; CONFORMANCE_SHOW=a,b prints
 * their whole output (every check, warnings and notes too).
 * A scenario's cell reads `pass 5/5` (checks passed / run), with `2w` for
 * warnings (SHOULDs the suite reports without failing). Exit status: 0 when
 * every scenario that passes directly passes through the gateway, 1
 * otherwise.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join, resolve } from 'node:path';

const [server, suite] = process.argv.slice(2);
if (!server || !suite) {
  process.stderr.write('usage: node scripts/conformance-mcp.mjs <everything-server.ts> <conformance binary>\n');
  process.exit(2);
}
const ROOT = resolve(import.meta.dirname, '..');
/** The token of the seat 0xCONFORMANCE<i>; the proxy sends the current scenario's. */
const tokenOf = (i) => `conformance-token-${String(i).padStart(4, '0')}-0123456789abcdef`;
const SEATS = 64;
const SCENARIO_MS = Number(process.env.CONFORMANCE_SCENARIO_TIMEOUT_MS ?? 60_000);
const SUITE = process.env.CONFORMANCE_SUITE ?? 'active';
const ONLY = process.env.CONFORMANCE_SCENARIOS?.split(',').filter(Boolean);
const SHOW = new Set(process.env.CONFORMANCE_SHOW?.split(',').filter(Boolean) ?? []);
const TOTAL_MS = Number(process.env.CONFORMANCE_TOTAL_TIMEOUT_MS ?? 900_000);
const children = [];
const logs = new Map();

/** Starts a long-lived process and resolves with the first match of `pattern` in its output. */
function start(name, command, args, pattern, options = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  children.push(child);
  logs.set(name, '');
  return new Promise((resolveLine, reject) => {
    let done = false;
    const on = (chunk) => {
      logs.set(name, (logs.get(name) + chunk).slice(-20_000));
      const m = done ? null : pattern.exec(logs.get(name));
      if (m) {
        done = true;
        resolveLine(m[1]);
      }
    };
    child.stdout.on('data', on);
    child.stderr.on('data', on);
    child.once('exit', (code) => reject(new Error(`${name} exited ${code}: ${logs.get(name)}`)));
  });
}

/** Runs the suite once, without blocking this process (the token proxy lives here); never longer than `ms`. */
function suiteRun(args, ms) {
  return new Promise((ok) => {
    const child = spawn(suite, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const started = Date.now();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, ms);
    child.once('close', (code) => {
      clearTimeout(timer);
      ok({ code, out, timedOut, ms: Date.now() - started });
    });
  });
}

/** `name: N passed, M failed` lines of a summary. */
function summary(out) {
  const rows = new Map();
  for (const m of out.matchAll(/^[✓✗]\s+(\S+): (\d+) passed, (\d+) failed/gmu)) rows.set(m[1], { passed: Number(m[2]), failed: Number(m[3]) });
  return rows;
}

/** A loopback proxy that adds the token and passes everything else on; `target` is set once the gateway runs. */
function tokenProxy() {
  const state = { target: undefined, seat: 0 };
  const proxy = http.createServer((req, res) => {
    const to = state.target;
    const up = http.request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: { ...req.headers, authorization: `Bearer ${tokenOf(state.seat)}` } }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
    res.on('close', () => up.destroy());
  });
  return new Promise((ok) => proxy.listen(0, '127.0.0.1', () => ok({ proxy, state, port: proxy.address().port })));
}

const tail = (text, n = 15) => text.trimEnd().split('\n').slice(-n).map((l) => `    | ${l}`).join('\n');

const overall = setTimeout(() => {
  process.stderr.write(`conformance-mcp: the whole run passed ${TOTAL_MS} ms; stopping\n`);
  for (const c of children) c.kill('SIGKILL');
  process.exit(124);
}, TOTAL_MS);

// Inside this checkout, so that the reference server's imports resolve in its node_modules.
const dir = mkdtempSync(join(ROOT, '.conformance-'));
let proxy;
let status = 1;
try {
  mkdirSync(join(dir, 'rules'));
  writeFileSync(join(dir, 'rules', 'rules.yaml'), 'planRequired:\n  workspace: { mode: off }\n');
  const port = 30000 + Math.floor(Math.random() * 20000);
  const copy = join(dir, 'everything-server.ts');
  copyFileSync(server, copy);
  await start('reference server', process.execPath, ['--import', 'tsx', copy], /(running on http:\S+)/, { cwd: ROOT, env: { ...process.env, PORT: String(port) } });
  const direct = `http://localhost:${port}/mcp`;
  const p = await tokenProxy();
  proxy = p.proxy;
  const front = `127.0.0.1:${p.port}`;
  const gateway = await start('gateway', process.execPath, ['--import', 'tsx', join(ROOT, 'test', 'http', 'cli-child.ts'),
    '--rules', join(dir, 'rules'), '--store', join(dir, 'plangate.db'), '--audit', join(dir, 'audit.jsonl'),
    'mcp', '--listen', '127.0.0.1:0', '--allowed-hosts', front, '--allowed-origins', `http://${front}`,
    '--upstream', `reference=${direct}`], /serving (http:\S+) /, { cwd: ROOT, env: { ...process.env, PLANGATE_TOKENS: Array.from({ length: SEATS }, (_, i) => `agent:0xCONFORMANCE${i}=${tokenOf(i)}`).join(',') } });
  p.state.target = new URL(gateway);
  const through = `http://${front}/mcp`;

  // The active set, as the suite runs it against the reference server.
  const whole = await suiteRun(['server', '--url', direct, '--suite', SUITE], Math.max(SCENARIO_MS, 120_000));
  const scenarios = [...summary(whole.out).keys()].filter((name) => !ONLY || ONLY.includes(name));
  if (scenarios.length === 0) throw new Error(`the suite named no scenarios against the reference server:\n${tail(whole.out, 40)}`);

  if (scenarios.length > SEATS) throw new Error(`${scenarios.length} scenarios, seats for ${SEATS}`);
  const rows = [];
  for (const [i, scenario] of scenarios.entries()) {
    p.state.seat = i;
    const row = { scenario };
    for (const [side, url] of [['direct', direct], ['gateway', through]]) {
      const gatewayLogFrom = logs.get('gateway').length;
      const r = await suiteRun(['server', '--url', url, '--scenario', scenario], SCENARIO_MS);
      const counts = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings?/.exec(r.out);
      const warned = counts && counts[4] !== '0' ? ` ${counts[4]}w` : '';
      row[side] = r.timedOut ? 'TIMEOUT' : counts && counts[3] === '0' && r.code === 0 ? `pass ${counts[1]}/${counts[2]}${warned}` : counts ? `FAIL ${counts[1]}/${counts[2]}${warned}` : `FAIL (exit ${r.code})`;
      row[`${side}Ms`] = r.ms;
      if (SHOW.has(scenario)) process.stdout.write(`${scenario} ${side}:\n${tail(r.out, 200)}\n`);
      if (!row[side].startsWith('pass')) {
        const failed = r.out.indexOf('=== Failed Checks ===');
        const why = failed >= 0 ? r.out.slice(failed).split('\n').slice(0, 12).join('\n') : r.out;
        process.stdout.write(`${scenario} ${side}: ${row[side]} after ${r.ms} ms\n  suite:\n${tail(why)}\n`);
        if (side === 'gateway') process.stdout.write(`  gateway log during it:\n${tail(logs.get('gateway').slice(gatewayLogFrom) || '(nothing)')}\n`);
      }
    }
    rows.push(row);
  }
  const width = Math.max(...scenarios.map((s) => s.length));
  process.stdout.write(`\n${'scenario'.padEnd(width)}  ${'directly'.padEnd(20)}  through plangate mcp --listen\n`);
  for (const r of rows) process.stdout.write(`${r.scenario.padEnd(width)}  ${`${r.direct} ${r.directMs}ms`.padEnd(20)}  ${r.gateway} ${r.gatewayMs}ms\n`);
  const passDirect = rows.filter((r) => r.direct.startsWith('pass'));
  const passBoth = passDirect.filter((r) => r.gateway.startsWith('pass'));
  process.stdout.write(`\nscenarios: ${rows.length}; pass directly: ${passDirect.length}; of those, pass through the gateway: ${passBoth.length}\n`);
  status = passBoth.length === passDirect.length ? 0 : 1;
} finally {
  clearTimeout(overall);
  proxy?.close();
  proxy?.closeAllConnections();
  for (const c of children) c.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = status;
