/**
 * Where things live by default, and the environment variables that move them.
 */
import { resolve } from 'node:path';
import { ErrorCode, PlangateError } from '../core/errors.js';
import { fileURLToPath } from 'node:url';
import { DEFAULT_WASM_URL } from '../engine/policy.js';
import { POSTGRES_URL, redactUrl } from '../facts/postgres/url.js';

export interface Paths {
  /** Directory of YAML rule files. */
  rules: string;
  /** SQLite file, `:memory:`, or a `postgres://` URL (shared by several replicas). */
  store: string;
  /** JSONL audit file, or a `postgres://` URL; with a PostgreSQL store it defaults to the store's database. */
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
  const given = (key: keyof Paths): string | undefined => explicit[key] ?? (env[PATH_ENV[key]] || undefined);
  const pick = (key: keyof Paths, fallback: string = DEFAULT_PATHS[key]): string => {
    const value = given(key) ?? fallback;
    return value === ':memory:' || isUrl(value) ? value : resolve(value);
  };
  const store = pick('store');
  // Several replicas share a PostgreSQL store: their audit goes to the same database, not to each one's file.
  const audit = pick('audit', storeKind(store) === 'postgres' ? store : DEFAULT_PATHS.audit);
  return { rules: pick('rules'), store, audit, policy: pick('policy') };
}

/** `scheme://…`: a URL, never a file name. */
function isUrl(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value);
}

/**
 * What a store (or audit) location names: `memory`, an `sqlite` file or a
 * `postgres` database. Any other URL scheme is an error, not a file name.
 *
 * @example
 * storeKind('postgres://db/plangate') // 'postgres'
 * storeKind('mysql://db')             // throws invalid_input
 */
export function storeKind(location: string): 'memory' | 'sqlite' | 'postgres' {
  if (location === ':memory:') return 'memory';
  if (POSTGRES_URL.test(location)) return 'postgres';
  if (isUrl(location)) {
    const scheme = location.slice(0, location.indexOf(':'));
    throw new PlangateError(
      ErrorCode.InvalidInput,
      `unsupported store URL scheme "${scheme}:" in ${redactUrl(location)}: use postgres://… (or postgresql://…) for PostgreSQL, a file path for SQLite, or :memory:`,
    );
  }
  return 'sqlite';
}

/** A location fit for logs: a URL's password is replaced by `***`. */
export function describeLocation(location: string): string {
  return isUrl(location) ? redactUrl(location) : location;
}
