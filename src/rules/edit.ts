/**
 * Edits of plan-required rules in the rule files, in place: comments and
 * layout are kept, the whole resulting rule set is validated before anything
 * is written, and the write is atomic.
 */
import path from 'node:path';
import { isAlias, isMap, isNode, isPair, isScalar, Pair, visit, type Alias, type Document, type YAMLMap } from 'yaml';
import { ErrorCode, formatProblem, RulesError, type Problem } from '../core/errors.js';
import { isValidId } from '../core/threads.js';
import type { PlanRule } from '../core/types.js';
import { decodeRuleText } from './decode.js';
import { checkRules } from './load.js';
import { rangeOf } from './aliases.js';
import { parseRuleYaml } from './parse.js';
import { readRuleDir } from './read.js';
import { renderEdit, type Change } from './splice.js';
import { withEditLock } from './lock.js';
import { writeFileAtomic } from './write.js';

/** Which rule an edit touches. */
export type RuleScope = { kind: 'workspace' } | { kind: 'crew'; id: string } | { kind: 'agent'; id: string };

/** The outcome of an edit. */
export interface EditResult {
  /** The rule file written or that would have been (its name in the directory); null when clearing found no rule. */
  file: string | null;
  /** False when the files already said this (nothing was written). */
  changed: boolean;
}

/** The file created when the directory has no rule file at all. */
export const NEW_RULE_FILE = 'plan-required.yaml';

/**
 * Sets the rule of one scope to exactly `rule` (mode, plus windowMin,
 * acceptUpstream and enforce only when given), replacing any rule it had.
 *
 * Target file: the file that already defines the scope; else, for a crew or
 * agent rule, the first file (by name) with a `planRequired.crews` (or
 * `.agents`) map; else the first file with a `planRequired` map; else the
 * first rule file (with `newFileUnlessPlanRequired`, a new `plan-required.yaml`
 * instead, so a file about something else is left alone); else a new `plan-required.yaml`. Throws a `RulesError` (`rules_edit_refused`) with
 * every problem when the resulting rule set would be invalid, and writes nothing.
 *
 * @example
 * await setPlanRule('rules', { kind: 'crew', id: 'desk' }, { mode: 'side_effects', windowMin: 15 });
 * // { file: 'plan-required.yaml', changed: true }
 */
export async function setPlanRule(dir: string, scope: RuleScope, rule: PlanRule, options: { newFileUnlessPlanRequired?: boolean } = {}): Promise<EditResult> {
  const fields: Record<string, unknown> = { mode: rule.mode };
  if (rule.windowMin !== undefined) fields['windowMin'] = rule.windowMin;
  if (rule.acceptUpstream !== undefined) fields['acceptUpstream'] = rule.acceptUpstream;
  if (rule.enforce !== undefined) fields['enforce'] = rule.enforce;
  return edit(dir, scope, 'set', (doc) => setRule(doc, scopePath(scope), fields), options.newFileUnlessPlanRequired === true);
}

/**
 * Removes the rule of one scope, so that it inherits again. Clearing a scope
 * that has no rule changes nothing (`{ file: null, changed: false }`).
 *
 * @example
 * await clearPlanRule('rules', { kind: 'agent', id: '0xBOT' }); // { file: 'seats.yaml', changed: true }
 */
export async function clearPlanRule(dir: string, scope: RuleScope): Promise<EditResult> {
  return edit(dir, scope, 'clear', (doc) => clearRule(doc, scopePath(scope)));
}

interface RuleFileText {
  file: string;
  bytes: Uint8Array;
  text: string;
  doc: Document.Parsed;
}

async function edit(dir: string, scope: RuleScope, op: 'set' | 'clear', apply: (doc: Document) => Change | undefined, ownFile = false): Promise<EditResult> {
  if (scope.kind !== 'workspace' && !isValidId(scope.id)) {
    refuse([{ message: `${JSON.stringify(scope.id)} is not a valid ${scope.kind} id` }]);
  }
  // Read, validate and write under one lock: two edits never validate against the same base.
  return withEditLock(dir, () => editLocked(dir, scope, op, apply, ownFile));
}

async function editLocked(dir: string, scope: RuleScope, op: 'set' | 'clear', apply: (doc: Document) => Change | undefined, ownFile: boolean): Promise<EditResult> {
  const files = await readAll(dir);
  const target = pickTarget(files, scopePath(scope), op, ownFile);
  if (!target) return { file: null, changed: false };

  const existing = files.find((f) => f.file === target);
  // The text edited has no byte-order mark (decoding drops it); a file that had one gets it back.
  const bom = existing !== undefined && startsWithBom(existing.bytes) ? '\uFEFF' : '';
  // Edit with LF line ends; a CRLF file gets CRLF back.
  const crlf = existing?.text.includes('\r\n') ?? false;
  const original = crlf ? (existing?.text ?? '').replace(/\r\n/g, '\n') : (existing?.text ?? '');
  const { doc, lc } = parseRuleYaml(original);
  if (doc.errors.length > 0) refuse(doc.errors.map((e) => ({ file: target, message: `invalid YAML: ${e.message}` })));
  refuseIfReused(doc, scopePath(scope), (alias, what) => ({ file: target, ...lc.linePos(rangeOf(alias) ?? 0), message: `*${alias.source} reuses ${what}, which this edit would change; edit the file by hand` }));
  const change = apply(doc);
  if (!change) return { file: op === 'clear' ? null : target, changed: false };
  const rendered = renderEdit(original, doc, change);
  const next = bom + (crlf ? rendered.replace(/\n/g, '\r\n') : rendered);
  if (existing && next === bom + existing.text) return { file: target, changed: false };

  const sources = files.filter((f) => f.file !== target).map((f) => ({ file: f.file, text: f.bytes }));
  const check = checkRules([...sources, { file: target, text: next }]);
  if (check.problems.length > 0) refuse(check.problems);
  await writeFileAtomic(path.join(dir, target), next, existing?.bytes ?? null);
  return { file: target, changed: true };
}

/** Reads, decodes and parses every rule file; any file that cannot be read refuses the edit. */
async function readAll(dir: string): Promise<RuleFileText[]> {
  const read = await readRuleDir(dir);
  if (read.problems.length > 0) refuse(read.problems);
  return read.files.map(({ file, bytes }) => {
    const decoded = decodeRuleText(file, bytes);
    if (!decoded.ok) refuse([decoded.problem]);
    return { file, bytes, text: decoded.text, doc: parseRuleYaml(decoded.text).doc };
  });
}

function pickTarget(files: RuleFileText[], rulePath: string[], op: 'set' | 'clear', ownFile: boolean): string | undefined {
  const defining = files.find((f) => findPair(f.doc, rulePath) !== undefined);
  if (defining || op === 'clear') return defining?.file;
  const hasMap = (keys: string[]) => files.find((f) => isMap(findPair(f.doc, keys)?.pair.value));
  // A new crew or agent rule goes next to the other crew or agent rules, if any.
  const withSiblings = rulePath.length === 3 ? hasMap(rulePath.slice(0, 2)) : undefined;
  return (withSiblings ?? hasMap(['planRequired']) ?? (ownFile ? undefined : files[0]))?.file ?? NEW_RULE_FILE;
}

function scopePath(scope: RuleScope): string[] {
  return scope.kind === 'workspace' ? ['planRequired', 'workspace'] : ['planRequired', `${scope.kind}s`, scope.id];
}

/** The pair at `path` (keys compared as written), walking maps only; aliases on the way refuse the edit. */
function findPair(doc: Document, keys: readonly string[]): { pair: Pair; map: YAMLMap } | undefined {
  let node: unknown = doc.contents;
  let found: { pair: Pair; map: YAMLMap } | undefined;
  for (const key of keys) {
    if (isAlias(node)) refuse([{ message: `${keys.slice(0, keys.indexOf(key)).join('.')} is an alias; edit it by hand` }]);
    if (!isMap(node)) return undefined;
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
    if (!pair) return undefined;
    found = { pair, map: node };
    node = pair.value;
  }
  return found;
}

/**
 * Refuses an edit when an alias reuses what it changes: the maps on the way
 * to the rule and the rule itself are edited in place, so an alias of one of
 * them would change with it, and an alias of a value the edit drops would be
 * left without its anchor.
 */
function refuseIfReused(doc: Document, rulePath: readonly string[], problem: (alias: Alias, what: string) => Problem): void {
  const touched = new Map<unknown, string>();
  let node: unknown = doc.contents;
  let depth = 0;
  for (; depth < rulePath.length && isMap(node); depth++) {
    if (depth > 0) touched.set(node, rulePath.slice(0, depth).join('.'));
    node = node.items.find((p) => isScalar(p.key) && String(p.key.value) === rulePath[depth])?.value;
  }
  // Where the walk ends (the rule, or a value the edit replaces by a map) is rewritten with all it holds;
  // a rule that is itself an alias is only replaced, its anchor untouched.
  if (isNode(node) && !isAlias(node)) {
    const rule = rulePath.slice(0, depth).join('.');
    touched.set(node, rule);
    visit(node, {
      Node(_k, n, path) {
        const keys = path.filter(isPair).map((p) => (isScalar(p.key) ? String(p.key.value) : '?'));
        touched.set(n, [rule, ...keys].join('.'));
      },
    });
  }
  const problems: Problem[] = [];
  visit(doc, {
    Alias(_k, alias) {
      const what = touched.get(alias.resolve(doc));
      if (what !== undefined) problems.push(problem(alias, what));
    },
  });
  if (problems.length > 0) refuse(problems);
}

/**
 * Sets the rule at `rulePath` to exactly `fields`, keeping the existing map
 * (and its comments) when there is one; undefined when it already says that.
 */
function setRule(doc: Document, rulePath: string[], fields: Record<string, unknown>): Change | undefined {
  const flowRule = rulePath[1] !== 'workspace';
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) {
    doc.contents = doc.createNode(nest(rulePath, fields)) as never;
    doc.commentBefore ??= ' plangate rules (created by plangate; edit freely, comments are kept)';
    styleRule(doc.contents, rulePath, flowRule);
    return { kind: 'whole' };
  }
  if (!isMap(doc.contents)) refuse([{ message: 'the top level of the target file is not a map' }]);
  let map = doc.contents as YAMLMap;
  for (let i = 0; i < rulePath.length; i++) {
    const key = rulePath[i] as string;
    const here = rulePath.slice(0, i);
    const pair = findPair(doc, rulePath.slice(0, i + 1))?.pair;
    const last = i === rulePath.length - 1;
    if (!pair) {
      const sibling = map.items[map.items.length - 1]?.value;
      const value = doc.createNode(nest(rulePath.slice(i + 1), fields));
      const added = new Pair(doc.createNode(key), value);
      map.items.push(added);
      // A new crew or agent rule follows the style of the rule before it.
      const mimic = last && rulePath.length === 3 && isMap(sibling);
      styleRule(value, rulePath.slice(i + 1), mimic ? Boolean((sibling as YAMLMap).flow) : flowRule);
      return { kind: 'add', path: here, pair: added };
    }
    // An alias as the rule itself is simply replaced; an alias on the way there would edit its anchor.
    if (isAlias(pair.value) && !last) refuse([{ message: `${rulePath.slice(0, i + 1).join('.')} is an alias; edit it by hand` }]);
    if (!isMap(pair.value)) {
      pair.value = doc.createNode(nest(rulePath.slice(i + 1), fields));
      styleRule(pair.value, rulePath.slice(i + 1), flowRule);
      return { kind: 'node', path: rulePath.slice(0, i + 1) };
    }
    if (last) {
      const rule = pair.value;
      if (sameFields(rule, fields)) return undefined;
      rule.items = rule.items.filter((p) => isScalar(p.key) && Object.hasOwn(fields, String(p.key.value)));
      for (const [k, v] of Object.entries(fields)) rule.set(k, v);
      return { kind: 'node', path: rulePath };
    }
    map = pair.value;
  }
  throw new Error('unreachable: empty rule path');
}

/** Whether the rule map holds exactly `fields` already. */
function sameFields(rule: YAMLMap, fields: Record<string, unknown>): boolean {
  const keys = Object.keys(fields);
  return (
    rule.items.length === keys.length &&
    keys.every((k) => {
      const v = rule.get(k, true);
      return isScalar(v) && v.value === fields[k];
    })
  );
}

/** Removes the pair at `rulePath`; undefined when there is none. */
function clearRule(doc: Document, rulePath: string[]): Change | undefined {
  const found = findPair(doc, rulePath);
  if (!found) return undefined;
  const index = found.map.items.indexOf(found.pair);
  found.map.items.splice(index, 1);
  if (index === 0) {
    // The parser files the comment right above a map's first entry under the
    // map; it describes the removed entry, so it goes, and so does the blank
    // line that separated that entry from the next one.
    const paragraphs = (found.map.commentBefore ?? '').split('\n');
    const lastBlank = paragraphs.lastIndexOf('');
    found.map.commentBefore = lastBlank > 0 ? paragraphs.slice(0, lastBlank).join('\n') : undefined;
    const next = found.map.items[0]?.key;
    if (isNode(next)) next.spaceBefore = false;
  }
  return { kind: 'delete', path: rulePath.slice(0, -1), pair: found.pair, index };
}

/** `nest(['crews', 'desk'], f)` → `{ crews: { desk: f } }` (a Map, so any id is a plain key). */
function nest(keys: readonly string[], fields: Record<string, unknown>): unknown {
  return keys.reduceRight<unknown>((inner, key) => new Map([[key, inner]]), new Map(Object.entries(fields)));
}

/** Marks the rule map inside a freshly created node (at `keys` below it) as flow or block. */
function styleRule(node: unknown, keys: readonly string[], flow: boolean): void {
  let cur = node;
  for (const key of keys) cur = isMap(cur) ? cur.get(key, true) : undefined;
  if (isMap(cur)) cur.flow = flow;
}

function startsWithBom(bytes: Uint8Array): boolean {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

function refuse(problems: Problem[]): never {
  const lines = problems.map(formatProblem);
  throw new RulesError(`edit refused:\n${lines.join('\n')}`, problems, ErrorCode.RulesEditRefused);
}
