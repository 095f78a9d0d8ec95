/**
 * npm run bench:diff — `plangate diff --replay` over a decision log of 1M
 * decisions (default; `node --import tsx bench/diff-replay.ts N` for another
 * size): time, CPU share, and memory while it streams, against a baseline
 * that only reads and parses the same file, and against a replay of a log a
 * tenth as long (memory should not grow with the log).
 *
 * Writes bench/results/diff-replay.json and prints a table.
 */
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { DecisionRecord } from '../src/audit/decision-log.js';
import type { MessageFact, PolicyInput } from '../src/core/types.js';
import { DEFAULT_WASM_URL } from '../src/engine/policy.js';
import { diffRuleSets, type DiffReport } from '../src/main/diff/diff.js';
import { prng } from './world.js';

const N = Number(process.argv[2] ?? 1_000_000);
const NOW = Date.parse('2026-06-01T12:00:00Z');
const MIN = 60_000;
const AGENTS = 10_000;
const CREWS = 100;
const TOOLS = ['github.merge_pull_request', 'github.get_pull_request', 'github.create_issue', 'payments.refund', 'wallet.propose_spend', 'deploy.production', 'fs.read_file', 'slack.post_message'];

const OLD = `planRequired:
  workspace: { mode: side_effects, windowMin: 60 }
  crews:
    c1: { mode: side_effects, windowMin: 15 }
    c2: { mode: side_effects, windowMin: 20, acceptUpstream: true }
    c3: { mode: side_effects, enforce: false }
    c4: { mode: spends_only }
    c5: { mode: side_effects, windowMin: 30 }
tools:
  default: effect
  read: [github.get_*, fs.read_file]
  effect: [github.merge_pull_request, "github.*", "slack.post_*"]
  spend: [wallet.propose_spend, "payments.*"]
`;
// The window of c1 shrinks, c3 turns from shadow to enforcing, deploy.* becomes spend, c0 gets a crew rule.
const NEW = OLD.replace('c1: { mode: side_effects, windowMin: 15 }', 'c1: { mode: side_effects, windowMin: 5 }')
  .replace('c3: { mode: side_effects, enforce: false }', 'c3: { mode: side_effects }')
  .replace('spend: [wallet.propose_spend, "payments.*"]', 'spend: [wallet.propose_spend, "payments.*", "deploy.*"]')
  .replace('  crews:\n', '  crews:\n    c0: { mode: spends_only }\n');

const log = (s: string): void => void process.stderr.write(`${s}\n`);
const mb = (bytes: number): number => Math.round(bytes / 2 ** 20 * 10) / 10;
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

/** Writes `n` decision-log lines, streamed (never held in memory). */
async function writeLog(file: string, n: number): Promise<void> {
  const rand = prng(12);
  const out = createWriteStream(file);
  let id = 1;
  const chunk: string[] = [];
  for (let i = 0; i < n; i++) {
    const a = Math.floor(rand() * AGENTS);
    const crew = `c${a % CREWS}`;
    const agent = `0xA${String(a).padStart(5, '0')}`;
    const tool = TOOLS[Math.floor(rand() * TOOLS.length)] as string;
    const messages: MessageFact[] = [];
    const facts = Math.floor(rand() * 4);
    for (let m = 0; m < facts; m++) {
      const ageMin = Math.floor(rand() * 90);
      messages.push({ id: String(id++), thread: m === 0 ? `agent:${agent}` : `crew:${crew}`, author: agent, authorKind: 'agent', kind: 'plan', at: NOW - ageMin * MIN });
    }
    const input: PolicyInput = { now: NOW, call: { agent, tool, delegatedBy: [] }, agent: { id: agent, known: true, crews: [crew, 'org-root'] }, upstream: [], messages };
    const record: DecisionRecord = { v: 1, time: new Date(NOW).toISOString(), input, allowed: true };
    chunk.push(JSON.stringify(record));
    if (chunk.length === 10_000 || i === n - 1) {
      if (!out.write(`${chunk.join('\n')}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
      chunk.length = 0;
    }
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

interface Measured { wallS: number; cpuPct: number; peakRssMB: number; peakHeapMB: number; rssBeforeMB: number; heapAfterGcMB: number }

/** Runs `fn`, sampling memory every 100 ms. */
async function measure<T>(fn: () => Promise<T>): Promise<{ result: T; m: Measured }> {
  gc();
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
  let peakHeap = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    const u = process.memoryUsage();
    peakRss = Math.max(peakRss, u.rss);
    peakHeap = Math.max(peakHeap, u.heapUsed);
  }, 100);
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const result = await fn();
  const wallNs = Number(process.hrtime.bigint() - t0);
  const cpu = process.cpuUsage(cpu0);
  clearInterval(timer);
  gc();
  return {
    result,
    m: {
      wallS: Math.round(wallNs / 1e7) / 100,
      cpuPct: Math.round(((cpu.user + cpu.system) * 1000 / wallNs) * 100),
      peakRssMB: mb(peakRss),
      peakHeapMB: mb(peakHeap),
      rssBeforeMB: mb(rssBefore),
      heapAfterGcMB: mb(process.memoryUsage().heapUsed),
    },
  };
}

async function parseOnly(file: string): Promise<number> {
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(file, { highWaterMark: 1 << 20 }), crlfDelay: Infinity })) {
    if (line) n += (JSON.parse(line) as { v: number }).v;
  }
  return n;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(os.tmpdir(), 'plangate-bench-diff-'));
  try {
    const oldDir = join(dir, 'old');
    const newDir = join(dir, 'new');
    mkdirSync(oldDir);
    mkdirSync(newDir);
    writeFileSync(join(oldDir, 'rules.yaml'), OLD);
    writeFileSync(join(newDir, 'rules.yaml'), NEW);
    const big = join(dir, 'decisions.jsonl');
    const small = join(dir, 'decisions-tenth.jsonl');
    let t = Date.now();
    await writeLog(big, N);
    await writeLog(small, Math.round(N / 10));
    log(`wrote ${N} + ${Math.round(N / 10)} decisions in ${((Date.now() - t) / 1000).toFixed(1)} s (${mb(statSync(big).size)} MiB)`);
    const policy = fileURLToPath(DEFAULT_WASM_URL);
    const replay = (file: string) => () => diffRuleSets({ old: oldDir, new: newDir, rulesDir: oldDir, policy, replay: file });

    t = Date.now();
    const baseline = await measure(() => parseOnly(big));
    log(`read + JSON.parse only: ${baseline.m.wallS} s`);
    const tenth = await measure(replay(small));
    log(`replay of ${Math.round(N / 10)}: ${tenth.m.wallS} s`);
    const full = await measure(replay(big));
    log(`replay of ${N}: ${full.m.wallS} s`);
    const r = (full.result as DiffReport).replay;

    const results = {
      date: new Date().toISOString(),
      machine: { cpu: os.cpus()[0]?.model, cores: os.cpus().length, node: process.version, platform: `${os.type()} ${os.release()} ${os.arch()}`, memGiB: Math.round(os.totalmem() / 2 ** 30 * 10) / 10, loadavg: os.loadavg() },
      decisions: N,
      fileMiB: mb(statSync(big).size),
      baseline: baseline.m,
      tenth: { decisions: Math.round(N / 10), ...tenth.m },
      full: { ...full.m, decisionsPerSec: Math.round(N / full.m.wallS) },
      ratios: {
        fullOverBaselineWall: Math.round(full.m.wallS / baseline.m.wallS * 100) / 100,
        fullOverTenthWall: Math.round(full.m.wallS / tenth.m.wallS * 100) / 100,
        fullOverTenthPeakHeap: Math.round(full.m.peakHeapMB / tenth.m.peakHeapMB * 100) / 100,
        fullOverTenthPeakRss: Math.round(full.m.peakRssMB / tenth.m.peakRssMB * 100) / 100,
      },
      flips: { toRefused: r?.toRefused.total, toAllowed: r?.toAllowed.total, refusedDifferently: r?.refusedDifferently.total, replayed: r?.replayed },
    };
    const outDir = new URL('./results/', import.meta.url);
    mkdirSync(outDir, { recursive: true });
    writeFileSync(new URL('diff-replay.json', outDir), `${JSON.stringify(results, null, 2)}\n`);
    console.log(JSON.stringify(results, null, 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
