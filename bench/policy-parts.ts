/**
 * npm run bench:policy-parts — where the hot entrypoint's time goes.
 *
 * Builds the policy several times with the pinned OPA, each time with
 * `plangate/decide` cut down to a part of the answer (the settings alone,
 * the plans that count, the refusal message, …), and evaluates every build
 * and the floor on the same inputs through the same input path
 * (src/engine/abi.ts), interleaved, so the parts' costs are read as
 * differences measured in one run. Inputs are built by the gate from the
 * bench's world (bench/world.ts) on the memory store.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPolicy } from '@open-policy-agent/opa-wasm';
import type { PolicyInput } from '../src/core/types.js';
import { withIndexes } from '../src/core/rules-index.js';
import { rawEvaluator } from '../src/engine/abi.js';
import { findOpa } from '../test/http/opa-server.js';
import { loadFloor } from './opa.js';
import { interleave, summarize } from './stats.js';
import { buildPolicyWasm } from '../test/support/policy-build.js';
import { policyInputs } from './policy-inputs.js';

const POLICY = fileURLToPath(new URL('../policies/plangate/', import.meta.url));
const MESSAGES = 300_000;
const CALLS = 2_000;
const N = 20_000;

/**
 * Each part: what `plangate/decide` answers in that build. A part that may
 * be undefined is wrapped in a comprehension (`[d | d := …]`), which is
 * always defined: an undefined value inside an object literal would make the
 * whole answer undefined, and the build would time an early exit.
 */
const PARTS: Array<[name: string, decide: string]> = [
  ['nothing (a constant)', '{"x": 1}'],
  ['+ the settings in force', '{"s": settings.values}'],
  ['+ the plans that count', '{"s": settings.values, "n": count(plans.counting)}'],
  ['+ class, gated, allowed', '{"s": settings.values, "a": plan_required.allowed}'],
  ['+ the deciding check', '{"s": settings.values, "a": plan_required.allowed, "d": [d | d := compose.deciding]}'],
  ['+ the refusal message', '{"s": settings.values, "a": plan_required.allowed, "m": [m | m := compose.message]}'],
  ['the whole answer', 'compose.answer if compose.complete'],
];

function build(opa: { bin: string }, decide: string, dir: string): Uint8Array {
  const src = join(dir, 'src');
  mkdirSync(src, { recursive: true });
  for (const f of readdirSync(POLICY)) if (f.endsWith('.rego') && !f.endsWith('_test.rego')) copyFileSync(join(POLICY, f), join(src, f));
  // The entrypoint is in decision.rego; the parts also read plan_required and plans.
  const entry = readFileSync(join(src, 'decision.rego'), 'utf8');
  const imports = ['plan_required', 'plans'].filter((p) => !entry.includes(`import data.plangate.${p}\n`));
  const cut = entry
    .replace(/^decide := .*$/m, `decide := ${decide}`)
    .replace('import data.plangate.compose\n', ['compose', ...imports].map((p) => `import data.plangate.${p}\n`).join(''));
  if (cut === entry) throw new Error('decision.rego has no `decide :=` to cut down');
  writeFileSync(join(src, 'decision.rego'), cut);
  return buildPolicyWasm(opa, src, dir, ['plangate/decide']);
}

async function main(): Promise<void> {
  const opa = findOpa();
  const floorPolicy = await loadFloor();
  if (!opa || !floorPolicy) throw new Error('bench:policy-parts needs the pinned OPA (.tools/bin/opa)');
  const world = await policyInputs(MESSAGES, CALLS);
  const dir = mkdtempSync(join(os.tmpdir(), 'plangate-parts-'));
  const ops: Record<string, (i: number) => unknown> = {};
  try {
    for (const [k, [name, decide]] of PARTS.entries()) {
      const policy = await loadPolicy(build(opa, decide, join(dir, String(k))));
      policy.setData({ plangate: { rules: withIndexes(world.rules) } });
      const evaluate = rawEvaluator(policy);
      const undefinedFor = world.inputs.filter((x) => (evaluate(x, 'plangate/decide') as unknown[]).length === 0).length;
      if (undefinedFor > 0) throw new Error(`"${decide}" is undefined for ${undefinedFor} of ${CALLS} inputs: its time would be an early exit`);
      ops[name] = (i) => evaluate(world.inputs[i % CALLS] as PolicyInput, 'plangate/decide');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const floor = rawEvaluator(floorPolicy);
  ops['the floor'] = (i) => floor(world.inputs[i % CALLS] as PolicyInput, 'floor/allow');
  const samples = await interleave(N, 3_000, 20, ops);
  const floorP50 = summarize(samples['the floor']!).p50;
  const facts = world.inputs.reduce((n, x) => n + x.messages.length, 0) / CALLS;
  process.stdout.write(`plangate/decide cut down to each part, same inputs (${facts.toFixed(2)} facts each), interleaved; µs\n`);
  process.stdout.write(`${'answer'.padEnd(28)}${'p50'.padStart(8)}${'p99'.padStart(8)}${'× floor'.padStart(9)}\n`);
  for (const [name, s] of Object.entries(samples)) {
    const x = summarize(s);
    process.stdout.write(`${name.padEnd(28)}${String(x.p50).padStart(8)}${String(x.p99).padStart(8)}${(x.p50 / floorP50).toFixed(2).padStart(9)}\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:policy-parts failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
