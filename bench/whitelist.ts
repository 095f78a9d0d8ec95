/**
 * npm run bench:whitelist — a held agent's call against whitelists of
 * growing length, with the whitelist index (index.whitelists, as plangate
 * hands its rules to the policy) and without it (the same policy matching
 * each entry as written, as a data document without the index is matched).
 *
 * Each whitelist holds plain names and prefix patterns, half each, all with
 * the same first character (`svc…`), so every pattern shares one bucket of
 * the index: the case the index helps least. The call is to a tool the list
 * does not hold but whose name starts like every entry (each pattern is
 * tried), and to a plain name on it. Evaluated through the engine's input
 * path (src/engine/abi.ts) on the committed policy.
 *
 * @example
 * npm run bench:whitelist
 */
import { readFile } from 'node:fs/promises';
import { loadPolicy } from '@open-policy-agent/opa-wasm';
import { withMatchIndex } from '../src/core/patterns.js';
import type { RulesData } from '../src/core/rules.js';
import { withIndexes } from '../src/core/rules-index.js';
import { rawEvaluator } from '../src/engine/abi.js';
import { DEFAULT_WASM_URL } from '../src/engine/policy.js';
import { measure, summarize } from './stats.js';

const SIZES = [10, 100, 1_000, 8_000];
const NOW = Date.UTC(2026, 11, 4, 12);

function rules(size: number): RulesData {
  const whitelist = Array.from({ length: size }, (_, i) => (i % 2 === 0 ? `svc${i}.read_file` : `svc${i}.get_*`));
  return {
    planRequired: { crews: {}, agents: {} },
    tools: { default: 'effect', exact: {}, patterns: [] },
    planningGate: { defaults: { whitelist, source: 'bench.yaml:1:1' }, profiles: {}, crews: {}, agents: {} },
  };
}

function held(tool: string): object {
  return {
    now: NOW,
    call: { agent: '0xHELD', tool },
    agent: { id: '0xHELD', known: true, crews: [] },
    upstream: [],
    messages: [],
    hold: { id: '1', kind: 'on_demand', placedBy: 'ops', placedAt: NOW - 1000, plans: 0, pushBacks: 0 },
  };
}

async function main(): Promise<void> {
  const bytes = await readFile(DEFAULT_WASM_URL);
  const out: string[] = [`${'entries'.padStart(8)}  ${'call'.padEnd(26)}${'indexed p50'.padStart(12)}${'p99'.padStart(9)}${'as written p50'.padStart(16)}${'p99'.padStart(9)}  µs`];
  for (const size of SIZES) {
    const data = rules(size);
    const indexed = await loadPolicy(bytes);
    indexed.setData({ plangate: { rules: withIndexes(data) } });
    const plain = await loadPolicy(bytes);
    plain.setData({ plangate: { rules: withMatchIndex(data) } });
    const a = rawEvaluator(indexed);
    const b = rawEvaluator(plain);
    for (const [label, tool, open] of [['refused (svc.delete_all)', 'svc.delete_all', false], ['whitelisted (plain name)', 'svc0.read_file', true]] as const) {
      const input = held(tool);
      for (const run of [a, b]) {
        const answer = (run(input, 'plangate/decide') as Array<{ result: { allowed: boolean } }>)[0]?.result;
        if (answer?.allowed !== open) throw new Error(`${tool} with ${size} entries: allowed ${answer?.allowed}, expected ${open}`);
      }
      // Fewer rounds where each call takes long, so every size finishes in seconds.
      const n = size >= 1_000 ? 300 : 3_000;
      const x = summarize(await measure(n, n / 10, () => a(input, 'plangate/decide')));
      const y = summarize(await measure(n, n / 10, () => b(input, 'plangate/decide')));
      out.push(`${String(size).padStart(8)}  ${label.padEnd(26)}${String(x.p50).padStart(12)}${String(x.p99).padStart(9)}${String(y.p50).padStart(16)}${String(y.p99).padStart(9)}`);
    }
  }
  process.stdout.write(`a held agent's call, plangate/decide\n${out.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:whitelist failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
