// The standalone schema validators plangate generates at build time (ajv
// standalone code): which schemas, with which options, and the source of
// each. scripts/build-validators.mjs writes them; a test checks them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standalone from 'ajv/dist/standalone/index.js';
import { ROOT } from './opa.mjs';

const standaloneCode = standalone.default ?? standalone;

/** Each validator: its schema and the options the code that reads its errors relies on. */
export const VALIDATORS = [
  { file: 'src/gate/generated/call-validator.ts', schema: 'schemas/call.schema.json', options: { allErrors: true, strict: true } },
  // verbose: rules/schema.ts words its errors from each error's schema and data.
  { file: 'src/rules/generated/rules-validator.ts', schema: 'schemas/rules.schema.json', options: { allErrors: true, strict: true, verbose: true } },
];

/**
 * The ajv runtime helpers the generated code uses, as ESM imports (ajv writes
 * `require("…").default`). Node gives a CommonJS module's exports as its
 * default import, Vite (the tests) its `default` export: either is taken.
 */
function asEsm(code) {
  const imports = [];
  const out = code.replace(/require\("(ajv\/dist\/runtime\/[a-z0-9]+)"\)\.default/gi, (_, path) => {
    const name = `runtime_${imports.length}`;
    imports.push(`import ${name} from '${path}.js';`);
    return `(${name}.default ?? ${name})`;
  });
  if (/require\(/.test(out)) throw new Error('the generated validator requires a module this script does not know how to import');
  return { imports, code: out };
}

/** The source of one generated validator. */
export function generate({ schema, options }) {
  const ajv = new Ajv2020({ ...options, code: { source: true, esm: true } });
  const validate = ajv.compile(JSON.parse(readFileSync(join(ROOT, schema), 'utf8')));
  const { imports, code } = asEsm(standaloneCode(ajv, validate));
  return [
    `// Generated from ${schema} by scripts/build-validators.mjs (ajv standalone); do not edit.`,
    '// @ts-nocheck',
    ...imports,
    code,
    '',
  ].join('\n');
}
