// Locating and running the pinned OPA CLI, shared by the policy scripts.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OPA_VERSION = readFileSync(join(ROOT, 'policies', 'OPA_VERSION'), 'utf8').trim();
/** Relative to ROOT (every opa command runs there): the built WASM embeds source paths, so an absolute path would make it depend on the checkout's location. */
export const POLICY_DIR = 'policies/plangate';
export const BUILD_DIR = join(ROOT, 'policies', 'build');
export const ENTRYPOINTS = ['plangate/decide', 'plangate/decision', 'plangate/effective', 'plangate/planning_settings', 'plangate/hold_allowed', 'plangate/quota', 'plangate/approval_possible', 'plangate/approver_allowed', 'plangate/approval_settled'];
const SDK_CAPABILITIES = join(ROOT, 'node_modules', '@open-policy-agent', 'opa-wasm', 'capabilities.json');

/** The opa binary: `.tools/bin/opa` if installed there, else `opa` on PATH, else null. */
export function findOpa() {
  const local = join(ROOT, '.tools', 'bin', 'opa');
  for (const candidate of [local, 'opa']) {
    const r = spawnSync(candidate, ['version'], { encoding: 'utf8' });
    if (r.status === 0) {
      const version = /Version: (\S+)/.exec(r.stdout)?.[1];
      return { bin: candidate, version };
    }
  }
  return null;
}

/** Most bytes of an opa command's output kept: the coverage report is over 1 MiB, spawnSync's default bound. */
const OPA_OUTPUT_BYTES = 64 * 1024 * 1024;

export function run(opa, args, options = {}) {
  // Past maxBuffer spawnSync kills the command and keeps what it read so far: a cut report.
  return spawnSync(opa.bin, args, { encoding: 'utf8', cwd: ROOT, maxBuffer: OPA_OUTPUT_BYTES, ...options });
}

/**
 * Capabilities for the WASM build: the JS SDK's builtins and ABI versions
 * (so a builtin the SDK cannot run fails the build) with the language
 * features of the pinned OPA (v1 syntax).
 */
export function writeCapabilities(opa, dir) {
  const sdk = JSON.parse(readFileSync(SDK_CAPABILITIES, 'utf8'));
  const current = JSON.parse(execFileSync(opa.bin, ['capabilities', '--current'], { encoding: 'utf8' }));
  const merged = {
    builtins: sdk.builtins,
    wasm_abi_versions: sdk.wasm_abi_versions,
    features: current.features,
    future_keywords: current.future_keywords,
  };
  const file = join(dir, 'capabilities.json');
  writeFileSync(file, JSON.stringify(merged));
  return file;
}

/** Builds the policy into a WASM bundle in a temp dir; returns the extracted policy.wasm bytes. */
export function buildWasm(opa) {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-build-'));
  try {
    const caps = writeCapabilities(opa, dir);
    const out = join(dir, 'bundle.tar.gz');
    const args = ['build', '-t', 'wasm', '--capabilities', caps, '--ignore', '*_test.rego'];
    for (const e of ENTRYPOINTS) args.push('-e', e);
    args.push('-o', out, POLICY_DIR);
    const r = run(opa, args);
    if (r.status !== 0) throw new Error(`opa build failed:\n${r.stderr || r.stdout}`);
    return extractFromTarGz(readFileSync(out), 'policy.wasm');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Reads one member of a gzipped tar (ustar), matching names with or without a leading slash. */
export function extractFromTarGz(gz, wanted) {
  const tar = gunzipSync(gz);
  let off = 0;
  while (off + 512 <= tar.length) {
    const header = tar.subarray(off, off + 512);
    if (header.every((b) => b === 0)) break;
    const name = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const prefix = header.subarray(345, 500).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(header.subarray(124, 136).toString('utf8').replace(/\0.*$/s, '').trim() || '0', 8);
    const full = (prefix ? `${prefix}/${name}` : name).replace(/^\/+/, '');
    if (full === wanted) return tar.subarray(off + 512, off + 512 + size);
    off += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${wanted} not found in bundle`);
}

export { existsSync };
