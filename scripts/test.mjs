// npm test: everything this machine can run. The Rego checks
// (scripts/check-policy.mjs), the generated schema validators
// (scripts/build-validators.mjs), a type-checked build, then the vitest
// suite, with a throwaway PostgreSQL cluster started here (scripts/postgres.mjs)
// when PLANGATE_TEST_POSTGRES is not set and the server binaries are
// installed, stopped at exit. Under CI=true a missing OPA, PostgreSQL or
// Chromium fails the run; elsewhere each missing part is one loud line
// naming what is skipped. Ends with one plain summary line "N passed, N failed".
//
// npm run test:unit (--unit): the fast loop — the validators and the vitest
// suite without PostgreSQL, the browser, the install test and the build.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { findOpa, ROOT } from './opa.mjs';
import { findPostgresBin, startPostgres } from './postgres.mjs';

const CHROMIUM = '/usr/bin/chromium';
const CI = process.env.CI === 'true';
const unit = process.argv.includes('--unit');
const extra = process.argv.slice(2).filter((a) => a !== '--unit');
const env = { ...process.env };

const results = join(ROOT, '.data', 'test-results.json');
function step(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', env });
  return r.status ?? 1;
}
const loud = (text) => console.error(`\n!!! ${text}\n`);

let missing = [];
let postgres;
if (unit) {
  // The unit loop never waits for a database: the PostgreSQL tests say they are skipped, once each.
  env.PLANGATE_TEST_POSTGRES = '';
  env.PLANGATE_TEST_UNIT = 'true';
  delete env.CI;
  console.error('test:unit: PostgreSQL, the browser tests and the install test are not run (npm test runs them)');
} else {
  if (!findOpa()) missing.push('OPA (the Rego checks and the differential tests against opa): GOBIN=$PWD/.tools/bin go install github.com/open-policy-agent/opa@$(cat policies/OPA_VERSION)');
  if (!existsSync(CHROMIUM)) missing.push(`Chromium (the console's browser tests): apt-get install -y chromium`);
  if (!env.PLANGATE_TEST_POSTGRES) {
    const bin = findPostgresBin();
    if (!bin) missing.push('PostgreSQL (the store, audit and replica tests): apt-get install -y postgresql, or set PLANGATE_TEST_POSTGRES=postgres://…');
    else {
      try {
        postgres = await startPostgres(bin);
        env.PLANGATE_TEST_POSTGRES = postgres.url;
        console.error(`test: a throwaway PostgreSQL (${bin}) on 127.0.0.1:${postgres.port}, removed at exit`);
      } catch (error) {
        missing.push(`PostgreSQL: the throwaway cluster did not start: ${error.message}`);
      }
    }
  }
  if (missing.length > 0 && CI) {
    for (const m of missing) loud(`CI=true and missing: ${m}`);
    postgres?.stop();
    console.log(`tests: 0 passed, 1 failed (CI=true needs ${missing.length} missing part(s))`);
    process.exit(1);
  }
  for (const m of missing) loud(`SKIPPED, missing ${m}`);
}
const stopPostgres = () => postgres?.stop();
process.on('exit', stopPostgres);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => { stopPostgres(); process.exit(130); });

let status = unit ? 0 : step(process.execPath, ['scripts/check-policy.mjs']);
// The standalone schema validators the sources import (src/*/generated/), made from the schemas as they are now.
if (status === 0) status = step(process.execPath, ['scripts/build-validators.mjs']);
if (!unit) {
  if (status === 0) status = step('npx', ['tsc', '-p', '.']);
  if (status === 0) status = step('npx', ['tsc', '-p', 'tsconfig.test.json']);
  if (status === 0) status = step('npx', ['tsc', '-p', 'src/adapters/console/web/tsconfig.json']);
}
let summary = 'tests: 0 passed, 1 failed (the suite did not run: the policy checks or the build failed)';
if (status === 0) {
  mkdirSync(join(ROOT, '.data'), { recursive: true });
  rmSync(results, { force: true });
  const skip = unit ? ['--exclude', 'test/install/**', '--exclude', 'test/**/*.browser.test.ts', '--exclude', 'test/replicas/**'] : [];
  status = step('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...skip, ...extra]);
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
for (const m of missing) loud(`SKIPPED, missing ${m}`);
console.log(summary);
stopPostgres();
process.exit(status);
