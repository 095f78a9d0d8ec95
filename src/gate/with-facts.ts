/**
 * Finishing a decision the policy cannot make yet: when the read guard asks
 * for facts about files (`needs`), the host gathers them inside the read
 * roots — each path's fact, and the bytes of the lines a line-counted read
 * asks for — and the same evaluator decides again. At most one extra
 * evaluation.
 */
import type { Decision, Explanation, FileFact, PolicyInput } from '../core/types.js';
import type { Evaluator } from '../engine/policy.js';
import { fileFact, isRegularFile } from './files.js';
import { lineSpanBytes, MAX_SKIP_BYTES, type SkipBudget } from './lines.js';

/** Where each gathered path resolved to: for the audit only, never the policy. */
export type Resolutions = Map<string, string | undefined>;

/** The read roots, or a function asked for them only when a decision needs file facts. */
export type Roots = readonly string[] | (() => readonly string[]);

/**
 * Decides `input`; when the decision needs the size of the files a
 * guarded read names, gathers them inside the read `roots` and decides
 * again with the same evaluator. At most one extra evaluation; per path a
 * realpath and a stat (a few more for a missing one), and for a
 * line-counted read of a file over the ceiling up to the ceiling's worth of
 * it read to measure those lines. Fills `resolutions`
 * (path → resolved) for the audit. The answer is synchronous when no file
 * fact is needed (the common case), a promise otherwise.
 *
 * @example
 * const decision = await decideWithFacts(engine, input, [process.cwd()]);
 */
export function decideWithFacts(evaluator: Evaluator, input: PolicyInput, roots: Roots, resolutions: Resolutions = new Map(), base?: string): Decision | Promise<Decision> {
  const first = evaluator.decide(input);
  if (!wantsFiles(first)) return first;
  return gatherFiles(first, input, roots, resolutions, base).then(() => evaluator.decide(input));
}

/**
 * The same as {@link decideWithFacts} through the explain entrypoint: every
 * candidate and every check's verdict.
 *
 * @example
 * const explanation = await explainWithFacts(engine, input, [process.cwd()]);
 */
export async function explainWithFacts(evaluator: Evaluator, input: PolicyInput, roots: Roots, resolutions: Resolutions = new Map()): Promise<Explanation> {
  const first = evaluator.explain(input);
  if (!wantsFiles(first)) return first;
  await gatherFiles(first, input, roots, resolutions);
  return evaluator.explain(input);
}

/** Whether a first answer asks for file facts. */
function wantsFiles(first: { needs?: Decision['needs'] }): boolean {
  const wanted = first.needs?.files;
  return wanted !== undefined && wanted.length > 0;
}

/**
 * Gathers the file facts a first answer asks for into `input.files`: each
 * path's fact (a relative path resolved against `base`, else the first
 * root), and in a file over `needs.upTo` bytes the lines it asks to
 * measure (`spans`).
 */
async function gatherFiles(first: { needs?: Decision['needs'] }, input: PolicyInput, roots: Roots, resolutions: Resolutions, base?: string): Promise<void> {
  const { files: asked = [], spans = [], upTo = 0 } = first.needs ?? {};
  const wanted = [...new Set(asked)];
  const inside = typeof roots === 'function' ? roots() : roots;
  // One budget for the whole call: however many paths and spans it asks for, skipped lines are looked for in 64 MiB at most.
  const budget: SkipBudget = { bytes: MAX_SKIP_BYTES };
  const gathered = await Promise.all(wanted.map(async (p) => {
    const g = await fileFact(inside, p, base);
    if (spans.length === 0 || !isRegularFile(g) || g.fact.size <= upTo) return g;
    // Lines that cannot be measured now (the file gone, unreadable, no longer a regular file) are null: refused.
    const measured = await Promise.all(spans.map((l) => lineSpanBytes(g.resolved, l, upTo, budget).then((bytes) => ({ ...l, bytes }), () => ({ ...l, bytes: null }))));
    return { ...g, fact: { ...g.fact, spans: measured } };
  }));
  const files: Record<string, FileFact> = Object.create(null);
  for (const g of gathered) {
    Object.defineProperty(files, g.fact.path, { value: g.fact, enumerable: true, writable: true, configurable: true });
    resolutions.set(g.fact.path, g.resolved);
  }
  input.files = files;
}
