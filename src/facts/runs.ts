/**
 * Validation for runs and delegations, shared by every store driver so that
 * they agree on what is accepted and how errors read.
 */
import { randomBytes } from 'node:crypto';
import { ErrorCode, PlangateError } from '../core/errors.js';
import { checkText } from '../core/json.js';
import { isValidId, RESERVED_IDS } from '../core/threads.js';
import type { Delegation, NewDelegation, NewRun, Run } from '../core/types.js';
import { MAX_AUTHOR_LENGTH } from './validate.js';

/** Default and largest `limit` of `listRuns`. */
export const DEFAULT_RUN_LIMIT = 100;
export const MAX_RUN_LIMIT = 1000;
/** Most live delegations `delegationsTo` returns (newest first). */
export const MAX_DELEGATIONS_TO = 100;

function invalid(message: string): PlangateError {
  return new PlangateError(ErrorCode.InvalidInput, message);
}

function checkSeat(id: unknown, field: string): string {
  if (!isValidId(id) || RESERVED_IDS.has(id)) throw invalid(`${field} is not a valid agent id: ${JSON.stringify(id)}`);
  return id;
}

function checkId(id: unknown, field: string): string {
  if (!isValidId(id) || RESERVED_IDS.has(id)) {
    throw invalid(`${field} must be 1-128 characters of A-Z a-z 0-9 . _ : @ / - (starting with a letter or digit), got ${JSON.stringify(id)}`);
  }
  return id;
}

function checkWho(who: unknown, field: string): string {
  if (typeof who !== 'string' || who.length === 0 || who.length > MAX_AUTHOR_LENGTH) {
    throw invalid(`${field} must be a non-empty string of at most ${MAX_AUTHOR_LENGTH} characters`);
  }
  checkText(who, field);
  return who;
}

function checkMillis(at: unknown, field: string): number {
  if (!Number.isSafeInteger(at) || (at as number) < 0) throw invalid(`${field} must be an integer number of epoch milliseconds, got ${String(at)}`);
  return at as number;
}

/** A new random id such as `run_3q…`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url').replace(/[^A-Za-z0-9]/g, 'x')}`;
}

/**
 * Checks a run to start; returns the full record (open) with defaults filled in.
 *
 * @example
 * checkNewRun({ seat: '0xW', startedBy: 'host', expiresAt: Date.now() + 3600000 }).endedAt // null
 */
export function checkNewRun(run: NewRun, now: () => number = Date.now): Run {
  if (typeof run !== 'object' || run === null) throw invalid('run must be an object');
  const id = run.id === undefined ? newId('run') : checkId(run.id, 'run.id');
  const seat = checkSeat(run.seat, 'run.seat');
  const delegationId = run.delegationId === undefined ? null : checkId(run.delegationId, 'run.delegationId');
  const startedBy = checkWho(run.startedBy, 'run.startedBy');
  const startedAt = run.startedAt === undefined ? now() : checkMillis(run.startedAt, 'run.startedAt');
  const expiresAt = checkMillis(run.expiresAt, 'run.expiresAt');
  if (expiresAt <= startedAt) throw invalid('run.expiresAt must be after run.startedAt');
  return { id, seat, delegationId, startedAt, expiresAt, endedAt: null, startedBy, endedBy: null };
}

/** Checks how a run is ended; `at` defaults to now and may not precede the start. */
export function checkRunEnd(run: Run, end: { by: string; at?: number }, now: () => number = Date.now): { by: string; at: number } {
  if (typeof end !== 'object' || end === null) throw invalid('end must be an object');
  const by = checkWho(end.by, 'end.by');
  const at = end.at === undefined ? now() : checkMillis(end.at, 'end.at');
  if (at < run.startedAt) throw invalid(`run ${run.id} cannot end before it started`);
  return { by, at };
}

/** Checks a `listRuns` query; returns the limit. */
export function checkRunQuery(query: { seat?: string; limit?: number } = {}): { seat?: string; limit: number } {
  if (typeof query !== 'object' || query === null) throw invalid('query must be an object');
  const limit = query.limit ?? DEFAULT_RUN_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_RUN_LIMIT) throw invalid(`limit must be an integer from 1 to ${MAX_RUN_LIMIT}`);
  return { ...(query.seat !== undefined ? { seat: checkSeat(query.seat, 'query.seat') } : {}), limit };
}

/**
 * Checks a delegation to record; returns the full record.
 *
 * @example
 * checkNewDelegation({ manager: '0xMGR', worker: '0xW', createdBy: 'host' }).runId // null
 */
export function checkNewDelegation(d: NewDelegation, now: () => number = Date.now): Delegation {
  if (typeof d !== 'object' || d === null) throw invalid('delegation must be an object');
  const manager = checkSeat(d.manager, 'delegation.manager');
  const worker = checkSeat(d.worker, 'delegation.worker');
  if (manager === worker) throw invalid(`a seat cannot delegate to itself (${manager})`);
  const id = d.id === undefined ? newId('dlg') : checkId(d.id, 'delegation.id');
  const runId = d.runId === undefined ? null : checkId(d.runId, 'delegation.runId');
  const createdBy = checkWho(d.createdBy, 'delegation.createdBy');
  const createdAt = d.createdAt === undefined ? now() : checkMillis(d.createdAt, 'delegation.createdAt');
  const expiresAt = d.expiresAt === undefined ? null : checkMillis(d.expiresAt, 'delegation.expiresAt');
  if (expiresAt !== null && expiresAt <= createdAt) throw invalid('delegation.expiresAt must be after delegation.createdAt');
  return { id, manager, worker, runId, createdAt, expiresAt, revokedAt: null, createdBy };
}

/** Checks the arguments of `delegationsTo`. */
export function checkDelegationsTo(worker: unknown, now: unknown, runId: unknown, manager?: unknown): void {
  checkSeat(worker, 'worker');
  if (manager !== undefined) checkSeat(manager, 'manager');
  if (typeof now !== 'number' || !Number.isFinite(now)) throw invalid('now must be a finite number');
  if (runId !== undefined && typeof runId !== 'string') throw invalid('runId must be a string');
}

/**
 * Whether a delegation is live at `now` for a call of `runId`: the store's
 * filter, re-checked by the policy. A revocation recorded after `now` is not
 * yet in force (a decision at an earlier time), as an expiry after it is not.
 */
export function isLive(d: Delegation, now: number, runId?: string): boolean {
  return (d.revokedAt === null || d.revokedAt > now)
    && d.createdAt <= now
    && (d.expiresAt === null || d.expiresAt > now)
    && (d.runId === null || d.runId === runId);
}

export function runExists(id: string): PlangateError {
  return new PlangateError(ErrorCode.Conflict, `a run with id ${id} already exists`);
}

export function unknownRun(id: string): PlangateError {
  return new PlangateError(ErrorCode.NotFound, `no run with id ${id}`);
}

export function unknownDelegation(id: string): PlangateError {
  return new PlangateError(ErrorCode.NotFound, `no delegation with id ${id}`);
}

export function delegationExists(id: string): PlangateError {
  return new PlangateError(ErrorCode.Conflict, `a delegation with id ${id} already exists`);
}

/** Checks the time of a revocation; defaults to now. */
export function checkRevokeAt(at: unknown, now: () => number = Date.now): number {
  return at === undefined ? now() : checkMillis(at, 'at');
}
