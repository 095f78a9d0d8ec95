/**
 * The approvals half of the store, shared by every driver: its checks, its
 * bounds, its errors and its SQL rows. A request is recorded by the gate
 * (the first refusal of a call that needs approval), granted or denied by an
 * approver, and used once by the call it is bound to.
 */
import { ErrorCode, PlangateError } from '../core/errors.js';
import type { Approval, ApprovalStatus, NewApproval } from '../core/approvals.js';

/** Most records of one exact call a decision reads (newest first). */
export const MAX_APPROVAL_RECORDS = 8;
/** Default and largest page of a listing. */
export const DEFAULT_APPROVAL_LIMIT = 100;
export const MAX_APPROVAL_LIMIT = 1000;
/** Longest reason an approver may give. */
export const MAX_APPROVAL_REASON = 2000;

/** Which requests to list: newest first, optionally by status and seat. */
export interface ApprovalQuery {
  status?: ApprovalStatus;
  seat?: string;
  limit?: number;
}

/** An approver's answer to a pending request. */
export interface ApprovalAnswer {
  status: 'granted' | 'denied';
  by: string;
  at: number;
  reason?: string;
}

/** The approvals half of the store port. */
export interface ApprovalStore {
  /** The seat's requests for one exact call (tool and digest), newest first, at most {@link MAX_APPROVAL_RECORDS}. One indexed lookup. */
  approvalsOf(seat: string, tool: string, digest: string): Promise<Approval[]>;
  /**
   * Records a request, unless one of the same seat, tool, run and digest is
   * pending: then that one is returned (`created: false`). Atomic, so
   * racing retries of one call join one request.
   */
  requestApproval(request: NewApproval): Promise<{ approval: Approval; created: boolean }>;
  /**
   * Grants or denies a pending request; a grant stays usable `windowMin`
   * minutes. Fails `not_found` for an unknown id, `conflict` when the
   * request is no longer pending.
   */
  answerApproval(id: string, answer: ApprovalAnswer): Promise<Approval>;
  /**
   * Uses a granted approval that has not expired at `at`: true for exactly
   * one caller, however many race (across replicas on PostgreSQL).
   */
  useApproval(id: string, at: number): Promise<boolean>;
  getApproval(id: string): Promise<Approval | undefined>;
  listApprovals(query?: ApprovalQuery): Promise<Approval[]>;
}

function bad(message: string): PlangateError {
  return new PlangateError(ErrorCode.InvalidInput, message);
}

const isText = (x: unknown, max = 512): x is string => typeof x === 'string' && x.length > 0 && x.length <= max;
const isTime = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;

/** Checks a request to record and returns it as a pending approval. */
export function checkNewApproval(r: NewApproval): Approval {
  if (!isText(r.id, 128)) throw bad('approval: id must be 1 to 128 characters');
  if (!isText(r.seat) || !isText(r.tool)) throw bad('approval: seat and tool must be 1 to 512 characters');
  if (r.runId !== null && !isText(r.runId)) throw bad('approval: runId must be null or 1 to 512 characters');
  if (typeof r.digest !== 'string' || !/^[0-9a-f]{64}$/.test(r.digest)) throw bad('approval: digest must be 64 hex digits');
  if (typeof r.args !== 'object' || r.args === null || Array.isArray(r.args)) throw bad('approval: args must be an object');
  if (r.planId !== null && !isText(r.planId)) throw bad('approval: planId must be null or an id');
  if (!isTime(r.requestedAt)) throw bad('approval: requestedAt must be epoch milliseconds');
  if (!Number.isSafeInteger(r.windowMin) || r.windowMin < 1 || r.windowMin > 1440) throw bad('approval: windowMin must be 1 to 1440');
  const approvers = { roles: [...(r.approvers?.roles ?? [])], names: [...(r.approvers?.names ?? [])] };
  return {
    id: r.id, seat: r.seat, tool: r.tool, runId: r.runId, digest: r.digest, args: r.args, planId: r.planId,
    status: 'pending', requestedAt: r.requestedAt, windowMin: r.windowMin, approvers,
    decidedBy: null, decidedAt: null, reason: null, expiresAt: null, usedAt: null,
  };
}

/** Checks an approver's answer. A denial needs a reason. */
export function checkAnswer(a: ApprovalAnswer): ApprovalAnswer {
  if (a.status !== 'granted' && a.status !== 'denied') throw bad('approval answer: status must be granted or denied');
  if (!isText(a.by)) throw bad('approval answer: by must be 1 to 512 characters');
  if (!isTime(a.at)) throw bad('approval answer: at must be epoch milliseconds');
  if (a.reason !== undefined && (typeof a.reason !== 'string' || a.reason.length > MAX_APPROVAL_REASON)) throw bad(`approval answer: reason must be at most ${MAX_APPROVAL_REASON} characters`);
  if (a.status === 'denied' && !(a.reason ?? '').trim()) throw bad('approval answer: a denial needs a reason');
  return a;
}

/** The approval after an answer: a grant stays usable its window from now. */
export function answered(a: Approval, answer: ApprovalAnswer): Approval {
  if (a.status !== 'pending') throw new PlangateError(ErrorCode.Conflict, `approval ${a.id} is ${a.status}, not pending`);
  return {
    ...a, status: answer.status, decidedBy: answer.by, decidedAt: answer.at, reason: answer.reason?.trim() || null,
    expiresAt: answer.status === 'granted' ? answer.at + a.windowMin * 60_000 : null,
  };
}

export function unknownApproval(id: string): PlangateError {
  return new PlangateError(ErrorCode.NotFound, `unknown approval: ${id}`);
}

/** Checks a listing query and fills in its limit. */
export function checkApprovalQuery(q: ApprovalQuery = {}): Required<Pick<ApprovalQuery, 'limit'>> & ApprovalQuery {
  const limit = q.limit ?? DEFAULT_APPROVAL_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_APPROVAL_LIMIT) throw bad(`approvals: limit must be 1 to ${MAX_APPROVAL_LIMIT}`);
  if (q.status !== undefined && !['pending', 'granted', 'denied', 'used'].includes(q.status)) throw bad('approvals: status must be pending, granted, denied or used');
  if (q.seat !== undefined && !isText(q.seat)) throw bad('approvals: seat must be 1 to 512 characters');
  return { ...q, limit };
}

/** Whether `a` is the same call as `b` (seat, tool, run, digest). */
export function sameCall(a: Pick<Approval, 'seat' | 'tool' | 'runId' | 'digest'>, b: Pick<Approval, 'seat' | 'tool' | 'runId' | 'digest'>): boolean {
  return a.seat === b.seat && a.tool === b.tool && a.runId === b.runId && a.digest === b.digest;
}

/** An approval as both SQL schemas store it. */
export interface ApprovalRow {
  id: string;
  seat: string;
  tool: string;
  run_id: string | null;
  digest: string;
  args: string;
  plan_id: string | null;
  status: ApprovalStatus;
  requested_at: number;
  window_min: number;
  approvers: string;
  decided_by: string | null;
  decided_at: number | null;
  reason: string | null;
  expires_at: number | null;
  used_at: number | null;
}

export const APPROVAL_COLUMNS = 'id, seat, tool, run_id, digest, args, plan_id, status, requested_at, window_min, approvers, decided_by, decided_at, reason, expires_at, used_at';

export function toApproval(r: ApprovalRow): Approval {
  return {
    id: r.id, seat: r.seat, tool: r.tool, runId: r.run_id, digest: r.digest,
    args: typeof r.args === 'string' ? JSON.parse(r.args) : r.args,
    planId: r.plan_id, status: r.status, requestedAt: Number(r.requested_at), windowMin: Number(r.window_min),
    approvers: typeof r.approvers === 'string' ? JSON.parse(r.approvers) : r.approvers,
    decidedBy: r.decided_by, decidedAt: r.decided_at === null ? null : Number(r.decided_at), reason: r.reason,
    expiresAt: r.expires_at === null ? null : Number(r.expires_at), usedAt: r.used_at === null ? null : Number(r.used_at),
  };
}

/** The values of an insert, in {@link APPROVAL_COLUMNS} order. */
export function approvalValues(a: Approval): unknown[] {
  return [a.id, a.seat, a.tool, a.runId, a.digest, JSON.stringify(a.args), a.planId, a.status, a.requestedAt, a.windowMin,
    JSON.stringify(a.approvers), a.decidedBy, a.decidedAt, a.reason, a.expiresAt, a.usedAt];
}
