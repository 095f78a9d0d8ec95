/**
 * Audit events of the human gate: each approval request's life (requested,
 * granted, denied, used, expired). They name the call by its seat, tool,
 * run and the digest of its arguments, never the arguments' values (they
 * may hold secrets or counterparties, as plan bodies do).
 */

interface ApprovalEventBase {
  time: string;
  /** The seat whose call it is. */
  agent: string;
  tool: string;
  runId: string | null;
  approvalId: string;
  /** Hex SHA-256 of the call's canonical arguments. */
  digest: string;
}

/** The first refusal of a call that needs approval recorded a request. */
export interface ApprovalRequested extends ApprovalEventBase {
  type: 'ApprovalRequested';
  /** The plan that counted for the call, when one did (its message id). */
  planId: string | null;
}

/** An approver granted the request. */
export interface ApprovalGranted extends ApprovalEventBase {
  type: 'ApprovalGranted';
  by: string;
  /** When the approval stops counting (ISO-8601). */
  expiresAt: string;
}

/** An approver denied the request, with a reason. */
export interface ApprovalDenied extends ApprovalEventBase {
  type: 'ApprovalDenied';
  by: string;
  reason: string;
}

/** The call the approval was bound to went through: the approval is used. */
export interface ApprovalUsed extends ApprovalEventBase {
  type: 'ApprovalUsed';
}

/** A retry found the approval expired before it was used. */
export interface ApprovalExpired extends ApprovalEventBase {
  type: 'ApprovalExpired';
}

export type ApprovalAuditEvent = ApprovalRequested | ApprovalGranted | ApprovalDenied | ApprovalUsed | ApprovalExpired;

export const APPROVAL_EVENT_TYPES = ['ApprovalRequested', 'ApprovalGranted', 'ApprovalDenied', 'ApprovalUsed', 'ApprovalExpired'] as const;

/**
 * A fresh copy of an approval event holding only the fields its type declares.
 *
 * @example
 * toApprovalRecord({ ...event, args: { token: 'secret' } } as ApprovalAuditEvent) // no `args` key
 */
export function toApprovalRecord(event: ApprovalAuditEvent): ApprovalAuditEvent {
  const base = { time: event.time, agent: event.agent, tool: event.tool, runId: event.runId, approvalId: event.approvalId, digest: event.digest };
  switch (event.type) {
    case 'ApprovalRequested':
      return { type: event.type, ...base, planId: event.planId };
    case 'ApprovalGranted':
      return { type: event.type, ...base, by: event.by, expiresAt: event.expiresAt };
    case 'ApprovalDenied':
      return { type: event.type, ...base, by: event.by, reason: event.reason };
    case 'ApprovalUsed':
    case 'ApprovalExpired':
      return { type: event.type, ...base };
  }
}
