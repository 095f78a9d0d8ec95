/**
 * A host's JSON settings file, edited in place: read (a file that is not a
 * JSON object is refused with its file:line:col, and nothing is written),
 * changed by merging plangate's entries beside the user's, and written back
 * only when the bytes differ.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, relative, isAbsolute } from 'node:path';
import { ErrorCode, PlangateError } from '../../../core/errors.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The line and column (from 1) of a character offset in a text. */
export function lineCol(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, col: lines[lines.length - 1]!.length + 1 };
}

/**
 * Refuses a file plangate would write through a symbolic link, or whose
 * directory leads out of `within` (a project's, the home directory): a
 * repository could hold a `.cursor/hooks.json` that points at any file of
 * the user's.
 *
 * @example
 * checkPlainFile('/srv/notes/.cursor/hooks.json', '/srv/notes') // throws if it is a symlink
 */
export function checkPlainFile(file: string, within: string): void {
  if (existsSync(file) && lstatSync(file).isSymbolicLink()) {
    throw new PlangateError(ErrorCode.InvalidInput, `${file} is a symbolic link; plangate writes only the file itself; nothing was changed`);
  }
  // Nothing of `within` exists yet: whatever is written is created inside it.
  if (!existsSync(within)) return;
  let dir = dirname(file);
  while (!existsSync(dir)) dir = dirname(dir);
  const real = relative(realpathSync(within), realpathSync(dir));
  if (real.startsWith('..') || isAbsolute(real)) {
    throw new PlangateError(ErrorCode.InvalidInput, `${file}: its directory leads out of ${within}; nothing was changed`);
  }
}

/**
 * The JSON object in `file`, or `{}` when it does not exist or is empty.
 *
 * @example
 * readJsonObject('/srv/notes/.cursor/hooks.json', '/srv/notes') // { doc: { version: 1, hooks: { … } }, text: '…' }
 */
export function readJsonObject(file: string, within: string): { doc: JsonObject; text: string | undefined } {
  checkPlainFile(file, within);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { doc: {}, text: undefined };
    throw new PlangateError(ErrorCode.InvalidInput, `${file}: cannot be read: ${(error as Error).message}`);
  }
  if (text.trim() === '') return { doc: {}, text };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const at = /position (\d+)/.exec(message);
    const where = at ? lineCol(text, Number(at[1])) : lineCol(text, text.length);
    throw new PlangateError(ErrorCode.InvalidInput, `${file}:${where.line}:${where.col}: not valid JSON (${message.replace(/ in JSON at position \d+.*$/, '')}); fix it and run plangate init again, nothing was changed`);
  }
  if (!isJsonObject(doc)) throw new PlangateError(ErrorCode.InvalidInput, `${file}:1:1: is not a JSON object; nothing was changed`);
  return { doc, text };
}

/** The object at `key` of `parent`, created when absent; anything else there is refused. */
export function objectAt(file: string, parent: JsonObject, key: string, path: string): JsonObject {
  const value = parent[key];
  if (value === undefined) {
    const created: JsonObject = {};
    parent[key] = created;
    return created;
  }
  if (!isJsonObject(value)) throw new PlangateError(ErrorCode.InvalidInput, `${file}: ${path} is not an object; nothing was changed`);
  return value;
}

/** The array at `key` of `parent`, created when absent; anything else there is refused. */
export function arrayAt(file: string, parent: JsonObject, key: string, path: string): Json[] {
  const value = parent[key];
  if (value === undefined) {
    const created: Json[] = [];
    parent[key] = created;
    return created;
  }
  if (!Array.isArray(value)) throw new PlangateError(ErrorCode.InvalidInput, `${file}: ${path} is not an array; nothing was changed`);
  return value;
}

/** The text plangate writes for a settings object: two-space JSON and a final newline. */
export function jsonText(doc: JsonObject): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** Writes `text` to `file` (creating its directory) unless it already holds exactly that; true when written. */
export function writeIfChanged(file: string, text: string, before: string | undefined, mode?: number): boolean {
  if (before === text) return false;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text, mode !== undefined ? { mode } : {});
  return true;
}
