export { Engine, DEFAULT_WASM_URL, ENTRYPOINTS, type Evaluator } from './policy.js';
export { writeBundle, type BundleOptions, type BundleResult } from './bundle.js';
