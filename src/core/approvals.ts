/**
 * The human gate's vocabulary: an approvals rule, a recorded approval
 * request, the facts the policy reads of it, and the policy's verdict.
 * An approval is for one seat, one tool, one run (or none) and the SHA-256
 * of the call's canonical arguments (core/digest.ts), used by one call.
 */
import type { ToolClass } from './rules.js';

/** How long a granted approval stays usable when the rule does not say, in minutes. */
export const DEFAULT_APPROVAL_WINDOW_MIN = 15;
/** The longest a rule may keep an approval usable: one day. */
export const MAX_APPROVAL_WINDOW_MIN = 1440;

/** The role that may approve; an operator may too. */
export const APPROVER_ROLE = 'approver';

/**
 * A call that needs approval while the store fails (its approvals cannot be
 * read, or the approval cannot be used): refused. An approval is money- or
 * reach-shaped, not legibility, so unlike plan-required it never fails open.
 */
export const APPROVAL_ON_STORE_FAILURE = 'fail_closed' as const;

/**
 * A call that needs approval while the rules or the policy cannot be read:
 * the last good rules stay in force (hot reload keeps them), so the human
 * gate stays in force too; a start with no readable rules has no approvals
 * rule, and says so loudly as failing open.
 */
export const APPROVAL_ON_POLICY_FAILURE = 'last_good_rules' as const;

/** Who may approve the calls a rule gates: roles of approver tokens, or named approvers. */
export interface Approvers {
  roles: string[];
  names: string[];
}

/** One approvals rule, normalized: which calls need a person's approval, who may give it, for how long. */
export interface ApprovalRule {
  /** Tool names and `*`/`?` patterns. */
  tools?: string[];
  classes?: ToolClass[];
  /** Top-level arguments and the value each must have for the rule to apply. */
  when?: Record<string, string | number | boolean | null>;
  /** Who may approve, as the rule names them; roles and names are absent when the rule sets neither (the approver role). */
  approvers?: Partial<Approvers> & {
    /** Whether the person at the agent's own MCP client may approve through elicitation (false when absent). */
    client?: boolean;
  };
  windowMin?: number;
  source: string;
}

/** The stored states of a request; `expired` is worked out by the policy from `expiresAt`. */
export type ApprovalStatus = 'pending' | 'granted' | 'denied' | 'used';

/** Why a call that needs approval was refused (the last part of its code). */
export type ApprovalRefusal = 'pending' | 'denied' | 'expired' | 'used';

/** A recorded approval request, with the arguments for the approver to read. */
export interface Approval {
  id: string;
  seat: string;
  tool: string;
  runId: string | null;
  /** Hex SHA-256 of the RFC 8785 canonical arguments. */
  digest: string;
  /** The call's arguments, for the approver to read. Never audited. */
  args: Record<string, unknown>;
  /** The plan that counted for the call, when one did (its message id). */
  planId: string | null;
  status: ApprovalStatus;
  requestedAt: number;
  /** How long the approval stays usable once granted, from the rule in force when it was asked. */
  windowMin: number;
  approvers: Approvers;
  decidedBy: string | null;
  decidedAt: number | null;
  /** The approver's reason (required to deny). */
  reason: string | null;
  /** When a granted approval stops counting; null until granted. */
  expiresAt: number | null;
  usedAt: number | null;
}

/**
 * The plan that counted for a request, for the approver to read (never for
 * the policy): the message's text as its author wrote it, or, once
 * retention pruned the message, only that it is gone.
 */
export type ApprovalPlan =
  | { id: string; pruned: false; thread: string; author: string; authorKind: 'agent' | 'human'; kind: string; at: number; runId?: string; body: string }
  | { id: string; pruned: true };

/** A request to record. */
export type NewApproval = Pick<Approval, 'id' | 'seat' | 'tool' | 'runId' | 'digest' | 'args' | 'planId' | 'requestedAt' | 'windowMin' | 'approvers'>;

/** What the policy sees of a recorded approval (never the arguments). */
export type ApprovalFact = Pick<Approval, 'id' | 'seat' | 'tool' | 'runId' | 'digest' | 'status' | 'requestedAt' | 'expiresAt'>;

/** The approval facts of one call: its digest, the records of it, and the id a new request would get. */
export interface ApprovalInput {
  digest: string;
  newId: string;
  records: ApprovalFact[];
}

/** What the policy's answer says of the approval a call needs. */
export interface ApprovalVerdict {
  status: 'granted' | ApprovalRefusal;
  /** The request: the usable approval when granted, else the one the refusal names. */
  request: string;
  windowMin: number;
  approvers: Approvers;
  scope: 'workspace' | 'crew' | 'agent';
  /** Whether the host had gathered the approvals on record. */
  gathered: boolean;
  /** The host records a new request (id `request`). */
  open?: true;
  /**
   * Whether the person at the seat's own MCP client may answer the request
   * through elicitation (the rule opts in, and the request is open or
   * pending); otherwise a separate approver is required.
   */
  atClient: boolean;
}

/**
 * The fact the policy reads of a recorded approval.
 *
 * @example
 * toApprovalFact(approval).status // 'granted'
 */
export function toApprovalFact(a: Approval): ApprovalFact {
  return { id: a.id, seat: a.seat, tool: a.tool, runId: a.runId, digest: a.digest, status: a.status, requestedAt: a.requestedAt, expiresAt: a.expiresAt };
}

/** The call a person at the MCP client answers for: the seat's own, as the gateway knows it (never from the agent's words). */
export interface ClientCall {
  seat: string;
  tool: string;
  runId: string | null;
  digest: string;
}

/** The person at the client's answer: approve or not, with an optional reason. */
export interface ClientAnswer {
  approve: boolean;
  reason?: string;
}

/** The reason recorded when the person at the client denies without giving one. */
export const CLIENT_DENIAL_REASON = 'denied by the person at the MCP client (no reason given)';

/**
 * Who answered a request at a seat's MCP client, as recorded and audited.
 *
 * @example
 * clientApprover('0xWORKER') // 'client:0xWORKER'
 */
export function clientApprover(seat: string): string {
  return `client:${seat}`;
}
