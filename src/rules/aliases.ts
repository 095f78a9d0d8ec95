/**
 * Alias checks for rule files. YAML aliases (`*name`) may reuse a rule, but
 * they must not refer forward, into their own ancestors, or multiply into an
 * "alias bomb" (billion laughs): each is found quickly and located.
 */
import { isAlias, isMap, isSeq, visit, type Document, type Node } from 'yaml';
import type { Problem } from '../core/errors.js';
import type { Pos } from './parse.js';

/**
 * Most alias nodes (`*name`) one rule file may contain. Also a guard for the
 * parser itself: resolving each alias scans the document, so thousands of
 * aliases would take minutes even without any expansion.
 */
export const MAX_ALIASES = 50;
/** `maxAliasCount` for `toJS`: alias expansion beyond this fails fast. */
export const MAX_ALIAS_COUNT = 50;

/**
 * Unresolved aliases, aliases into their own ancestors, and too many aliases.
 *
 * @example
 * const { doc, lc } = parseRuleYaml('tools: &t { read: *t }\n');
 * checkAliases('a.yaml', doc, lc.linePos) // [{ file: 'a.yaml', line: 1, col: 19, message: 'alias *t refers to a node that contains it' }]
 */
export function checkAliases(file: string, doc: Document.Parsed, at: (o: number) => Pos): Problem[] {
  const anchors = new Map<string, unknown>();
  const problems: Problem[] = [];
  let count = 0;
  visit(doc, {
    Node(_k, node, path) {
      if (!isAlias(node)) {
        if (node.anchor) anchors.set(node.anchor, node);
        return undefined;
      }
      const where = { file, ...at(rangeOf(node) ?? 0) };
      if (++count > MAX_ALIASES) {
        problems.push({ ...where, message: `too many aliases: more than ${MAX_ALIASES} in one file (an alias bomb?)` });
        return visit.BREAK;
      }
      const target = anchors.get(node.source);
      if (!target) problems.push({ ...where, message: `alias *${node.source} refers to no anchor defined before it` });
      else if (path.includes(target as Node)) problems.push({ ...where, message: `alias *${node.source} refers to a node that contains it` });
      return undefined;
    },
  });
  return problems;
}

/**
 * For a `toJS` that failed (alias expansion beyond the limit): a problem at
 * the alias that expands most, with its expanded size.
 *
 * @example
 * try { doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) } catch (err) { problems.push(aliasBombProblem('a.yaml', doc, lc.linePos, err)) }
 */
export function aliasBombProblem(file: string, doc: Document.Parsed, at: (o: number) => Pos, err: unknown): Problem {
  const sizes = new Map<unknown, number>();
  const size = (node: unknown): number => {
    const known = sizes.get(node);
    if (known !== undefined) return known;
    let n = 1;
    if (isAlias(node)) n = size(node.resolve(doc));
    else if (isMap(node)) n = node.items.reduce((s, p) => s + size(p.key) + size(p.value), 1);
    else if (isSeq(node)) n = node.items.reduce((s: number, i) => s + size(i), 1);
    sizes.set(node, n);
    return n;
  };
  let worst: { node: Node; n: number } | undefined;
  visit(doc, {
    Alias(_k, node) {
      const n = size(node);
      if (!worst || n > worst.n) worst = { node, n };
    },
  });
  const detail = err instanceof Error ? err.message : String(err);
  if (!worst) return { file, line: 1, col: 1, message: `cannot read the document: ${detail}` };
  const alias = worst.node as Node & { source: string };
  const n = worst.n > 1e12 ? worst.n.toExponential(1) : String(worst.n);
  return {
    file,
    ...at(rangeOf(alias) ?? 0),
    message: `too much aliasing: *${alias.source} expands to ${n} nodes (limit ${MAX_ALIAS_COUNT} alias expansions; an alias bomb?)`,
  };
}

/** Where a YAML node starts (its source offset), if it has a range. */
export function rangeOf(node: unknown): number | undefined {
  return (node as { range?: number[] } | null | undefined)?.range?.[0];
}
