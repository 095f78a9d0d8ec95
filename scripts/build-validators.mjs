// Compiles the JSON Schemas that plangate checks on every start (a call, a
// rule file) into standalone validators (ajv standalone code, see
// validators.mjs), each in a generated/ folder of the layer that uses it, so
// that no process compiles them at run time: a one-shot command such as
// `plangate hook` starts without that work. Run by `npm run build` and
// `npm test`; the files are not kept in git, and a test checks that they are
// those the schemas give.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './opa.mjs';
import { VALIDATORS, generate } from './validators.mjs';

for (const v of VALIDATORS) {
  mkdirSync(dirname(join(ROOT, v.file)), { recursive: true });
  writeFileSync(join(ROOT, v.file), generate(v));
}
