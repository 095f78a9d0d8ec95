// Part of `npm test`: the Rego checks that need the OPA CLI — opa fmt, opa check
// --strict, opa test with a coverage threshold, and a rebuild that fails when the
// committed policies/build/policy.wasm is stale. Without opa it says loudly which
// checks it skipped and exits 0, so the rest of the suite still runs.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD_DIR, OPA_VERSION, POLICY_DIR, buildWasm, findOpa, run } from './opa.mjs';

const COVERAGE_THRESHOLD = 100;
const CHECKS = ['opa fmt', 'opa check --strict', `opa test (coverage >= ${COVERAGE_THRESHOLD}%)`, 'policy.wasm staleness'];

const opa = findOpa();
if (!opa) {
  // Under CI=true the checks must run: a missing OPA fails, never skips.
  const ci = process.env.CI === 'true';
  console.error(
    `\n!!! OPA CLI not found: ${ci ? 'FAILED (CI=true)' : 'SKIPPED'} ${CHECKS.join(', ')}. Install it with: ` +
      `GOBIN=$PWD/.tools/bin go install github.com/open-policy-agent/opa@${OPA_VERSION} !!!\n`,
  );
  process.exit(ci ? 1 : 0);
}
if (opa.version !== OPA_VERSION.replace(/^v/, '')) {
  console.error(`check-policy: opa ${opa.version} found, ${OPA_VERSION} pinned; the staleness check needs the pinned version`);
  process.exit(1);
}

let failed = false;
function step(name, fn) {
  const problem = fn();
  if (problem) {
    failed = true;
    console.error(`✗ ${name}\n${problem}`);
  } else {
    console.log(`✓ ${name}`);
  }
}

step('opa fmt', () => {
  const r = run(opa, ['fmt', '--list', '--fail', POLICY_DIR]);
  return r.status === 0 ? null : `files not formatted (run: opa fmt -w policies):\n${r.stdout}${r.stderr}`;
});
step('opa check --strict', () => {
  const r = run(opa, ['check', '--strict', POLICY_DIR]);
  return r.status === 0 ? null : r.stdout + r.stderr;
});
step(`opa test (coverage >= ${COVERAGE_THRESHOLD}%)`, () => {
  const t = run(opa, ['test', POLICY_DIR]);
  if (t.status !== 0) return t.stdout + t.stderr;
  const c = run(opa, ['test', '--coverage', '--format', 'json', POLICY_DIR]);
  const report = JSON.parse(c.stdout);
  const pct = report.coverage;
  const missing = Object.entries(report.files ?? {})
    .filter(([, f]) => f.not_covered?.length)
    .map(([name, f]) => `  ${name}: lines ${f.not_covered.map((r) => `${r.start.row}-${r.end.row}`).join(', ')}`);
  console.log(`  ${t.stdout.trim().split('\n').pop()}; coverage ${pct.toFixed(1)}%`);
  return pct >= COVERAGE_THRESHOLD ? null : `coverage ${pct}% below ${COVERAGE_THRESHOLD}%:\n${missing.join('\n')}`;
});
step('policy.wasm is up to date', () => {
  const committed = JSON.parse(readFileSync(join(BUILD_DIR, 'policy.json'), 'utf8'));
  const fresh = createHash('sha256').update(buildWasm(opa)).digest('hex');
  const onDisk = createHash('sha256').update(readFileSync(join(BUILD_DIR, 'policy.wasm'))).digest('hex');
  if (fresh !== committed.sha256 || onDisk !== committed.sha256) {
    return `policies/build/policy.wasm is stale (rebuilt ${fresh}, committed ${onDisk}, recorded ${committed.sha256}); run npm run build:policy`;
  }
  return null;
});
process.exit(failed ? 1 : 0);
