/**
 * Where things live by default, and the environment variables that move them.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_WASM_URL } from '../engine/policy.js';

export interface Paths {
  /** Directory of YAML rule files. */
  rules: string;
  /** SQLite file, or `:memory:`. */
  store: string;
  /** JSONL audit file. */
  audit: string;
  /** The compiled policy: a policy.wasm, or an OPA bundle (.tar.gz) holding one. */
  policy: string;
}

export const DEFAULT_PATHS: Paths = {
  rules: 'rules',
  store: '.data/plangate.db',
  audit: '.data/audit.jsonl',
  policy: fileURLToPath(DEFAULT_WASM_URL),
};

/** The environment variable for each path. */
export const PATH_ENV: Record<keyof Paths, string> = {
  rules: 'PLANGATE_RULES',
  store: 'PLANGATE_STORE',
  audit: 'PLANGATE_AUDIT',
  policy: 'PLANGATE_POLICY',
};

/**
 * Resolves paths: explicit options first, then the environment, then the defaults.
 *
 * @example
 * resolvePaths({ rules: 'examples/rules' }, process.env).store // '.data/plangate.db' unless PLANGATE_STORE is set
 */
export function resolvePaths(explicit: Partial<Paths>, env: NodeJS.ProcessEnv = process.env): Paths {
  const pick = (key: keyof Paths): string => {
    const value = explicit[key] ?? env[PATH_ENV[key]] ?? DEFAULT_PATHS[key];
    return value === ':memory:' ? value : resolve(value);
  };
  return { rules: pick('rules'), store: pick('store'), audit: pick('audit'), policy: pick('policy') };
}
