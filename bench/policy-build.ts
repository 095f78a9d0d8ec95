/**
 * Building a folder of .rego files into policy.wasm with the pinned OPA, for
 * the policy benches: the JS SDK's builtins and ABI versions as capabilities
 * (as scripts/opa.mjs builds the product), one entrypoint.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractFromTarGz } from '../src/engine/source.js';

const SDK_CAPABILITIES = fileURLToPath(new URL('../node_modules/@open-policy-agent/opa-wasm/capabilities.json', import.meta.url));

/**
 * Builds `src` (its `_test.rego` files left out) into `dir`/bundle.tar.gz and
 * returns the policy.wasm in it.
 *
 * @example
 * const wasm = buildPolicyWasm(findOpa()!, 'policies/plangate', tmp, 'plangate/decide');
 */
export function buildPolicyWasm(opa: { bin: string }, src: string, dir: string, entrypoint: string): Uint8Array {
  const sdk = JSON.parse(readFileSync(SDK_CAPABILITIES, 'utf8')) as { builtins: unknown; wasm_abi_versions: unknown };
  const current = JSON.parse(spawnSync(opa.bin, ['capabilities', '--current'], { encoding: 'utf8' }).stdout) as Record<string, unknown>;
  const caps = join(dir, 'capabilities.json');
  writeFileSync(caps, JSON.stringify({ builtins: sdk.builtins, wasm_abi_versions: sdk.wasm_abi_versions, features: current.features, future_keywords: current.future_keywords }));
  const out = join(dir, 'bundle.tar.gz');
  const r = spawnSync(opa.bin, ['build', '-t', 'wasm', '--capabilities', caps, '--ignore', '*_test.rego', '-e', entrypoint, '-o', out, src], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`opa build of ${src} failed: ${r.stderr || r.stdout}`);
  return extractFromTarGz(readFileSync(out), 'policy.wasm');
}
