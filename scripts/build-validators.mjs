// Compiles the JSON Schemas that plangate checks on every start (a call, a
// rule file) into standalone validators (ajv standalone code), each in a
// generated/ folder of the layer that uses it, so that no process compiles
// them at run time: a one-shot command such as `plangate hook` starts without
// that work. Run by `npm run build` and `npm test`; the files are not kept in
// git, and a test checks that they are those the schemas give.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const v of VALIDATORS) {
    mkdirSync(dirname(join(ROOT, v.file)), { recursive: true });
    writeFileSync(join(ROOT, v.file), generate(v));
  }
}
