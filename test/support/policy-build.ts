/**
 * Building a folder of .rego files into policy.wasm with the pinned OPA and
 * the capabilities the product's build uses (scripts/opa.mjs), for tests and
 * benches that compile a changed copy of the policy.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeCapabilities } from '../../scripts/opa.mjs';
import { extractFromTarGz } from '../../src/engine/source.js';

/**
 * Builds `src` (its `_test.rego` files left out) into `dir`/bundle.tar.gz for
 * `entrypoints` and returns the policy.wasm in it.
 *
 * @example
 * const wasm = buildPolicyWasm(findOpa()!, 'policies/plangate', tmp, ['plangate/decide']);
 */
export function buildPolicyWasm(opa: { bin: string }, src: string, dir: string, entrypoints: readonly string[]): Uint8Array {
  const caps = writeCapabilities(opa, dir);
  const out = join(dir, 'bundle.tar.gz');
  const args = ['build', '-t', 'wasm', '--capabilities', caps, '--ignore', '*_test.rego', ...entrypoints.flatMap((e) => ['-e', e]), '-o', out, src];
  const r = spawnSync(opa.bin, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`opa build of ${src} failed: ${r.stderr || r.stdout}`);
  return extractFromTarGz(readFileSync(out), 'policy.wasm');
}
