/**
 * The shape of the review queue on the wire (`GET /v1/review/queue` and its
 * event stream). It imports nothing, so the browser console type-checks
 * against the same definition the server answers with.
 */

/** A plan or a push-back on a hold, for the reviewer. */
export interface QueueMessage {
  role: 'plan' | 'pushback';
  id: string;
  author: string;
  authorKind: 'agent' | 'human';
  at: string;
  body: string;
  runId?: string;
}

/** One active hold, with its messages oldest first. */
export interface QueueEntry {
  id: string;
  agent: string;
  kind: 'reviewer' | 'on_demand';
  task: string | null;
  placedBy: string;
  placedAt: string;
  plans: number;
  pushBacks: number;
  /** The hold's newest plan (null: none yet), whether or not `messages` still carries it: what a release names as read. */
  lastPlanId: string | null;
  /** The newest messages, oldest of them first, as many as fit the queue's bounds. */
  messages: QueueMessage[];
}

/** The queue: the newest active holds, at most `limit`; `limitReached` when older ones are left out. */
export interface QueueAnswer {
  holds: QueueEntry[];
  limit: number;
  limitReached: boolean;
}
