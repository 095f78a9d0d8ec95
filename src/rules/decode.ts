/**
 * Bytes → text for rule files: strict UTF-8, a leading BOM dropped, and the
 * line:column of the first invalid byte when the bytes are not UTF-8.
 */
import type { Problem } from '../core/errors.js';

const BOM = '\uFEFF';

/** The result of decoding one rule file. */
export type Decoded = { ok: true; text: string } | { ok: false; problem: Problem };

/**
 * Decodes a rule file as strict UTF-8 and strips a byte-order mark.
 *
 * @example
 * decodeRuleText('a.yaml', new Uint8Array([0x61, 0xff]))
 * // { ok: false, problem: { file: 'a.yaml', line: 1, col: 2, message: 'not valid UTF-8 (byte 0xFF at offset 1) …' } }
 */
export function decodeRuleText(file: string, bytes: Uint8Array): Decoded {
  try {
    // ignoreBOM: false (the default) makes the decoder drop a leading BOM.
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes) };
  } catch {
    const offset = firstInvalidUtf8(bytes);
    const { line, col } = positionOf(bytes, offset);
    const byte = (bytes[offset] ?? 0).toString(16).toUpperCase().padStart(2, '0');
    return {
      ok: false,
      problem: {
        file,
        line,
        col,
        message: `not valid UTF-8 (byte 0x${byte} at offset ${offset}); rule files must be UTF-8 text`,
      },
    };
  }
}

/**
 * Drops one leading byte-order mark from already decoded text, if any.
 *
 * @example
 * stripBom('\uFEFFplanRequired: {}') // 'planRequired: {}'
 */
export function stripBom(text: string): string {
  return text.startsWith(BOM) ? text.slice(1) : text;
}

/**
 * The offset of the first byte that does not belong to a well-formed UTF-8
 * sequence (overlong forms, surrogates and code points above U+10FFFF are
 * ill-formed), or `bytes.length` when all are well-formed.
 *
 * @example
 * firstInvalidUtf8(new Uint8Array([0x61, 0xc0, 0xaf])) // 1 (an overlong '/')
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      i += 1;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0; // no overlong 3-byte forms
      if (b === 0xed) hi = 0x9f; // no UTF-16 surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90; // no overlong 4-byte forms
      if (b === 0xf4) hi = 0x8f; // nothing above U+10FFFF
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      const min = k === 1 ? lo : 0x80;
      const max = k === 1 ? hi : 0xbf;
      // A truncated or broken sequence: the lead byte is where it goes wrong.
      if (c === undefined || c < min || c > max) return i;
    }
    i += need + 1;
  }
  return bytes.length;
}

/** 1-based line and column (in UTF-16 units, as the YAML parser counts) of a byte offset. */
function positionOf(bytes: Uint8Array, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === 0x0a) {
      line += 1;
      lineStart = i + 1;
    }
  }
  // Everything before `offset` is valid UTF-8, so it decodes.
  const before = new TextDecoder('utf-8').decode(bytes.subarray(lineStart, offset));
  const bomCols = line === 1 && before.startsWith(BOM) ? 1 : 0;
  return { line, col: before.length - bomCols + 1 };
}
