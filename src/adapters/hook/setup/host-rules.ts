/**
 * The host's own tools, classified: `examples/hosts/<host>.yaml`, copied
 * into the rules directory as `<host>.yaml` by `plangate init --hook`. A
 * tool another rule file there already lists (with the same class or
 * another) is left out, with a note: a tool may be listed in one place
 * only, and the user's own classification wins. An existing `<host>.yaml`
 * that differs from what would be written is left as it is.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isSeq, isScalar, parseDocument, type Document } from 'yaml';
import { ErrorCode, formatProblem, PlangateError } from '../../../core/errors.js';
import { TOOL_CLASSES } from '../../../core/types.js';
import { decodeRuleText } from '../../../rules/decode.js';
import { isRecord, parseRuleFile } from '../../../rules/parse.js';
import { readRuleDir } from '../../../rules/read.js';
import type { HostName } from '../contract.js';
import type { Pending } from './host-setup.js';
import { checkPlainFile } from './json-settings.js';

/** Where the classification of a host's own tools is kept in the package. */
export function hostRulesTemplate(host: HostName): URL {
  return new URL(`../../../../examples/hosts/${host}.yaml`, import.meta.url);
}

/** Tool entries and read-guard tools the other rule files in `dir` already claim, with where. */
async function claimed(dir: string, except: string): Promise<{ tools: Map<string, string>; guarded: Map<string, string> }> {
  const tools = new Map<string, string>();
  const guarded = new Map<string, string>();
  if (!existsSync(dir)) return { tools, guarded };
  const read = await readRuleDir(dir);
  if (read.problems.length > 0) throw new PlangateError(ErrorCode.InvalidInput, `the rules directory cannot be read whole: ${read.problems.map((p) => formatProblem(p)).join('; ')}`);
  for (const f of read.files) {
    if (f.file === except) continue;
    const decoded = decodeRuleText(f.file, f.bytes);
    if (!decoded.ok) throw new PlangateError(ErrorCode.InvalidInput, formatProblem(decoded.problem));
    const { parsed, problems } = parseRuleFile(f.file, decoded.text);
    if (!parsed) throw new PlangateError(ErrorCode.InvalidInput, `${problems.map((p) => formatProblem(p)).join('; ')} (fix it, then run plangate init again; nothing was changed)`);
    const data = isRecord(parsed.data) ? parsed.data : {};
    const classes = isRecord(data['tools']) ? data['tools'] : {};
    for (const cls of TOOL_CLASSES) {
      const list = classes[cls];
      if (Array.isArray(list)) for (const entry of list) if (typeof entry === 'string' && !tools.has(entry)) tools.set(entry, `${f.file} (as ${cls})`);
    }
    const guard = isRecord(data['readGuard']) && isRecord(data['readGuard']['tools']) ? data['readGuard']['tools'] : {};
    for (const name of Object.keys(guard)) if (!guarded.has(name)) guarded.set(name, f.file);
  }
  return { tools, guarded };
}

/** Removes from the template what other files claim; returns what was left out. */
function leaveOut(doc: Document, tools: Map<string, string>, guarded: Map<string, string>): string[] {
  const notes: string[] = [];
  for (const cls of TOOL_CLASSES) {
    const seq = doc.getIn(['tools', cls], true);
    if (!isSeq(seq)) continue;
    seq.items = seq.items.filter((item) => {
      const name = isScalar(item) ? String(item.value) : '';
      const where = tools.get(name);
      if (where !== undefined) notes.push(`${name} is already listed in ${where}`);
      return where === undefined;
    });
    if (seq.items.length === 0) doc.deleteIn(['tools', cls]);
  }
  const toolsMap = doc.getIn(['tools'], true);
  if (isMap(toolsMap) && toolsMap.items.length === 0) doc.delete('tools');
  const guard = doc.getIn(['readGuard', 'tools'], true);
  if (isMap(guard)) {
    guard.items = guard.items.filter((pair) => {
      const name = isScalar(pair.key) ? String(pair.key.value) : '';
      const where = guarded.get(name);
      if (where !== undefined) notes.push(`the read guard's ${name} is already set in ${where}`);
      return where === undefined;
    });
    if (guard.items.length === 0) doc.delete('readGuard');
  }
  return notes;
}

/**
 * The change that puts the host's classification in `rulesDir`, worked
 * out without writing; `notes` says what was left out or kept.
 *
 * @example
 * const { pending, notes } = await hostRulesFile('cursor', 'rules');
 * pending.file // 'rules/cursor.yaml'
 */
export async function hostRulesFile(host: HostName, rulesDir: string): Promise<{ pending: Pending; notes: string[] }> {
  const name = `${host}.yaml`;
  const file = join(rulesDir, name);
  const template = readFileSync(hostRulesTemplate(host), 'utf8');
  const { tools, guarded } = await claimed(rulesDir, name);
  const doc = parseDocument(template);
  const notes = leaveOut(doc, tools, guarded);
  const text = notes.length === 0 ? template : doc.toString();
  checkPlainFile(file, rulesDir);
  let before: string | undefined;
  try {
    before = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new PlangateError(ErrorCode.InvalidInput, `${file}: cannot be read: ${(error as Error).message}`);
  }
  const what = `the classification of ${host}'s own tools`;
  if (before !== undefined && before !== text) {
    // Never written over: the user may have edited it.
    return { pending: { file, what, before, after: before }, notes: [...notes, `${file} exists and differs from plangate's; left as it is (remove it to get plangate's again)`] };
  }
  return { pending: { file, what, before, after: text }, notes };
}
