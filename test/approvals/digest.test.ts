/**
 * The digest an approval is bound to, against a value worked out apart from
 * plangate: SHA-256 (hex) of the RFC 8785 canonical text
 * `{"a":[true,"é"],"b":1,"c":{"x":1e+21,"y":0.5}}` (keys sorted, no
 * whitespace, numbers as ECMAScript prints them, UTF-8).
 */
import { describe, expect, it } from 'vitest';
import { argsDigest } from '../../src/core/digest.js';

const KNOWN = '13636a908d5c7664365ba0b69b1a193d0b04758e072604d1151099734bff805c';

describe('argsDigest', () => {
  it('is the SHA-256 of the canonical text, whatever the key order and number spelling', () => {
    expect(argsDigest({ c: { y: 0.5, x: 1e21 }, b: 1, a: [true, 'é'] })).toBe(KNOWN);
    expect(argsDigest(JSON.parse('{ "b": 1.0, "a": [true, "\\u00e9"], "c": { "x": 1000000000000000000000, "y": 5e-1 } }'))).toBe(KNOWN);
    expect(argsDigest({ c: { y: 0.5, x: 1e21 }, b: 2, a: [true, 'é'] })).not.toBe(KNOWN);
  });
});
