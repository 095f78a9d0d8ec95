// npm test: the Rego checks (scripts/check-policy.mjs), the generated schema
// validators (scripts/build-validators.mjs), a type-checked build,
// then the vitest suite; ends with one plain summary line "N passed, N failed".
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './opa.mjs';

const results = join(ROOT, '.data', 'test-results.json');
function step(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit' });
  return r.status ?? 1;
}

let status = step(process.execPath, ['scripts/check-policy.mjs']);
// The standalone schema validators the sources import (src/*/generated/), made from the schemas as they are now.
if (status === 0) status = step(process.execPath, ['scripts/build-validators.mjs']);
if (status === 0) status = step('npx', ['tsc', '-p', '.']);
if (status === 0) status = step('npx', ['tsc', '-p', 'tsconfig.test.json']);
if (status === 0) status = step('npx', ['tsc', '-p', 'src/adapters/console/web/tsconfig.json']);
let summary = 'tests: 0 passed, 1 failed (the suite did not run: the policy checks or the build failed)';
if (status === 0) {
  mkdirSync(join(ROOT, '.data'), { recursive: true });
  rmSync(results, { force: true });
  const extra = process.argv.slice(2);
  status = step('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...extra]);
  try {
    const r = JSON.parse(readFileSync(results, 'utf8'));
    const skipped = r.numPendingTests + r.numTodoTests;
    summary = `tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`;
    if (r.numTotalTests === 0) status = status || 1;
  } catch {
    summary = 'tests: 0 passed, 1 failed (no vitest results were written)';
    status = status || 1;
  }
}
console.log(summary);
process.exit(status);
