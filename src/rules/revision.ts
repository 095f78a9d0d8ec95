/**
 * A rule set's revision: the sha256 of its files' names and bytes. Kept
 * apart from the parser, so that a process can name the rules it read
 * without loading YAML (see main/rules-cache.ts).
 */
import { createHash } from 'node:crypto';

/**
 * sha256 (hex) over the (name, bytes) pairs in name order: changes exactly
 * when some file's content or name does.
 *
 * @example
 * rulesRevision([{ file: 'a.yaml', bytes: new TextEncoder().encode('tools: {}\n') }]) // '…64 hex digits'
 */
export function rulesRevision(files: ReadonlyArray<{ file: string; bytes: Uint8Array }>): string {
  const hash = createHash('sha256');
  for (const f of [...files].sort((a, b) => compareText(a.file, b.file))) {
    // Name and length first, so that no two different sets hash the same stream.
    hash.update(`${f.file}\0${f.bytes.byteLength}\0`);
    hash.update(f.bytes);
  }
  return hash.digest('hex');
}

/** Code-point order, as file names are sorted everywhere (not locale order). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
