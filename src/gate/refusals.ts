/**
 * What the gate does with a decision beyond returning it: finish it when the
 * policy asks for a fact (the read guard's file size), pick the audit event
 * of a refusal, and pick the error `guard()` throws. Which check refused is
 * the policy's answer (`decision.check`); nothing here re-decides.
 */
import { CallRefusedError, ErrorCode, PlanRequiredError, refusalCode } from '../core/errors.js';
import type { Decision, Explanation, FileFact, LineCount, PolicyInput } from '../core/types.js';
import type { AuditEvent, PlanningHoldBlocked, ReadGuardBlocked } from '../audit/port.js';
import type { Evaluator } from '../engine/policy.js';
import { fileFact } from './files.js';
import { lineSpanBytes, MAX_SKIP_BYTES, type SkipBudget } from './lines.js';
import { isoTime } from './iso.js';

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
export function decideWithFacts(evaluator: Evaluator, input: PolicyInput, roots: Roots, resolutions: Resolutions = new Map()): Decision | Promise<Decision> {
  const first = evaluator.decide(input);
  if (!wantsFiles(first)) return first;
  return gatherFiles(first, input, roots, resolutions).then(() => evaluator.decide(input));
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
 * path's fact, and in a file over `needs.upTo` bytes the lines it asks to
 * measure (`spans`).
 */
async function gatherFiles(first: { needs?: Decision['needs'] }, input: PolicyInput, roots: Roots, resolutions: Resolutions): Promise<void> {
  const { files: asked = [], spans = [], upTo = 0 } = first.needs ?? {};
  const wanted = [...new Set(asked)];
  const inside = typeof roots === 'function' ? roots() : roots;
  // One budget for the whole call: however many paths and spans it asks for, skipped lines are looked for in 64 MiB at most.
  const budget: SkipBudget = { bytes: MAX_SKIP_BYTES };
  const gathered = await Promise.all(wanted.map(async (p) => {
    const g = await fileFact(inside, p);
    if (spans.length === 0 || g.fact.kind !== 'file' || g.fact.size <= upTo) return g;
    const resolved = g.resolved;
    if (resolved === undefined) return { ...g, fact: { ...g.fact, spans: spans.map((l) => ({ ...l, bytes: null })) } };
    // Lines that cannot be measured now (the file gone, unreadable, no longer a regular file) are null: refused.
    const measured = await Promise.all(spans.map((l) => lineSpanBytes(resolved, l, upTo, budget).then((bytes) => ({ ...l, bytes }), () => ({ ...l, bytes: null }))));
    return { ...g, fact: { ...g.fact, spans: measured } };
  }));
  const files: Record<string, FileFact> = Object.create(null);
  for (const g of gathered) {
    Object.defineProperty(files, g.fact.path, { value: g.fact, enumerable: true, writable: true, configurable: true });
    resolutions.set(g.fact.path, g.resolved);
  }
  input.files = files;
}

function common(input: PolicyInput, decision: Decision) {
  return {
    time: isoTime(input.now),
    agent: input.agent.id,
    crew: input.agent.crews[0] ?? null,
    tool: decision.tool,
    code: refusalCode(decision),
    runId: input.call.runId ?? null,
  };
}

/**
 * The audit event of a refusal by the planning hold or the read guard, or
 * undefined when another check (plan-required) decided it.
 */
export function planningRefusalEvent(input: PolicyInput, decision: Decision, resolutions: Resolutions = new Map()): AuditEvent | undefined {
  if (decision.check === 'planning_hold' && input.hold) {
    const event: PlanningHoldBlocked = {
      type: 'PlanningHoldBlocked',
      ...common(input, decision),
      toolClass: decision.class,
      holdId: input.hold.id,
      holdKind: input.hold.kind,
    };
    return event;
  }
  if (decision.check === 'read_guard') {
    // The hot answer carries the read guard's verdict when it refused; an explanation has it in checks.
    const verdict = decision.readGuard ?? decision.checks?.readGuard;
    const facts = verdict?.files ?? [];
    const maxBytes = verdict?.maxBytes ?? 0;
    const asked = verdict?.lines ?? [];
    const deciding = facts.find((f) => f.path === asked[0]?.path) ?? facts.find((f) => f.kind === 'outside') ?? facts.find((f) => f.kind === 'file' && f.size > maxBytes);
    const size = (f: FileFact | undefined): number | null => (f?.kind === 'file' ? f.size : null);
    const event: ReadGuardBlocked = {
      type: 'ReadGuardBlocked',
      ...common(input, decision),
      reason: verdict?.status ?? 'unknown',
      path: deciding?.path ?? verdict?.path ?? null,
      resolved: deciding ? resolutions.get(deciding.path) ?? null : null,
      sizeBytes: size(deciding),
      maxBytes,
      ...(verdict?.paths ? { files: facts.map((f) => ({ path: f.path, kind: f.kind, resolved: resolutions.get(f.path) ?? null, sizeBytes: size(f) })) } : {}),
      ...(asked.length > 0 ? { lines: asked.map((l) => ({ ...l, bytes: measuredBytes(facts, l) })) } : {}),
    };
    return event;
  }
  return undefined;
}

/** The bytes the host measured for the lines `l` asks for in its path, null when it could not. */
function measuredBytes(facts: readonly FileFact[], l: LineCount & { path: string }): number | null {
  const fact = facts.find((f) => f.path === l.path);
  const span = fact?.kind === 'file' ? fact.spans?.find((s) => s.from === l.from && s.count === l.count && (s.skip ?? 0) === (l.skip ?? 0)) : undefined;
  return span?.bytes ?? null;
}

/**
 * The error `guard()` throws for a refused decision.
 *
 * @example
 * if (!decision.allowed) throw refusalError(decision);
 */
export function refusalError(decision: Decision): Error {
  if (decision.check === 'planning_hold') return new CallRefusedError(ErrorCode.PlanningHold, decision);
  if (decision.check === 'read_guard') return new CallRefusedError(ErrorCode.ReadGuard, decision);
  return new PlanRequiredError(decision);
}
