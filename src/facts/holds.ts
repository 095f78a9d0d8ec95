/**
 * Validation and small helpers for planning holds, shared by every store
 * driver so that they agree on what is accepted and how errors read.
 */
import { ErrorCode, PlangateError } from '../core/errors.js';
import { checkText } from '../core/json.js';
import { isValidId } from '../core/threads.js';
import type { HoldFact, HoldKind } from '../core/types.js';
import type { Hold, HoldMessageRole, HoldQuery, NewHold } from './port.js';
import { MAX_AUTHOR_LENGTH } from './validate.js';

/** Longest task text of a hold, in characters. */
export const MAX_TASK_LENGTH = 500;
/** Default and largest `limit` of `listHolds` and `holdMessages`. */
export const DEFAULT_HOLD_LIMIT = 100;
export const MAX_HOLD_LIMIT = 1000;

function invalid(message: string): PlangateError {
  return new PlangateError(ErrorCode.InvalidInput, message);
}

function checkAgentId(agent: unknown): string {
  if (!isValidId(agent)) throw invalid(`hold agent is not a valid agent id: ${JSON.stringify(agent)}`);
  return agent;
}

function checkWho(who: unknown, field: string): string {
  if (typeof who !== 'string' || who.length === 0 || who.length > MAX_AUTHOR_LENGTH) {
    throw invalid(`${field} must be a non-empty string of at most ${MAX_AUTHOR_LENGTH} characters`);
  }
  checkText(who, field);
  return who;
}

function checkAt(at: unknown, field: string, now: () => number): number {
  if (at === undefined) return now();
  if (!Number.isSafeInteger(at)) throw invalid(`${field} must be an integer number of epoch milliseconds, got ${String(at)}`);
  return at as number;
}

/**
 * Checks a hold to place; returns a clean copy with `placedAt` filled in.
 *
 * @example
 * checkNewHold({ agent: '0xW', kind: 'on_demand', placedBy: 'ops' }).task // null
 */
export function checkNewHold(hold: NewHold, now: () => number = Date.now): Required<Omit<NewHold, 'task'>> & { task: string | null } {
  if (typeof hold !== 'object' || hold === null) throw invalid('hold must be an object');
  const agent = checkAgentId(hold.agent);
  if (hold.kind !== 'reviewer' && hold.kind !== 'on_demand') {
    throw invalid(`hold.kind must be "reviewer" or "on_demand", got ${JSON.stringify(hold.kind)}`);
  }
  const placedBy = checkWho(hold.placedBy, 'hold.placedBy');
  let task: string | null = null;
  if (hold.task !== undefined) {
    if (typeof hold.task !== 'string' || hold.task.trim() === '' || hold.task.length > MAX_TASK_LENGTH) {
      throw invalid(`hold.task must be a non-blank string of at most ${MAX_TASK_LENGTH} characters`);
    }
    checkText(hold.task, 'hold.task');
    task = hold.task;
  }
  return { agent, kind: hold.kind, task, placedBy, placedAt: checkAt(hold.placedAt, 'hold.placedAt', now) };
}

/** Checks the end of a hold; returns it with `at` filled in. */
export function checkHoldEnd(
  agent: string,
  end: { state: 'released' | 'cleared'; by: string; at?: number; only?: HoldCondition },
  now: () => number = Date.now,
): { agent: string; state: 'released' | 'cleared'; by: string; at: number; only?: HoldCondition } {
  checkAgentId(agent);
  if (typeof end !== 'object' || end === null) throw invalid('end must be an object');
  if (end.state !== 'released' && end.state !== 'cleared') {
    throw invalid(`end.state must be "released" or "cleared", got ${JSON.stringify(end.state)}`);
  }
  const only = checkHoldCondition(end.only);
  return { agent, state: end.state, by: checkWho(end.by, 'end.by'), at: checkAt(end.at, 'end.at', now), ...(only !== undefined ? { only } : {}) };
}

/**
 * What a caller saw of the hold it acts on, for the store to check in the
 * same step as it acts: its kind (a reviewer answers reviewer holds only),
 * its id (the hold was not replaced meanwhile) and its newest plan (none
 * arrived unread since: `null` for no plan yet).
 */
export interface HoldCondition {
  kind?: HoldKind;
  id?: string;
  lastPlanId?: string | null;
}

/** Hold and message ids: decimal integers in every driver, given out in order. */
function isStoredId(v: unknown): v is string {
  return typeof v === 'string' && /^[1-9][0-9]{0,15}$/.test(v) && Number.isSafeInteger(Number(v));
}

/** A hold condition, if given, checked field by field. */
export function checkHoldCondition(only: unknown): HoldCondition | undefined {
  if (only === undefined) return undefined;
  if (typeof only !== 'object' || only === null) throw invalid('only must be an object');
  const { kind, id, lastPlanId } = only as Record<string, unknown>;
  if (kind !== undefined && kind !== 'reviewer' && kind !== 'on_demand') throw invalid(`only.kind must be "reviewer" or "on_demand", got ${JSON.stringify(kind)}`);
  if (id !== undefined && !isStoredId(id)) throw invalid(`only.id must be a hold id, got ${JSON.stringify(id)}`);
  if (lastPlanId !== undefined && lastPlanId !== null && !isStoredId(lastPlanId)) throw invalid(`only.lastPlanId must be a message id or null, got ${JSON.stringify(lastPlanId)}`);
  return {
    ...(kind !== undefined ? { kind: kind as HoldKind } : {}),
    ...(id !== undefined ? { id } : {}),
    ...(lastPlanId !== undefined ? { lastPlanId } : {}),
  };
}

/** Checks a link role and the agent of a hold message. */
export function checkHoldMessage(agent: string, role: HoldMessageRole): void {
  checkAgentId(agent);
  if (role !== 'plan' && role !== 'pushback') throw invalid(`role must be "plan" or "pushback", got ${JSON.stringify(role)}`);
}

/** Checks a listing query; returns it with the limit filled in and `before` as a number. */
export function checkHoldQuery(q: HoldQuery = {}): { agent?: string; all: boolean; limit: number; before?: number } {
  if (typeof q !== 'object' || q === null) throw invalid('query must be an object');
  const limit = checkLimit(q.limit);
  if (q.agent !== undefined) checkAgentId(q.agent);
  let before: number | undefined;
  if (q.before !== undefined) {
    if (!isStoredId(q.before)) {
      throw invalid(`before must be a hold id (a decimal integer), got ${JSON.stringify(q.before)}`);
    }
    before = Number(q.before);
  }
  return { ...(q.agent !== undefined ? { agent: q.agent } : {}), all: q.all === true, limit, ...(before !== undefined ? { before } : {}) };
}

/** Checks a `limit`; returns the default when absent. */
export function checkLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_HOLD_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 0 || limit > MAX_HOLD_LIMIT) {
    throw invalid(`limit must be an integer from 0 to ${MAX_HOLD_LIMIT}`);
  }
  return limit;
}

/** The error for an agent without an active hold. */
export function notHeld(agent: string, kind?: HoldKind): PlangateError {
  return kind === undefined
    ? new PlangateError(ErrorCode.NotHeld, `${agent} is not held: there is no active planning hold on it`)
    : new PlangateError(ErrorCode.NotHeld, `${agent} has no active ${kind === 'reviewer' ? 'reviewer' : 'on-demand'} hold`);
}

/**
 * The active hold when it meets `only`: `not_held` when there is none, or
 * none of the kind asked; `conflict` when it is another hold than the one
 * the caller saw, or has a newer plan than the one the caller read.
 */
export function heldAs(agent: string, hold: Hold | undefined, only: HoldCondition | undefined): Hold {
  if (hold === undefined || (only?.kind !== undefined && hold.kind !== only.kind)) throw notHeld(agent, only?.kind);
  if (only?.id !== undefined && hold.id !== only.id) {
    throw new PlangateError(ErrorCode.Conflict, `${agent}'s active hold is hold ${hold.id}, not hold ${only.id}: it was replaced; look again before acting`);
  }
  if (only?.lastPlanId !== undefined && hold.lastPlanId !== only.lastPlanId) {
    throw new PlangateError(ErrorCode.Conflict, `${agent} has sent a plan since (plan #${hold.lastPlanId ?? '?'}): read it before acting`);
  }
  return hold;
}

/** The error for an agent that already has an active hold. */
export function alreadyHeld(agent: string, hold: { id: string; placedBy: string }): PlangateError {
  return new PlangateError(
    ErrorCode.AlreadyHeld,
    `${agent} is already held (hold ${hold.id}, placed by ${hold.placedBy}); clear it first with unblock`,
  );
}

/**
 * What the policy sees of a hold.
 *
 * @example
 * toHoldFact(hold) // { id: '3', kind: 'on_demand', task: null, placedBy: 'ops', placedAt: 1, plans: 0, pushBacks: 0 }
 */
export function toHoldFact(h: Hold): HoldFact {
  return { id: h.id, kind: h.kind, task: h.task, placedBy: h.placedBy, placedAt: h.placedAt, plans: h.plans, pushBacks: h.pushBacks };
}
