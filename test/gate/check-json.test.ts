/**
 * checkJson names the same problem, at the same place, as a plain
 * depth-first walk with an explicit stack (the reference below), for any
 * JSON value: lone surrogates in strings and keys, and nesting past the cap.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkJson, isWellFormed } from '../../src/core/json.js';
import { PlangateError } from '../../src/core/errors.js';

function reference(value: unknown, maxDepth: number): string | undefined {
  const esc = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');
  const stack: Array<{ value: unknown; pointer: string; depth: number }> = [{ value, pointer: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: v, pointer, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (!isWellFormed(v)) return `string ${pointer}`;
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= maxDepth) return `depth ${pointer === '' ? '/' : pointer}`; // as the message shows it
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], pointer: `${pointer}/${i}`, depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(v)) {
      if (!isWellFormed(key)) return `key ${pointer}`;
      stack.push({ value: (v as Record<string, unknown>)[key], pointer: `${pointer}/${esc(key)}`, depth: depth + 1 });
    }
  }
  return undefined;
}

function actual(value: unknown, maxDepth: number): string | undefined {
  try {
    checkJson(value, 'x', maxDepth);
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(PlangateError);
    const m = (e as PlangateError).message;
    if (m.startsWith('a key in x')) return `key ${m.slice('a key in x'.length, m.indexOf(': a lone'))}`;
    const deep = /^x is nested deeper than \d+ levels \(at (.*)\)$/.exec(m);
    if (deep) return `depth ${deep[1]}`;
    return `string ${m.slice(1, m.indexOf(': a lone'))}`;
  }
}

describe('checkJson', () => {
  it('names the first problem of a depth-first walk, for random JSON with lone surrogates', () => {
    const text = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('\ud800', 'a\udfff', '~/', 'ok'));
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.constant(null), tie('array'), tie('object')),
      array: fc.array(tie('value'), { maxLength: 4 }),
      object: fc.dictionary(text, tie('value'), { maxKeys: 4 }),
    })).value;
    fc.assert(fc.property(json, fc.integer({ min: 1, max: 5 }), (v, max) => {
      expect(actual(v, max)).toEqual(reference(v, max));
    }), { numRuns: 2000 });
  });
});
