/**
 * What the gate does with a decision beyond returning it: finish it when the
 * policy asks for a fact (the read guard's file size), pick the audit event
 * of a refusal, and pick the error `guard()` throws. Which check refused is
 * the policy's answer (`decision.check`); nothing here re-decides.
 */
import { CallRefusedError, ErrorCode, PlanRequiredError, refusalCode } from '../core/errors.js';
import type { Decision, PolicyInput } from '../core/types.js';
import type { AuditEvent, PlanningHoldBlocked, ReadGuardBlocked } from '../audit/port.js';
import type { Evaluator } from '../engine/policy.js';
import { fileFact } from './files.js';

/**
 * Decides `input`; when the decision needs the size of the file (or files) a
 * whole-file read names, gathers it (resolved against `base`) and decides
 * again with the same evaluator. At most one extra evaluation, and one
 * realpath and one stat per path.
 *
 * @example
 * const decision = await decideWithFacts(engine, input, process.cwd());
 */
export async function decideWithFacts(evaluator: Evaluator, input: PolicyInput, base: string): Promise<Decision> {
  const first = evaluator.decide(input);
  const one = first.needs?.file;
  const many = first.needs?.files;
  if (!one && !many) return first;
  if (one) input.file = await fileFact(base, one.path);
  // A read of several paths: one fact per distinct path (the paths come from args, at most 64 KiB as JSON).
  if (many) input.files = await Promise.all([...new Set(many.paths)].map((path) => fileFact(base, path)));
  return evaluator.decide(input);
}

function common(input: PolicyInput, decision: Decision) {
  return {
    time: new Date(input.now).toISOString(),
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
export function planningRefusalEvent(input: PolicyInput, decision: Decision): AuditEvent | undefined {
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
  // The file over the ceiling, as the policy names it (one of several for a read of many paths).
  const file = decision.checks?.readGuard.file ?? input.file;
  if (decision.check === 'read_guard' && file?.kind === 'file') {
    const event: ReadGuardBlocked = {
      type: 'ReadGuardBlocked',
      ...common(input, decision),
      path: file.path,
      resolved: file.resolved,
      sizeBytes: file.size,
      maxBytes: decision.checks?.readGuard.maxBytes ?? 0,
    };
    return event;
  }
  return undefined;
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
