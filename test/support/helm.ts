/**
 * The Helm CLI for the chart tests: `.tools/bin/helm` (where `.ci/run` installs the pinned
 * version with `go install`) or `helm` on PATH. In CI a missing helm fails the suite; locally
 * the chart tests are skipped with one loud line naming them.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export const HELM_VERSION_FILE = 'deploy/HELM_VERSION';

export function findHelm(what: string): string | undefined {
  for (const candidate of [join(import.meta.dirname, '..', '..', '.tools', 'bin', 'helm'), 'helm']) {
    if (spawnSync(candidate, ['version', '--short'], { encoding: 'utf8' }).status === 0) return candidate;
  }
  if (process.env['CI'] === 'true') throw new Error(`helm is not installed in CI: ${what} must run; .ci/run installs it into .tools/bin`);
  process.stderr.write(`\n!!! SKIPPED (no helm): ${what} — install it with GOBIN=$PWD/.tools/bin go install helm.sh/helm/v3/cmd/helm@$(cat ${HELM_VERSION_FILE})\n\n`);
  return undefined;
}
