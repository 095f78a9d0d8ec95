/**
 * The two reference points of `npm run bench`:
 *
 *  - the floor: a trivial one-rule policy built by the pinned OPA into WASM
 *    and evaluated by the same SDK (@open-policy-agent/opa-wasm) with the
 *    same inputs as plangate's policy: what any decision through this design
 *    costs at least;
 *  - OPA's own Go evaluator (`opa bench`) on the bundle `plangate compile`
 *    writes for the bench's rules, with one of the bench's inputs, for the
 *    hot entrypoint (`data.plangate.decide`) and the explain one
 *    (`data.plangate.decision`).
 *
 * Both need the pinned OPA (.tools/bin/opa or opa on PATH); without it they
 * return null and the bench says so.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { loadPolicy, type LoadedPolicy } from '@open-policy-agent/opa-wasm';
import type { PolicyInput, RulesData } from '../src/core/types.js';
import { writeBundle } from '../src/engine/bundle.js';
import { extractFromTarGz } from '../src/engine/source.js';
import { findOpa } from '../test/http/opa-server.js';

/** The floor's one rule: as little as a policy can do with the same input. */
export const FLOOR_REGO = `package floor

allow if input.call.tool != ""
`;

/** Builds the floor with the pinned OPA and loads it through the SDK, or null without OPA. */
export async function loadFloor(): Promise<LoadedPolicy | null> {
  const opa = findOpa();
  if (!opa) return null;
  const dir = mkdtempSync(join(os.tmpdir(), 'plangate-floor-'));
  try {
    writeFileSync(join(dir, 'floor.rego'), FLOOR_REGO);
    const out = join(dir, 'bundle.tar.gz');
    const r = spawnSync(opa.bin, ['build', '-t', 'wasm', '-e', 'floor/allow', '-o', out, join(dir, 'floor.rego')], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`opa build of the floor failed: ${r.stderr}`);
    return await loadPolicy(extractFromTarGz(readFileSync(out), 'policy.wasm'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One `opa bench` result, in µs. */
export interface OpaBenchResult {
  query: string;
  input: string;
  n: number;
  medianUs: number;
  p90Us: number;
  p99Us: number;
  meanUs: number;
  allocsPerOp: number;
}

const us = (ns: number | undefined): number => Math.round((ns ?? NaN) / 100) / 10;

/**
 * One `opa bench` of `query` on `input` (a JSON file), the policy and data
 * named by `sources` (`-b bundle.tar.gz`, or `-d` folders and files).
 *
 * @example
 * opaBenchOnce(opa.bin, ['-b', 'bundle.tar.gz'], 'input.json', 'data.plangate.decide');
 */
export function opaBenchOnce(bin: string, sources: readonly string[], input: string, query: string): Omit<OpaBenchResult, 'query' | 'input'> {
  const r = spawnSync(bin, ['bench', ...sources, '-i', input, '--format', 'json', query], { encoding: 'utf8', maxBuffer: 16 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`opa bench ${query} failed: ${r.stderr}`);
  const out = JSON.parse(r.stdout) as { N: number; T: number; MemAllocs: number; Extra: Record<string, number> };
  const h = (k: string): number | undefined => out.Extra[`histogram_timer_rego_query_eval_ns_${k}`];
  return { n: out.N, medianUs: us(h('median')), p90Us: us(h('90%')), p99Us: us(h('99%')), meanUs: us(h('mean')), allocsPerOp: Math.round(out.MemAllocs / out.N) };
}

/**
 * Runs `opa bench -b bundle.tar.gz -i input.json QUERY` for every query and
 * input on the bundle of `rules`, or returns null without OPA.
 */
export async function runOpaBench(rules: RulesData, inputs: Record<string, PolicyInput>, queries: readonly string[]): Promise<{ version: string; command: string; results: OpaBenchResult[] } | null> {
  const opa = findOpa();
  if (!opa) return null;
  const dir = mkdtempSync(join(os.tmpdir(), 'plangate-opa-bench-'));
  try {
    const bundle = join(dir, 'bundle.tar.gz');
    await writeBundle({ data: rules, revision: 'bench', out: bundle });
    const results: OpaBenchResult[] = [];
    for (const [name, input] of Object.entries(inputs)) {
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify(input));
      for (const query of queries) results.push({ query, input: name, ...opaBenchOnce(opa.bin, ['-b', bundle], file, query) });
    }
    return { version: opa.version, command: 'opa bench -b bundle.tar.gz -i input.json --format json QUERY', results };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
