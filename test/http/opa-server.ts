/**
 * Starts the real OPA server (`opa run -s`) on a bundle from `plangate
 * compile`, for the differential test and the benchmark. Finds the pinned
 * binary like scripts/opa.mjs: `.tools/bin/opa`, else `opa` on PATH.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeBundle } from '../../src/engine/bundle.js';
import { loadRules } from '../../src/rules/load.js';
import { freePort, waitFor } from '../support/net.js';

// Also exported here, for the benches that start opa beside plangate.
export { freePort, waitFor };

const ROOT = join(import.meta.dirname, '..', '..');

/** The opa binary and its version, or null when there is none. */
export function findOpa(): { bin: string; version: string } | null {
  for (const bin of [join(ROOT, '.tools', 'bin', 'opa'), 'opa']) {
    const r = spawnSync(bin, ['version'], { encoding: 'utf8' });
    if (r.status === 0) return { bin, version: /Version: (\S+)/.exec(r.stdout)?.[1] ?? 'unknown' };
  }
  return null;
}

export interface OpaServer {
  url: string;
  bundle: string;
  process: ChildProcess;
  close(): Promise<void>;
}

/**
 * Compiles `rulesDir` with writeBundle (what `plangate compile` writes) and
 * serves it with `opa run -s -b`.
 */
export async function startOpaServer(opa: { bin: string }, rulesDir: string, extraArgs: string[] = []): Promise<OpaServer> {
  const rules = await loadRules(rulesDir);
  const bundle = join(mkdtempSync(join(tmpdir(), 'plangate-opa-')), 'bundle.tar.gz');
  await writeBundle({ data: rules.data, revision: rules.revision, out: bundle });
  const port = await freePort();
  const child = spawn(opa.bin, ['run', '-s', '-b', bundle, '--addr', `127.0.0.1:${port}`, '--log-level', 'error', ...extraArgs], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => { stderr += c.toString(); });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${url}/health?bundles`);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`opa run -s did not start: ${String(error)}\n${stderr}`);
  }
  return {
    url,
    bundle,
    process: child,
    close: () => new Promise((done) => {
      if (child.exitCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
    }),
  };
}
