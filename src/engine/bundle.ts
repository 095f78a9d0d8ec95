/**
 * `plangate compile`: a standard OPA bundle of the policy and the rules —
 * `.manifest`, `data.json`, the Rego sources and `policy.wasm` — that
 * `opa run -b` serves as is, so a gateway that already speaks OPA can use
 * plangate's rules unchanged.
 */
import { withIndexes } from '../core/rules-index.js';
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile, rename } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RulesData } from '../core/types.js';
import { DEFAULT_WASM_URL, ENTRYPOINTS } from './policy.js';

const POLICY_SOURCES = fileURLToPath(new URL('../../policies/plangate/', import.meta.url));

export interface BundleOptions {
  data: RulesData;
  /** The rules revision, written to the manifest. */
  revision: string;
  /** Output path of the `.tar.gz`. */
  out: string;
  /**
   * Declare policy.wasm in the manifest's `wasm` section, so an OPA built with
   * its WebAssembly engine evaluates the WASM instead of the Rego. Off by
   * default: a stock `opa` binary refuses bundles that declare WASM modules.
   */
  wasmResolvers?: boolean;
}

export interface BundleResult {
  out: string;
  files: string[];
  wasmSha256: string;
}

/**
 * Writes the bundle atomically (temp file, then rename).
 *
 * @example
 * await writeBundle({ data: rules.data, revision: rules.revision, out: 'bundle.tar.gz' });
 */
export async function writeBundle(options: BundleOptions): Promise<BundleResult> {
  const stage = await mkdtemp(join(tmpdir(), 'plangate-bundle-'));
  try {
    const wasm = await readFile(DEFAULT_WASM_URL);
    const wasmSha256 = createHash('sha256').update(wasm).digest('hex');
    const rego = (await readdir(POLICY_SOURCES)).filter((f) => f.endsWith('.rego') && !f.endsWith('_test.rego')).sort();
    const manifest = {
      revision: options.revision,
      roots: ['plangate'],
      rego_version: 1,
      ...(options.wasmResolvers
        ? { wasm: Object.values(ENTRYPOINTS).map((entrypoint) => ({ entrypoint, module: '/policy.wasm' })) }
        : {}),
      metadata: { plangate: { policyWasmSha256: wasmSha256, entrypoints: Object.values(ENTRYPOINTS) } },
    };
    await mkdir(join(stage, 'policies', 'plangate'), { recursive: true });
    await writeFile(join(stage, '.manifest'), JSON.stringify(manifest));
    await writeFile(join(stage, 'data.json'), JSON.stringify({ plangate: { rules: withIndexes(options.data) } }));
    await writeFile(join(stage, 'policy.wasm'), wasm);
    for (const file of rego) {
      await writeFile(join(stage, 'policies', 'plangate', file), await readFile(join(POLICY_SOURCES, file)));
    }
    const files = ['.manifest', 'data.json', 'policy.wasm', ...rego.map((f) => `policies/plangate/${f}`)];
    await mkdir(dirname(options.out), { recursive: true });
    const tmp = join(dirname(options.out), `.${basename(options.out)}.${process.pid}.tmp`);
    // tar is loaded only to write a bundle (plangate compile), not by every command that opens the engine.
    const { create: createTar } = await import('tar');
    await createTar({ gzip: true, cwd: stage, file: tmp, portable: true, mtime: new Date(0) }, files);
    await rename(tmp, options.out);
    return { out: options.out, files, wasmSha256 };
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}
