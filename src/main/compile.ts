/**
 * The compile cache: the last policy compiled, by sha256, so that a reload
 * of the rules alone does not compile the WASM again.
 */
import { ErrorCode, PlangateError, toError } from '../core/errors.js';
import type { CompiledPolicy } from '../engine/policy.js';
import type { PolicyBytes } from '../engine/source.js';

/** The last policy compiled, by sha256: a reload of the rules alone does not compile the WASM again. */
let compiledPolicy: { sha256: string; module: CompiledPolicy } | undefined;

/**
 * Compiles policy.wasm to a WebAssembly module, reusing the last one when the
 * bytes are the same. Throws `policy_unavailable` when it does not compile.
 *
 * @example
 * const module = await compilePolicy(await readPolicy('policies/build/policy.wasm'));
 */
export async function compilePolicy(policy: PolicyBytes): Promise<CompiledPolicy> {
  if (compiledPolicy?.sha256 === policy.sha256) return compiledPolicy.module;
  const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<CompiledPolicy> } }).WebAssembly;
  let module: CompiledPolicy;
  try {
    module = await wasm.compile(policy.bytes);
  } catch (thrown) {
    throw new PlangateError(ErrorCode.PolicyUnavailable, `policy.wasm cannot be loaded: ${toError(thrown).message}`, [], { cause: thrown });
  }
  compiledPolicy = { sha256: policy.sha256, module };
  return module;
}

