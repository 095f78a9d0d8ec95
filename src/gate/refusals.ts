/**
 * What the gate does with a refusal beyond returning it: its audit event
 * (a refused claim, a call refused on a store failure, a held agent's call,
 * a plan-required refusal) and the error `guard()` throws. Which check refused is the policy's
 * answer (`decision.check`); nothing here re-decides.
 */
import { CallRefusedError, ErrorCode, PlanRequiredError, refusalCode } from '../core/errors.js';
import type { Call, Decision, FileFact, HoldKind, PolicyInput } from '../core/types.js';
import type { AuditEvent, ClaimKind, ClaimRefused, PlanningHoldBlocked, PlanRequiredBlocked, ReadGuardBlocked, StoreFailureRefused, ToolChangedBlocked } from '../audit/port.js';
import { isoTime } from './iso.js';
import type { Resolutions } from './with-facts.js';

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
 * The audit event of a refusal by the tool's pin, the planning hold or the read guard, or
 * undefined when another check (plan-required) decided it.
 */
export function planningRefusalEvent(input: PolicyInput, decision: Decision, resolutions: Resolutions = new Map()): AuditEvent | undefined {
  if (decision.check === 'tool_pin' && input.call.mcp) {
    // The pin the policy compared with (the hot answer carries its verdict when it refused; an explanation in checks), and the gateway's digest now.
    const verdict = decision.toolPin ?? decision.checks?.toolPin;
    const event: ToolChangedBlocked = {
      type: 'ToolChangedBlocked',
      ...common(input, decision),
      upstream: input.call.mcp.upstream,
      upstreamTool: input.call.mcp.tool,
      pinnedDigest: verdict?.pinned ?? null,
      seenDigest: input.call.mcp.digest ?? null,
    };
    return event;
  }
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
      ...(asked.length > 0 ? { lines: asked } : {}),
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
  if (decision.check === 'approval') return new CallRefusedError(ErrorCode.ApprovalRequired, decision);
  if (decision.check === 'tool_pin') return new CallRefusedError(ErrorCode.ToolChanged, decision);
  return new PlanRequiredError(decision);
}

/** The audit record of a refused claim. Never a body. */
export function claimRefusedEvent(input: PolicyInput, claim: ClaimKind, claimed: string[], refused: string): ClaimRefused {
  return {
    type: 'ClaimRefused', time: isoTime(input.now), agent: input.agent.id, claim, claimed, refused,
    tool: input.call.tool, runId: input.call.runId ?? null,
  };
}

/** The audit record of a call refused because its own fact gathering failed on a healthy store. */
export function storeFailureEvent(call: Call, reason: string, now: number): StoreFailureRefused {
  return {
    type: 'StoreFailureRefused', time: new Date(now).toISOString(), agent: String(call.agent), tool: String(call.tool),
    runId: typeof call.runId === 'string' ? call.runId : null,
    delegatedBy: Array.isArray(call.delegatedBy) ? call.delegatedBy.map(String) : [],
    reason,
  };
}

/** The audit record of a held agent's call refused while the store failed. */
export function heldBlockedEvent(call: Call, decision: Decision, hold: { id: string; kind: HoldKind }, now: number): PlanningHoldBlocked {
  return {
    type: 'PlanningHoldBlocked',
    time: new Date(now).toISOString(),
    agent: call.agent,
    crew: null,
    tool: call.tool,
    toolClass: decision.class,
    code: refusalCode(decision),
    runId: call.runId ?? null,
    holdId: hold.id,
    holdKind: hold.kind,
  };
}

/** The audit record of a refusal (or a shadow-mode would-be refusal): who, what, under which rule. Never a message body. */
export function blockedEvent(input: PolicyInput, decision: Decision): PlanRequiredBlocked {
  const mode = decision.settings.mode;
  const rule: PlanRequiredBlocked['rule'] = { scope: mode.scope };
  if (mode.id !== undefined) rule.id = mode.id;
  if (mode.source !== undefined) rule.source = mode.source;
  const event: PlanRequiredBlocked = {
    type: 'PlanRequiredBlocked',
    time: isoTime(input.now),
    agent: input.agent.id,
    crew: input.agent.crews[0] ?? null,
    tool: decision.tool,
    toolClass: decision.class,
    mode: mode.value,
    code: refusalCode(decision),
    runId: input.call.runId ?? null,
    rule,
  };
  if (decision.allowed && decision.shadow === true) event.shadow = true;
  return event;
}
