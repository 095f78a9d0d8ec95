/**
 * The rows SQL drivers read (snake_case columns, as both the SQLite and the
 * PostgreSQL schema name them) and how each becomes a port value, in one
 * place so that the drivers cannot drift apart.
 */
import type { AuthorKind, Delegation, MessageFact, Run, StoredMessage } from '../core/types.js';
import type { Hold, HoldMessageRole } from './port.js';

/** A message row without its body, as a decision reads it. */
export interface FactRow {
  id: number;
  thread: string;
  author: string;
  author_kind: AuthorKind;
  kind: string;
  at: number;
  run_id: string | null;
}

export interface MessageRow extends FactRow {
  body: string;
}

export function toFact(r: FactRow): MessageFact {
  const f: MessageFact = { id: String(r.id), thread: r.thread, author: r.author, authorKind: r.author_kind, kind: r.kind, at: r.at };
  if (r.run_id !== null) f.runId = r.run_id;
  return f;
}

export function toMessage(r: MessageRow): StoredMessage {
  const { id, thread, author, authorKind, kind, at, runId } = toFact(r);
  const m: StoredMessage = { id, thread, author, authorKind, kind, body: r.body, at };
  if (runId !== undefined) m.runId = runId;
  return m;
}

export interface HoldRow {
  id: number;
  agent: string;
  kind: Hold['kind'];
  task: string | null;
  placed_by: string;
  placed_at: number;
  state: Hold['state'];
  released_by: string | null;
  released_at: number | null;
  cleared_by: string | null;
  cleared_at: number | null;
  plans: number;
  push_backs: number;
  last_plan_id: number | null;
}

/** A message linked to a hold, with the link's role. */
export interface LinkRow {
  role: HoldMessageRole;
  id: number;
  thread: string;
  author: string;
  author_kind: AuthorKind;
  kind: string;
  body: string;
  at: number;
  run_id: string | null;
}

export interface RunRow {
  id: string;
  seat: string;
  delegation_id: string | null;
  started_at: number;
  expires_at: number;
  ended_at: number | null;
  started_by: string;
  ended_by: string | null;
}

export interface DelegationRow {
  id: string;
  manager: string;
  worker: string;
  run_id: string | null;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  created_by: string;
}

/**
 * A hold row as the port's Hold (ids as strings).
 *
 * @example
 * toHold(row).lastPlanId // '17' or null
 */
export function toHold(r: HoldRow): Hold {
  return {
    id: String(r.id),
    agent: r.agent,
    kind: r.kind,
    task: r.task,
    placedBy: r.placed_by,
    placedAt: r.placed_at,
    state: r.state,
    releasedBy: r.released_by,
    releasedAt: r.released_at,
    clearedBy: r.cleared_by,
    clearedAt: r.cleared_at,
    plans: r.plans,
    pushBacks: r.push_backs,
    lastPlanId: r.last_plan_id === null ? null : String(r.last_plan_id),
  };
}

/** A linked message row as `{ role, message }`. */
export function toLinked(r: LinkRow): { role: HoldMessageRole; message: StoredMessage } {
  const message: StoredMessage = { id: String(r.id), thread: r.thread, author: r.author, authorKind: r.author_kind, kind: r.kind, body: r.body, at: r.at };
  if (r.run_id !== null) message.runId = r.run_id;
  return { role: r.role, message };
}

export function toRun(r: RunRow): Run {
  return {
    id: r.id, seat: r.seat, delegationId: r.delegation_id, startedAt: r.started_at, expiresAt: r.expires_at,
    endedAt: r.ended_at, startedBy: r.started_by, endedBy: r.ended_by,
  };
}

export function toDelegation(r: DelegationRow): Delegation {
  return {
    id: r.id, manager: r.manager, worker: r.worker, runId: r.run_id, createdAt: r.created_at,
    expiresAt: r.expires_at, revokedAt: r.revoked_at, createdBy: r.created_by,
  };
}
