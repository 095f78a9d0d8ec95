/**
 * npm run bench:hook — what `plangate hook` costs an agent host per tool
 * call: the wall time of one `plangate hook` process (start, open the rules,
 * the policy and the SQLite store, decide, answer), for a refused call and an
 * allowed one, against Node's own start (`node -e 0`), which any hook
 * written for Node pays. Runs the built CLI (bin/plangate.js over dist/), as
 * a host does: `npm run build` first.
 *
 * @example
 * npm run build && npm run bench:hook
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { percentile, round } from './stats.js';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'plangate.js');
const RUNS = Number(process.env['BENCH_HOOK_RUNS'] ?? 40);

function payload(tool: string, input: object): string {
  return JSON.stringify({
    session_id: 'bench', transcript_path: '/tmp/transcript', cwd: '/tmp', permission_mode: 'default',
    hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: 'tool-1',
  });
}

/** Wall times in ms of `runs` runs of `args`, with `stdin`; checks each answer with `expect`. */
function time(args: string[], stdin: string, expect: (out: string) => boolean): Float64Array {
  const ms = new Float64Array(RUNS);
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { input: stdin, encoding: 'utf8' });
    ms[i] = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0 || !expect(r.stdout)) throw new Error(`${args.join(' ')} answered ${r.status}: ${r.stdout}${r.stderr}`);
  }
  return ms.sort();
}

function main(): void {
  if (!existsSync(join(ROOT, 'dist', 'adapters', 'cli', 'main.js'))) throw new Error('bench:hook runs the built CLI: npm run build first');
  const dir = mkdtempSync(join(os.tmpdir(), 'plangate-bench-hook-'));
  try {
    cpSync(join(ROOT, 'examples', 'rules'), join(dir, 'rules'), { recursive: true });
    const hook = [BIN, 'hook', '--agent', '0xWORKER', '--rules', join(dir, 'rules'), '--store', join(dir, 'store.db'), '--audit', join(dir, 'audit.jsonl')];
    const rows: Array<[string, Float64Array]> = [
      ['node -e 0 (Node starting)', time(['-e', '0'], '', () => true)],
      ['plangate hook, refused (Write)', time(hook, payload('Write', { file_path: '/tmp/x', content: 'hi' }), (out) => out.includes('"deny"'))],
      ['plangate hook, allowed (a read)', time(hook, payload('github.get_issue', { number: 1 }), (out) => !out.includes('"deny"'))],
    ];
    const out = [`${RUNS} runs each, ms      ${'p50'.padStart(8)}${'p90'.padStart(8)}${'max'.padStart(8)}`];
    for (const [name, ms] of rows) {
      out.push(`${name.padEnd(32)}${String(round(percentile(ms, 50), 1)).padStart(8)}${String(round(percentile(ms, 90), 1)).padStart(8)}${String(round(ms[ms.length - 1] as number, 1)).padStart(8)}`);
    }
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
