/**
 * npm run bench:policy-variants -- DIR [DIR …] — time versions of the policy
 * against each other before keeping a change.
 *
 * Each DIR is a folder of .rego files (the policy as it is, or a copy with a
 * change; `_test.rego` files are left out). Each is built with the pinned OPA
 * into WASM for `plangate/decide`, loaded by the SDK with the bench's rules,
 * and evaluated through the engine's input path (src/engine/abi.ts) on the
 * inputs of bench:policy-parts, interleaved with the others and the floor,
 * so their costs compare within one run. Before timing, every version must
 * answer every input exactly as the first does; the bench names the first
 * input where one does not and stops (a faster policy that decides
 * differently is not a faster policy). With BENCH_VARIANTS_ANSWERS=differ a
 * version may answer otherwise (to price a change of the answer itself): the
 * bench counts the inputs it answers differently and times it all the same.
 *
 * @example
 * cp -r policies/plangate /tmp/try && $EDITOR /tmp/try/plans.rego
 * npm run bench:policy-variants -- policies/plangate /tmp/try
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { loadPolicy } from '@open-policy-agent/opa-wasm';
import { withIndexes } from '../src/core/rules-index.js';
import { rawEvaluator } from '../src/engine/abi.js';
import { findOpa } from '../test/http/opa-server.js';
import { loadFloor } from './opa.js';
import { buildPolicyWasm } from '../test/support/policy-build.js';
import { policyInputs } from './policy-inputs.js';
import { interleave, summarize } from './stats.js';

const MESSAGES = Number(process.env['BENCH_VARIANTS_MESSAGES'] ?? 300_000);
const CALLS = 2_000;
const N = 20_000;
const ENTRYPOINT = 'plangate/decide';

async function main(): Promise<void> {
  const dirs = process.argv.slice(2);
  if (dirs.length === 0) throw new Error('name at least one folder of .rego files: npm run bench:policy-variants -- policies/plangate /tmp/try');
  const opa = findOpa();
  const floorPolicy = await loadFloor();
  if (!opa || !floorPolicy) throw new Error('bench:policy-variants needs the pinned OPA (.tools/bin/opa)');
  const world = await policyInputs(MESSAGES, CALLS);
  const rules = withIndexes(world.rules);
  const tmp = mkdtempSync(join(os.tmpdir(), 'plangate-variants-'));
  const ops: Record<string, (i: number) => unknown> = {};
  let allSame = true;
  try {
    let reference: string[] | undefined;
    for (const [k, dir] of dirs.entries()) {
      // Only the folder's own .rego files, as the product's build takes policies/plangate.
      const work = join(tmp, String(k));
      const src = join(work, 'src');
      mkdirSync(src, { recursive: true });
      for (const f of readdirSync(dir)) if (f.endsWith('.rego') && !f.endsWith('_test.rego')) copyFileSync(join(dir, f), join(src, f));
      const policy = await loadPolicy(buildPolicyWasm(opa, src, work, [ENTRYPOINT]));
      policy.setData({ plangate: { rules } });
      const evaluate = rawEvaluator(policy);
      const answers = world.inputs.map((x) => JSON.stringify(evaluate(x, ENTRYPOINT)));
      if (reference === undefined) reference = answers;
      const differs = answers.findIndex((a, i) => a !== (reference as string[])[i]);
      if (differs >= 0 && process.env['BENCH_VARIANTS_ANSWERS'] === 'differ') {
        const n = answers.filter((a, i) => a !== (reference as string[])[i]).length;
        process.stdout.write(`${dir} answers ${n} of ${CALLS} inputs otherwise than ${dirs[0]} (allowed by BENCH_VARIANTS_ANSWERS=differ)\n`);
        allSame = false;
      } else if (differs >= 0) {
        throw new Error(`${dir} answers input ${differs} otherwise than ${dirs[0]}:\n  ${(reference as string[])[differs]}\n  ${answers[differs]}\ninput: ${JSON.stringify(world.inputs[differs])}`);
      }
      ops[`${k}: ${dir}`] = (i) => evaluate(world.inputs[i % CALLS] as object, ENTRYPOINT);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const floor = rawEvaluator(floorPolicy);
  ops['the floor'] = (i) => floor(world.inputs[i % CALLS] as object, 'floor/allow');
  const samples = await interleave(N, 3_000, 20, ops);
  const facts = world.inputs.reduce((n, x) => n + x.messages.length, 0) / CALLS;
  const agreement = allSame ? `same answers on all ${CALLS} inputs` : `${CALLS} inputs, not all answered alike`;
  process.stdout.write(`${ENTRYPOINT} of each version, ${agreement} (${facts.toFixed(2)} facts each), interleaved; µs\n`);
  process.stdout.write(`${'version'.padEnd(40)}${'p50'.padStart(8)}${'p99'.padStart(8)}\n`);
  for (const [name, s] of Object.entries(samples)) {
    const x = summarize(s);
    process.stdout.write(`${name.padEnd(40)}${String(x.p50).padStart(8)}${String(x.p99).padStart(8)}\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:policy-variants failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
