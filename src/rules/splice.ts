/**
 * Minimal-diff rendering of an edited YAML document.
 *
 * The yaml library keeps comments when it re-renders a document, but it
 * normalizes spacing everywhere (`{mode: off}` becomes `{ mode: off }`, a
 * comment after a key moves to the next line, …). To keep a GitOps diff to
 * the lines that really changed, the edited part is re-rendered and spliced
 * into the original text. Every splice is checked: parsed again, it must
 * render exactly like the edited document. When no splice passes, the whole
 * re-rendered document is used, which is still correct, only noisier.
 */
import { isCollection, isMap, type Document, type Pair } from 'yaml';
import { rangeOf } from './aliases.js';
import { parseRuleYaml, walk, type PathSegment } from './parse.js';

/** How edited documents are rendered: no folding of long lines. */
export const RENDER_OPTIONS = { lineWidth: 0 } as const;

/** What the edit did to the document, so the renderer knows where to look. */
export type Change =
  /** The collection at `path` (present in the original) was changed in place, or the value of the pair at `path` replaced. */
  | { kind: 'node'; path: PathSegment[] }
  /** `pair` was appended to the map at `path`. */
  | { kind: 'add'; path: PathSegment[]; pair: Pair }
  /** `pair` (from the original) was removed from the map at `path`, where it was entry `index`. */
  | { kind: 'delete'; path: PathSegment[]; pair: Pair; index: number }
  /** The document was rebuilt; render it whole. */
  | { kind: 'whole' };

/**
 * The text of the edited `doc`, keeping the original text outside the change.
 *
 * @example
 * const { doc } = parseRuleYaml(text);
 * // … change the rule map at ['planRequired', 'crews', 'desk'] in place …
 * const next = renderEdit(text, doc, { kind: 'node', path: ['planRequired', 'crews', 'desk'] });
 */
export function renderEdit(original: string, doc: Document, change: Change): string {
  const canon = doc.toString(RENDER_OPTIONS);
  // The renderer writes a blank line before a first map entry as indentation only; drop that.
  const tidy = canon.replace(/^[ \t]+$/gm, '');
  const whole = rendersAs(tidy, canon) ? tidy : canon;
  if (change.kind === 'whole') return whole;
  const canonDoc = parseRuleYaml(canon).doc;
  const attempts: Array<() => string | undefined> = [];
  if (change.kind === 'add') attempts.push(() => insertPairLines(original, doc, canon, canonDoc, change.path, change.pair));
  if (change.kind === 'delete') {
    attempts.push(() => deletePairLines(original, change.pair, true, change.index === 0));
    attempts.push(() => deletePairLines(original, change.pair, false, change.index === 0));
  }
  for (let n = change.path.length; n >= 0; n--) {
    const path = change.path.slice(0, n);
    attempts.push(() => spliceNode(original, doc, canon, canonDoc, path));
    if (n > 0) attempts.push(() => splicePairLines(original, doc, canon, canonDoc, path));
  }
  for (const attempt of attempts) {
    const out = attempt();
    if (out !== undefined && rendersAs(out, canon)) return out;
  }
  return whole;
}

/** Replaces the text of the collection at `path` with its re-rendered text. */
function spliceNode(original: string, doc: Document, canon: string, canonDoc: Document, path: PathSegment[]): string | undefined {
  const o = walk(doc, path);
  const c = walk(canonDoc, path);
  if (!o.found || !c.found || !isCollection(o.node) || !isCollection(c.node)) return undefined;
  if (Boolean(o.node.flow) !== Boolean(c.node.flow) || !o.node.range || !c.node.range) return undefined;
  const [o0, o1] = o.node.range;
  const [c0, c1] = c.node.range;
  const text = reindent(canon.slice(c0, c1), column(original, o0) - column(canon, c0), 1);
  return original.slice(0, o0) + text + original.slice(o1);
}

/** Replaces the whole lines of the pair at `path` (key and value) with their re-rendered lines. */
function splicePairLines(original: string, doc: Document, canon: string, canonDoc: Document, path: PathSegment[]): string | undefined {
  const o = walk(doc, path);
  const c = walk(canonDoc, path);
  if (!o.found || !c.found || !o.pair || !c.pair) return undefined;
  const oKey = rangeOf(o.pair.key);
  const cKey = rangeOf(c.pair.key);
  const oEnd = endOf(o.pair);
  const cEnd = endOf(c.pair);
  if (oKey === undefined || cKey === undefined || oEnd === undefined || cEnd === undefined) return undefined;
  const oStart = lineStart(original, oKey);
  if (original.slice(oStart, oKey).trim() !== '') return undefined; // not on a line of its own
  const piece = canon.slice(lineStart(canon, cKey), lineEndAfter(canon, cEnd));
  const shift = column(original, oKey) - column(canon, cKey);
  return original.slice(0, oStart) + reindent(piece, shift, 0) + original.slice(lineEndAfter(original, oEnd));
}

/** Inserts the re-rendered lines of a pair appended to a block map, after its previous pair. */
function insertPairLines(original: string, doc: Document, canon: string, canonDoc: Document, path: PathSegment[], pair: Pair): string | undefined {
  const map = walk(doc, path).node;
  const canonMap = walk(canonDoc, path).node;
  if (!isMap(map) || map.flow || !isMap(canonMap)) return undefined;
  const index = map.items.indexOf(pair);
  const prev = map.items[index - 1];
  const first = map.items[0];
  const added = canonMap.items[index];
  if (index < 1 || !prev || !first || !added) return undefined;
  const prevEnd = endOf(prev);
  const firstKey = rangeOf(first.key);
  const canonFirstKey = rangeOf(canonMap.items[0]?.key);
  const addedKey = rangeOf(added.key);
  const addedEnd = endOf(added);
  if ([prevEnd, firstKey, canonFirstKey, addedKey, addedEnd].some((x) => x === undefined)) return undefined;
  const piece = canon.slice(lineStart(canon, addedKey as number), lineEndAfter(canon, addedEnd as number));
  const shift = column(original, firstKey as number) - column(canon, canonFirstKey as number);
  const at = lineEndAfter(original, prevEnd as number);
  const sep = at > 0 && original[at - 1] !== '\n' ? '\n' : '';
  return original.slice(0, at) + sep + reindent(piece, shift, 0) + original.slice(at);
}

/**
 * Removes the lines of a pair of a block map and, optionally, the comment
 * lines right above it. When it was the map's first entry, blank lines that
 * separated it from the next entry go too.
 */
function deletePairLines(original: string, pair: Pair, withCommentAbove: boolean, wasFirst: boolean): string | undefined {
  const key = rangeOf(pair.key);
  const end = endOf(pair);
  if (key === undefined || end === undefined) return undefined;
  let start = lineStart(original, key);
  if (original.slice(start, key).trim() !== '') return undefined; // not on a line of its own
  while (withCommentAbove && start > 0) {
    const above = lineStart(original, start - 1);
    if (!/^[ \t]*#/.test(original.slice(above, start))) break;
    start = above;
  }
  let after = lineEndAfter(original, end);
  while (wasFirst && after < original.length) {
    const next = lineEndAfter(original, after + 1);
    if (original.slice(after, next).trim() !== '') break;
    after = next;
  }
  return original.slice(0, start) + original.slice(after);
}

/**
 * Whether `text` parses cleanly and renders as `canon` (same data, same
 * comments, same order), ignoring the spaces of blank lines.
 */
function rendersAs(text: string, canon: string): boolean {
  const { doc } = parseRuleYaml(text);
  if (doc.errors.length > 0 || doc.warnings.length > 0) return false;
  const blankLines = /^[ \t]+$/gm;
  return doc.toString(RENDER_OPTIONS).replace(blankLines, '') === canon.replace(blankLines, '');
}

/** Shifts every line from line number `from` (0-based) by `delta` columns; blank lines become empty. */
function reindent(text: string, delta: number, from: number): string {
  return text
    .split('\n')
    .map((line, i) => {
      if (line.trim() === '') return '';
      if (i < from || delta === 0) return line;
      if (delta > 0) return ' '.repeat(delta) + line;
      const remove = Math.min(-delta, line.length - line.trimStart().length);
      return line.slice(remove);
    })
    .join('\n');
}

function endOf(pair: Pair): number | undefined {
  const value = (pair.value as { range?: number[] } | null)?.range?.[1];
  return value ?? (pair.key as { range?: number[] } | null)?.range?.[1];
}

function column(text: string, offset: number): number {
  return offset - lineStart(text, offset);
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** The offset just past the end of the line holding `offset - 1` (or `offset` itself when at a line start). */
function lineEndAfter(text: string, offset: number): number {
  if (offset > 0 && text[offset - 1] === '\n') return offset;
  const nl = text.indexOf('\n', offset);
  return nl === -1 ? text.length : nl + 1;
}
