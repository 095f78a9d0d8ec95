/**
 * The shape of the approvals queue on the wire (`GET /v1/approvals/queue`
 * and its event stream). It imports nothing, so the browser console
 * type-checks against the same definition the server answers with.
 */

/** One request for a person's approval, as the queue carries it (times in epoch ms). */
export interface ApprovalEntry {
  id: string;
  seat: string;
  tool: string;
  runId: string | null;
  /** Hex SHA-256 of the RFC 8785 canonical arguments. */
  digest: string;
  /** The call's arguments; left out when larger than the queue carries (`GET /v1/approvals/:id` has them). */
  args?: Record<string, unknown>;
  /** The size of the arguments as JSON, in bytes. */
  argsBytes: number;
  /** The plan that counted for the call (its message id), when one did. */
  planId: string | null;
  status: 'pending' | 'granted' | 'denied' | 'used';
  requestedAt: number;
  windowMin: number;
  approvers: { roles: string[]; names: string[]; mcpClient?: boolean };
  decidedBy: string | null;
  decidedAt: number | null;
  reason: string | null;
  expiresAt: number | null;
  usedAt: number | null;
}

/**
 * The plan that counted for a request (`GET /v1/approvals/:id` answers it
 * as `plan`, null when none did): its text as the agent wrote it, or
 * `pruned` once retention removed it.
 */
export type ApprovalPlanView =
  | { id: string; pruned: false; thread: string; author: string; authorKind: 'agent' | 'human'; kind: string; at: number; runId?: string; body: string }
  | { id: string; pruned: true };

/** The queue: the pending requests (newest first, at most `limit`) and the newest answered ones. */
export interface ApprovalsQueue {
  pending: ApprovalEntry[];
  answered: ApprovalEntry[];
  limit: number;
  limitReached: boolean;
}
