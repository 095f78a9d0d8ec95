/**
 * YAML text → plain data plus a way back to line:column, for one rule file.
 *
 * Map keys and tool entries are taken as written: under the YAML 1.2 core
 * schema `0xABC` is the number 2748, but an agent id or a tool name is the
 * text in the file. Keys are parsed as strings (`stringKeys`), and the items
 * of the `tools` lists are replaced by their source text.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Pair, type YAMLError } from 'yaml';
import type { Problem } from '../core/errors.js';
import { aliasBombProblem, checkAliases, MAX_ALIAS_COUNT, rangeOf } from './aliases.js';

/** Parse options shared by loading and editing. */
export const YAML_OPTIONS = {
  prettyErrors: false,
  stringKeys: true,
  uniqueKeys: true,
  strict: true,
  logLevel: 'error',
} as const;

/** A 1-based line and column. */
export interface Pos {
  line: number;
  col: number;
}

export type PathSegment = string | number;

/** One rule file, parsed. */
export interface ParsedRuleFile {
  file: string;
  /** Plain data with keys and tool entries as written; `{}` for an empty file. */
  data: unknown;
  /** Where the node at `path` (or its key) starts; the nearest existing ancestor if it is missing. */
  locate(path: readonly PathSegment[], part?: 'key' | 'value'): Pos;
  /** The parsed document, for reading scalars as written. */
  doc: Document;
}

/** A parsed YAML document with its own line counter. */
export interface YamlDoc {
  doc: Document.Parsed;
  lc: LineCounter;
}

/**
 * Parses YAML text with the rule-file options and a fresh line counter.
 *
 * @example
 * const { doc, lc } = parseRuleYaml('planRequired: {}\n');
 */
export function parseRuleYaml(text: string): YamlDoc {
  const lc = new LineCounter();
  const doc = parseDocument(text, { ...YAML_OPTIONS, lineCounter: lc });
  return { doc, lc };
}

/**
 * Parses one rule file. Problems are located (`file:line:col`); when there is
 * any, `parsed` is absent.
 *
 * @example
 * const { parsed, problems } = parseRuleFile('plan.yaml', 'planRequired:\n  agents:\n    0xABC: { mode: off }\n');
 * // parsed.data.planRequired.agents has the key '0xABC', not 2748
 */
export function parseRuleFile(file: string, text: string): { parsed?: ParsedRuleFile; problems: Problem[] } {
  const { doc, lc } = parseRuleYaml(text);
  const at = (offset: number): Pos => lc.linePos(offset);
  const yamlProblems = [...doc.errors, ...doc.warnings].map((e) => yamlProblem(file, doc, at, e));
  if (yamlProblems.length > 0) return { problems: yamlProblems };

  const aliasProblems = checkAliases(file, doc, at);
  if (aliasProblems.length > 0) return { problems: aliasProblems };
  const tagProblems = checkTags(file, doc, at);
  if (tagProblems.length > 0) return { problems: tagProblems };

  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? {};
  } catch (err) {
    return { problems: [aliasBombProblem(file, doc, at, err)] };
  }
  useSourceTextForTools(doc, data);

  const locate = (path: readonly PathSegment[], part: 'key' | 'value' = 'value'): Pos => {
    const { node, pair } = walk(doc, path);
    if (part === 'key' && pair && pair.value === node) return at(rangeOf(pair.key) ?? 0);
    const start = rangeOf(node);
    if (start !== undefined && !isEmptyScalar(node)) return at(start);
    return at(rangeOf(pair?.key) ?? start ?? 0);
  };
  return { parsed: { file, data, locate, doc }, problems: [] };
}

/** The tags a rule file may spell out: plain JSON's kinds. */
const PLAIN_TAGS: ReadonlySet<string> = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`));

/**
 * Problems for every tag beyond plain JSON's kinds (`!!omap`, `!!set`,
 * `!!pairs`, `!!binary`, `!!timestamp`): the rules are maps, lists and
 * scalars, and such a node would come out as something else (an ordered
 * map reads as an empty object, so its rules would be dropped in silence).
 */
function checkTags(file: string, doc: Document.Parsed, at: (o: number) => Pos): Problem[] {
  const problems: Problem[] = [];
  visit(doc, {
    Node(_k, node) {
      const tag = (node as { tag?: string }).tag;
      if (tag === undefined || PLAIN_TAGS.has(tag)) return;
      const shown = tag.startsWith('tag:yaml.org,2002:') ? `!!${tag.slice(18)}` : tag;
      problems.push({ file, ...at(rangeOf(node) ?? 0), message: `the tag ${shown} is not allowed in rule files: write a plain map, list or value` });
    },
  });
  return problems;
}

function yamlProblem(file: string, doc: Document.Parsed, at: (o: number) => Pos, e: YAMLError): Problem {
  const pos = at(e.pos[0]);
  let message = `invalid YAML: ${e.message}`;
  if (e.code === 'DUPLICATE_KEY') {
    const first = firstKeyLike(doc, e.pos[0]);
    message = first
      ? `duplicate key "${first.text}" (first at ${file}:${at(first.offset).line}:${at(first.offset).col})`
      : 'duplicate key';
  }
  return { file, ...pos, message };
}

/** For a duplicate key at `offset`, the text and offset of the first key with the same text in that map. */
function firstKeyLike(doc: Document.Parsed, offset: number): { text: string; offset: number } | undefined {
  let found: { text: string; offset: number } | undefined;
  visit(doc, {
    Map(_k, map) {
      const dup = map.items.find((p) => rangeOf(p.key) === offset);
      if (!dup || !isScalar(dup.key)) return undefined;
      const text = String(dup.key.value);
      const first = map.items.find((p) => isScalar(p.key) && String(p.key.value) === text);
      if (first) found = { text, offset: rangeOf(first.key) ?? offset };
      return visit.BREAK;
    },
  });
  return found;
}

/** Replaces every item of a `tools.<class>` list by its source text (`0x1` stays "0x1"). */
function useSourceTextForTools(doc: Document.Parsed, data: unknown): void {
  const tools = deref(doc, isMap(doc.contents) ? doc.contents.get('tools', true) : undefined);
  const dataTools = (data as Record<string, unknown>)['tools'];
  if (!isMap(tools) || !isRecord(dataTools)) return;
  for (const pair of tools.items) {
    const list = deref(doc, pair.value);
    const arr = isScalar(pair.key) ? dataTools[String(pair.key.value)] : undefined;
    if (!isSeq(list) || !Array.isArray(arr)) continue;
    list.items.forEach((item, i) => {
      const node = deref(doc, item);
      if (isScalar(node)) arr[i] = node.source ?? String(node.value ?? '');
    });
  }
}

/**
 * Follows the path through maps (by key text) and sequences (by index),
 * resolving aliases. `found` is false when the path stops early; `node` is
 * then the deepest node reached.
 *
 * @example
 * walk(parseRuleYaml('tools:\n  read: [a, b]\n').doc, ['tools', 'read', 1]).node // the Scalar b
 */
export function walk(doc: Document, path: readonly PathSegment[]): { node: unknown; pair?: Pair; found: boolean } {
  let node: unknown = doc.contents;
  let pair: Pair | undefined;
  let depth = 0;
  for (const seg of path) {
    const cur = deref(doc, node);
    if (isMap(cur)) {
      const next = cur.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!next) break;
      pair = next;
      node = next.value;
    } else if (isSeq(cur) && cur.items[Number(seg)] !== undefined) {
      node = cur.items[Number(seg)];
      pair = undefined;
    } else break;
    depth += 1;
  }
  const found = depth === path.length;
  return pair ? { node, pair, found } : { node, found };
}

/**
 * The node an alias refers to, or the node itself.
 *
 * @example
 * deref(doc, aliasNode) // the anchored node
 */
export function deref(doc: Document, node: unknown): unknown {
  return isAlias(node) ? node.resolve(doc) : node;
}

function isEmptyScalar(node: unknown): boolean {
  return isScalar(node) && node.value === null && !node.source;
}

/**
 * A readable path such as `planRequired.crews.0xDESK.mode` or `tools.read[1]`;
 * keys with dots or unusual characters are quoted: `crews["team.alpha"]`.
 *
 * @example
 * describePath({ tools: { read: ['a', 'b'] } }, ['tools', 'read', '1']) // 'tools.read[1]'
 */
export function describePath(data: unknown, path: readonly PathSegment[]): string {
  let out = '';
  let cur = data;
  for (const seg of path) {
    if (Array.isArray(cur)) {
      out += `[${seg}]`;
      cur = cur[Number(seg)];
      continue;
    }
    const s = String(seg);
    out += /^[A-Za-z0-9_@:/-]+$/.test(s) ? (out ? `.${s}` : s) : `[${JSON.stringify(s)}]`;
    cur = isRecord(cur) ? cur[s] : undefined;
  }
  return out;
}

/**
 * A JSON pointer for a path, as ajv writes `instancePath`.
 *
 * @example
 * toPointer(['planRequired', 'crews', 'team/a']) // '/planRequired/crews/team~1a'
 */
export function toPointer(path: readonly PathSegment[]): string {
  return path.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/**
 * Whether `x` is a plain map (an object, not an array or null).
 *
 * @example
 * isRecord({}) // true
 * isRecord([]) // false
 */
export function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
