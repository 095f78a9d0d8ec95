/**
 * npm run bench:lower-bound — what the hot answer's targets leave room for.
 *
 * The bench's refusals are plan-required refusals (about 70 % of its calls).
 * Any policy that gives plangate's answer to such a call must at least find
 * the tool's class, the settings in force, the acting agent's plans in the
 * threads it speaks in, and build the code and the message. Two measuring
 * sticks do that work and nothing more (bench/lower-bound/):
 *
 *  - split: as small rules, the style of policies/plangate;
 *  - single: as one rule, every value a local variable of one body;
 *
 * and a third does no work at all:
 *
 *  - emit: gives back one refusal's answer, handed in as data, for every
 *    input: what writing the answer out of WASM and parsing it costs alone.
 *
 * Neither knows holds, the read guard, runs, delegations or upstream plans,
 * so they get only the bench's plan-required refusals that have none, and
 * before anything is timed split and single must give, for every one of those inputs,
 * the same fields as plangate's own answer (allowed, check, class, code,
 * gated, message, reason, settings). Then all three and the floor are timed
 * in WASM through the engine's input path, interleaved, and each is timed by
 * OPA's Go evaluator (`opa bench`) on the first of those inputs.
 *
 * @example
 * npm run bench:lower-bound
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { loadPolicy, type LoadedPolicy } from '@open-policy-agent/opa-wasm';
import type { PolicyInput } from '../src/core/types.js';
import { withIndexes } from '../src/core/rules-index.js';
import { rawEvaluator } from '../src/engine/abi.js';
import { findOpa } from '../test/http/opa-server.js';
import { buildPolicyWasm } from '../test/support/policy-build.js';
import { loadFloor, opaBenchOnce } from './opa.js';
import { policyInputs } from './policy-inputs.js';
import { interleave, round, summarize } from './stats.js';

const ROOT = join(import.meta.dirname, '..');
// The core bench's world (bench/run.ts): 1M messages, about 3 facts per input.
const MESSAGES = Number(process.env['BENCH_LOWER_BOUND_MESSAGES'] ?? 1_000_000);
const CALLS = 2_000;
const N = 20_000;
const ENTRYPOINT = 'plangate/decide';
const POLICIES = {
  plangate: join(ROOT, 'policies', 'plangate'),
  split: join(import.meta.dirname, 'lower-bound', 'split'),
  single: join(import.meta.dirname, 'lower-bound', 'single'),
  emit: join(import.meta.dirname, 'lower-bound', 'emit'),
};
/** The fields of plangate's answer the measuring sticks must match. */
const FIELDS = ['allowed', 'check', 'class', 'code', 'gated', 'message', 'reason', 'settings'] as const;

type Answer = Record<string, unknown>;

/** A plan-required refusal with no hold, run, delegation or upstream seat: what the sticks know. */
function plainRefusal(input: PolicyInput, answer: Answer | undefined): boolean {
  return (
    answer?.['check'] === 'plan_required' &&
    input.hold == null &&
    input.run == null &&
    input.call.runId === undefined &&
    (input.call.delegatedBy ?? []).length === 0 &&
    input.upstream.length === 0
  );
}

function fields(answer: Answer | undefined): string {
  return JSON.stringify(FIELDS.map((f) => answer?.[f]));
}

async function main(): Promise<void> {
  const opa = findOpa();
  const floorPolicy = await loadFloor();
  if (!opa || !floorPolicy) throw new Error('bench:lower-bound needs the pinned OPA (.tools/bin/opa)');
  const world = await policyInputs(MESSAGES, CALLS);
  const rules = withIndexes(world.rules);
  const tmp = mkdtempSync(join(os.tmpdir(), 'plangate-lower-bound-'));
  try {
    const policies: Record<string, LoadedPolicy> = {};
    const sources: Record<string, string> = {};
    for (const [name, dir] of Object.entries(POLICIES)) {
      const src = join(tmp, name, 'src');
      mkdirSync(src, { recursive: true });
      for (const f of readdirSync(dir)) if (f.endsWith('.rego') && !f.endsWith('_test.rego')) copyFileSync(join(dir, f), join(src, f));
      policies[name] = await loadPolicy(buildPolicyWasm(opa, src, join(tmp, name), [ENTRYPOINT]));
      sources[name] = src;
    }
    const evaluate: Record<string, (x: object) => Answer | undefined> = {};
    const load = (name: string, data: object): void => {
      const policy = policies[name] as LoadedPolicy;
      policy.setData(data);
      const run = rawEvaluator(policy);
      evaluate[name] = (x) => (run(x, ENTRYPOINT) as Array<{ result: Answer }>)[0]?.result;
    };
    const data = { plangate: { rules } };
    load('plangate', data);
    const own = evaluate['plangate'] as (x: object) => Answer | undefined;
    const chosen = world.inputs.filter((x) => plainRefusal(x, own(x)));
    if (chosen.length === 0) throw new Error('the world gave no plain plan-required refusal');
    const emitted = { plangate: { rules, emit: own(chosen[0] as object) } };
    for (const name of Object.keys(POLICIES)) if (name !== 'plangate') load(name, name === 'emit' ? emitted : data);
    for (const name of ['split', 'single']) {
      const stick = evaluate[name] as (x: object) => Answer | undefined;
      const at = chosen.findIndex((x) => fields(stick(x)) !== fields(own(x)));
      if (at >= 0) {
        throw new Error(`${name} answers otherwise than plangate:\n  ${fields(own(chosen[at] as object))}\n  ${fields(stick(chosen[at] as object))}\ninput: ${JSON.stringify(chosen[at])}`);
      }
    }
    const floor = rawEvaluator(floorPolicy);
    const ops: Record<string, (i: number) => unknown> = {};
    for (const [name, run] of Object.entries(evaluate)) ops[name] = (i) => run(chosen[i % chosen.length] as object);
    ops['floor'] = (i) => floor(chosen[i % chosen.length] as object, 'floor/allow');
    const samples = await interleave(N, 3_000, 20, ops);
    const floorP50 = summarize(samples['floor']!).p50;
    const facts = chosen.reduce((n, x) => n + x.messages.length, 0) / chosen.length;
    const out: string[] = [];
    out.push(`${chosen.length} plain plan-required refusals of ${CALLS} calls (${facts.toFixed(2)} facts each), split and single give plangate's fields for each; µs`);
    out.push(`${'policy'.padEnd(12)}${'p50'.padStart(8)}${'p99'.padStart(8)}${'× floor'.padStart(10)}${'opa bench'.padStart(12)}${'allocs'.padStart(8)}`);
    const dataFile = (name: string): string => {
      const file = join(tmp, `${name}.data.json`);
      writeFileSync(file, JSON.stringify(name === 'emit' ? emitted : data));
      return file;
    };
    const input = join(tmp, 'input.json');
    writeFileSync(input, JSON.stringify(chosen[0]));
    for (const [name, s] of Object.entries(samples)) {
      const x = summarize(s);
      const go = name in sources ? opaBenchOnce(opa.bin, ['-d', sources[name] as string, '-d', dataFile(name)], input, 'data.plangate.decide') : null;
      out.push(
        `${name.padEnd(12)}${String(x.p50).padStart(8)}${String(x.p99).padStart(8)}${String(round(x.p50 / floorP50)).padStart(10)}` +
          `${(go ? String(go.medianUs) : '').padStart(12)}${(go ? String(go.allocsPerOp) : '').padStart(8)}`,
      );
    }
    process.stdout.write(`${out.join('\n')}\nopa bench: median of data.plangate.decide on the first of those inputs, OPA ${opa.version}\n`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:lower-bound failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
