/**
 * Every test file starts from plangate's defaults: a `PLANGATE_*` setting in
 * the shell that runs the tests (a rules directory, a store, tokens) would
 * otherwise reach the code under test and every CLI it spawns. The test
 * suite's own settings (`PLANGATE_TEST_*`) stay. plangate's cache (compiled
 * modules, checked rules) goes to a folder of this file's own, never the
 * user's `~/.cache/plangate`.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

for (const name of Object.keys(process.env)) {
  if (name.startsWith('PLANGATE_') && !name.startsWith('PLANGATE_TEST_')) delete process.env[name];
}
process.env['XDG_CACHE_HOME'] = mkdtempSync(join(os.tmpdir(), 'plangate-test-cache-'));
