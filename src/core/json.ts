/**
 * Checks on JSON a client sends, before anything else reads it: how deep it
 * nests and whether every string (keys included) is well-formed Unicode.
 * A lone UTF-16 surrogate (`"\ud800"`) cannot be encoded as UTF-8, so
 * neither the policy nor a store could take it as it is; it is refused
 * here, naming where it is, instead of being altered or failing later.
 * The walk is iterative: no input can exhaust the stack.
 */
import { ErrorCode, PlangateError } from './errors.js';

/** Deepest nesting of arrays and objects accepted in a request body or a call's arguments. */
export const MAX_JSON_DEPTH = 128;

/** A JSON Pointer segment. */
function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A readable form of a pointer, cut short when it is long. */
function shown(pointer: string): string {
  return pointer === '' ? '/' : pointer.length > 120 ? `${pointer.slice(0, 120)}…` : pointer;
}

/**
 * True when `text` has no lone surrogate.
 *
 * @example
 * isWellFormed('a\ud83d\ude00') // true
 * isWellFormed('\ud800') // false
 */
export function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/**
 * Throws `invalid_input` naming the place when `value` nests deeper than
 * `maxDepth` or holds a string or key that is not well-formed Unicode.
 *
 * @example
 * checkJson({ runId: '\ud800' }, 'body') // throws: body/runId: a lone UTF-16 surrogate (…)
 * checkJson(JSON.parse('['.repeat(200) + ']'.repeat(200)), 'body') // throws: nested deeper than 128 levels
 */
export function checkJson(value: unknown, where: string, maxDepth: number = MAX_JSON_DEPTH): void {
  const stack: Array<{ value: unknown; pointer: string; depth: number }> = [{ value, pointer: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: v, pointer, depth } = stack.pop() as { value: unknown; pointer: string; depth: number };
    if (typeof v === 'string') {
      if (!isWellFormed(v)) throw surrogate(where, pointer, 'string');
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= maxDepth) {
      throw new PlangateError(ErrorCode.InvalidInput, `${where} is nested deeper than ${maxDepth} levels (at ${shown(pointer)})`, [
        { path: shown(pointer), message: `nested deeper than ${maxDepth} levels` },
      ]);
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], pointer: `${pointer}/${i}`, depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(v)) {
      if (!isWellFormed(key)) throw surrogate(where, pointer, 'key');
      stack.push({ value: (v as Record<string, unknown>)[key], pointer: `${pointer}/${escape(key)}`, depth: depth + 1 });
    }
  }
}

function surrogate(where: string, pointer: string, what: 'string' | 'key'): PlangateError {
  const at = what === 'key' ? `a key in ${where}${pointer}` : `${where}${pointer}`;
  const message = `${at}: a lone UTF-16 surrogate (such as \\ud800) is not text; send well-formed Unicode`;
  return new PlangateError(ErrorCode.InvalidInput, message, [{ path: shown(pointer), message }]);
}

/**
 * Throws `invalid_input` when `text`, to be stored, is not well-formed Unicode.
 *
 * @example
 * checkText('Refactor the auth middleware', 'hold.task') // fine
 */
export function checkText(text: unknown, field: string): void {
  if (typeof text === 'string' && !isWellFormed(text)) {
    throw new PlangateError(ErrorCode.InvalidInput, `${field}: a lone UTF-16 surrogate (such as \\ud800) is not text; send well-formed Unicode`);
  }
}
