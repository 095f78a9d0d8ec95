/**
 * Checks on JSON a client sends, before anything else reads it: how deep it
 * nests and whether every string (keys included) is well-formed Unicode.
 * A lone UTF-16 surrogate (`"\ud800"`) cannot be encoded as UTF-8, so
 * neither the policy nor a store could take it as it is; it is refused
 * here, naming where it is, instead of being altered or failing later.
 * The walk recurses at most `maxDepth` levels (128 by default), so no input
 * can exhaust the stack; where a value is is spelled out only for an error.
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
  walk(value, where, maxDepth, 0, []);
}

/** The JSON Pointer of `path` (array indexes and object keys, outermost first). */
function pointerOf(path: ReadonlyArray<string | number>): string {
  let pointer = '';
  for (const segment of path) pointer += `/${typeof segment === 'number' ? segment : escape(segment)}`;
  return pointer;
}

/**
 * Visits `v` at `depth` (`path` leads to it): strings are checked, arrays
 * visited in order, an object's keys checked first and its values then
 * visited last key first (the order of the check's first, iterative form,
 * so the same problem is named first). Recurses at most `maxDepth` levels.
 */
function walk(v: unknown, where: string, maxDepth: number, depth: number, path: Array<string | number>): void {
  if (typeof v === 'string') {
    if (!isWellFormed(v)) throw surrogate(where, pointerOf(path), 'string');
    return;
  }
  if (typeof v !== 'object' || v === null) return;
  if (depth >= maxDepth) {
    const pointer = pointerOf(path);
    throw new PlangateError(ErrorCode.InvalidInput, `${where} is nested deeper than ${maxDepth} levels (at ${shown(pointer)})`, [
      { path: shown(pointer), message: `nested deeper than ${maxDepth} levels` },
    ]);
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      path.push(i);
      walk(v[i], where, maxDepth, depth + 1, path);
      path.pop();
    }
    return;
  }
  const keys = Object.keys(v);
  for (const key of keys) if (!isWellFormed(key)) throw surrogate(where, pointerOf(path), 'key');
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i] as string;
    path.push(key);
    walk((v as Record<string, unknown>)[key], where, maxDepth, depth + 1, path);
    path.pop();
  }
}

function surrogate(where: string, pointer: string, what: 'string' | 'key'): PlangateError {
  const at = what === 'key' ? `a key in ${where}${pointer}` : `${where}${pointer}`;
  const message = `${at}: a lone UTF-16 surrogate (such as \\ud800) is not text; send well-formed Unicode`;
  return new PlangateError(ErrorCode.InvalidInput, message, [{ path: shown(pointer), message }]);
}

/**
 * Throws `invalid_input` when `text`, to be stored, is not well-formed Unicode
 * or holds a NUL character (which PostgreSQL cannot store in text).
 *
 * @example
 * checkText('Refactor the auth middleware', 'hold.task') // fine
 */
export function checkText(text: unknown, field: string): void {
  if (typeof text === 'string' && !isWellFormed(text)) {
    throw new PlangateError(ErrorCode.InvalidInput, `${field}: a lone UTF-16 surrogate (such as \\ud800) is not text; send well-formed Unicode`);
  }
  // PostgreSQL cannot store U+0000 in text: refused in every store alike, not failing there as a broken store.
  if (typeof text === 'string' && text.includes('\u0000')) {
    throw new PlangateError(ErrorCode.InvalidInput, `${field}: a NUL character (\\u0000) cannot be stored; leave it out`);
  }
}
