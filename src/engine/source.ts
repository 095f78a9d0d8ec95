/**
 * Reading the compiled policy from disk: a bare `policy.wasm`, or an OPA
 * bundle (`.tar.gz`, as `plangate compile` or `opa build -t wasm` writes it)
 * holding one. Only the WASM is taken from a bundle; the rules always come
 * from the rules directory.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ErrorCode, PlangateError, toError } from '../core/errors.js';

/** The policy bytes and their sha256 (hex). */
export interface PolicyBytes {
  bytes: Uint8Array;
  sha256: string;
}

/** Largest policy file read (64 MiB): a bigger one is refused, not loaded. */
export const MAX_POLICY_BYTES = 64 * 1024 * 1024;

/**
 * Whether a path names an OPA bundle rather than a bare WASM module.
 *
 * @example
 * isBundlePath('dist/bundle.tar.gz') // true
 */
export function isBundlePath(file: string): boolean {
  return /\.(tar\.gz|tgz)$/i.test(file);
}

/**
 * Reads the policy: the file itself, or `policy.wasm` out of a bundle.
 * Throws `policy_unavailable` when it is missing, unreadable, too large, or
 * a bundle without a `policy.wasm`. (Whether the bytes are a valid policy is
 * checked when the engine loads them.)
 *
 * @example
 * const { bytes, sha256 } = await readPolicy('policies/build/policy.wasm');
 */
export async function readPolicy(file: string | URL): Promise<PolicyBytes> {
  const name = typeof file === 'string' ? file : file.pathname;
  let raw: Uint8Array;
  try {
    raw = await readFile(file);
  } catch (thrown) {
    throw unavailable(`the policy ${name} cannot be read: ${describe(thrown)}`, thrown);
  }
  if (raw.byteLength > MAX_POLICY_BYTES) throw unavailable(`the policy ${name} is too large: ${raw.byteLength} bytes (at most ${MAX_POLICY_BYTES})`);
  let bytes = raw;
  if (isBundlePath(name)) {
    try {
      bytes = extractFromTarGz(raw, 'policy.wasm');
    } catch (thrown) {
      throw unavailable(`the bundle ${name} holds no readable policy.wasm: ${toError(thrown).message}`, thrown);
    }
  }
  return { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/**
 * One member of a gzipped ustar archive; names match with or without the
 * leading slash OPA writes.
 *
 * @example
 * extractFromTarGz(readFileSync('bundle.tar.gz'), 'policy.wasm')
 */
export function extractFromTarGz(gz: Uint8Array, wanted: string): Uint8Array {
  // Loaded here, not on import: a bare policy.wasm (every hook process's) needs no zlib.
  const { gunzipSync } = process.getBuiltinModule('node:zlib') as typeof import('node:zlib');
  const tar = gunzipSync(gz);
  let off = 0;
  while (off + 512 <= tar.length) {
    const header = tar.subarray(off, off + 512);
    if (header.every((b) => b === 0)) break;
    const field = (from: number, to: number): string => header.subarray(from, to).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(field(124, 136).trim() || '0', 8);
    if (!Number.isSafeInteger(size) || size < 0) throw new Error('corrupt tar header');
    const prefix = field(345, 500);
    const full = (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100)).replace(/^\/+/, '');
    if (full === wanted) {
      if (off + 512 + size > tar.length) throw new Error(`${wanted} is truncated`);
      return tar.subarray(off + 512, off + 512 + size);
    }
    off += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${wanted} not found`);
}

function unavailable(message: string, cause?: unknown): PlangateError {
  return new PlangateError(ErrorCode.PolicyUnavailable, message, [], cause === undefined ? undefined : { cause });
}

function describe(thrown: unknown): string {
  const code = (thrown as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'no such file (ENOENT)';
  if (code === 'EACCES') return 'permission denied (EACCES)';
  if (code === 'EISDIR') return 'is a directory (EISDIR)';
  return toError(thrown).message;
}
