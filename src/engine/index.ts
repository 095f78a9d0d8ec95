export { Engine, DEFAULT_WASM_URL, ENTRYPOINTS, type Evaluator } from './policy.js';
export { writeBundle, type BundleOptions, type BundleResult } from './bundle.js';
export {
  PolicyHolder,
  enforcing,
  failingOpen,
  failOpenEvaluator,
  type PolicyInfo,
  type PolicySnapshot,
  type RulesInfo,
} from './holder.js';
export { readPolicy, isBundlePath, extractFromTarGz, MAX_POLICY_BYTES, type PolicyBytes } from './source.js';
