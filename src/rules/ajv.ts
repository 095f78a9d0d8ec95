/**
 * ajv (JSON Schema draft 2020-12) for the schemas compiled at run time (a
 * crew blueprint, a test suite, an HTTP request body), loaded when the first
 * of them is compiled. The schemas every start checks (a call, a rule file)
 * are compiled at build time (scripts/build-validators.mjs), so a command
 * that compiles nothing else, such as `plangate hook`, never loads ajv.
 */
import { createRequire } from 'node:module';
import type { Ajv2020, Options } from 'ajv/dist/2020.js';

const require = createRequire(import.meta.url);

/**
 * A new ajv instance with `options`.
 *
 * @example
 * const validate = createAjv({ allErrors: true, strict: true }).compile(schema);
 */
export function createAjv(options: Options): Ajv2020 {
  const ajv = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  return new ajv.Ajv2020(options);
}
