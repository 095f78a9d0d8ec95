/**
 * npm run bench:policy-profile — where a hot evaluation's time goes, by rule.
 *
 * Evaluates `plangate/decide` of the built policy (policies/build) on the
 * inputs of bench:policy-parts for a few seconds under V8's sampling
 * profiler (node:inspector). Each rule of the policy is a WASM function
 * named after it (`g0.data.plangate.<package>.<rule>`), so a sample is
 * charged to the innermost rule on its stack: its own work and the runtime
 * functions it called (builtins, allocation, the memo table), but not the
 * rules it referenced. Samples outside every rule are the input's parsing,
 * the answer's writing and the JavaScript around the call. Read the shares
 * as where to look, not as exact costs: the profiler itself slows short
 * functions down.
 *
 * BENCH_PROFILE_MS sets how long to sample (default 4000), BENCH_PROFILE_TOP
 * how many rows to print (default 25).
 */
import { Session } from 'node:inspector/promises';
import { Engine, ENTRYPOINTS } from '../src/engine/policy.js';
import { policyInputs } from './policy-inputs.js';

const MESSAGES = 300_000;
const CALLS = 2_000;
const MS = Number(process.env['BENCH_PROFILE_MS'] ?? 4_000);
const TOP = Number(process.env['BENCH_PROFILE_TOP'] ?? 25);
const RULE = 'g0.data.';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

/** Shares of the samples: by innermost rule, by leaf function, and under a few runtime functions. */
function tally(profile: Profile): { total: number; byRule: Map<string, number>; byLeaf: Map<string, number>; under: Map<string, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const watched = ['opa_eval', 'eval', 'opa_memoize_get', 'opa_memoize_insert', 'opa_json_dump', 'opa_value_parse'];
  const byRule = new Map<string, number>();
  const byLeaf = new Map<string, number>();
  const under = new Map<string, number>();
  const add = (m: Map<string, number>, k: string): void => void m.set(k, (m.get(k) ?? 0) + 1);
  let total = 0;
  for (const leaf of profile.samples) {
    const frame = byId.get(leaf)?.callFrame;
    if (!frame || frame.functionName === '(idle)' || frame.functionName === '(program)') continue;
    total++;
    add(byLeaf, frame.functionName || `(${frame.url.split('/').pop() ?? 'anonymous'})`);
    let rule: string | undefined;
    const seen = new Set<string>();
    for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) {
      const name = byId.get(id)?.callFrame.functionName ?? '';
      if (rule === undefined && name.startsWith(RULE)) rule = name.slice(RULE.length);
      if (watched.includes(name) && !seen.has(name)) {
        seen.add(name);
        add(under, name);
      }
    }
    add(byRule, rule ?? '(outside every rule)');
  }
  return { total, byRule, byLeaf, under };
}

function print(title: string, m: Map<string, number>, total: number): void {
  process.stdout.write(`\n${title}\n`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, TOP)) process.stdout.write(`${((100 * v) / total).toFixed(1).padStart(6)} %  ${k}\n`);
}

async function main(): Promise<void> {
  const world = await policyInputs(MESSAGES, CALLS);
  const engine = await Engine.load({ data: world.rules, rulesRevision: 'bench' });
  const run = (i: number): unknown => engine.evaluate(ENTRYPOINTS.decide, world.inputs[i % CALLS] as object);
  for (let i = 0; i < 20_000; i++) run(i);
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 50 });
  await session.post('Profiler.start');
  const t0 = process.hrtime.bigint();
  let n = 0;
  while (Number(process.hrtime.bigint() - t0) / 1e6 < MS) for (let k = 0; k < 1_000; k++) run(n++);
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
  session.disconnect();
  const us = Number(process.hrtime.bigint() - t0) / 1e3 / n;
  const t = tally(profile);
  process.stdout.write(`plangate/decide under the profiler: ${n} evaluations, ${us.toFixed(1)} µs each (slower than unprofiled), ${t.total} samples\n`);
  print('under these runtime functions (inclusive)', t.under, t.total);
  print('by innermost rule (its own work and the runtime functions it called)', t.byRule, t.total);
  print('by leaf function', t.byLeaf, t.total);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:policy-profile failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
