/**
 * Approvals for the SQLite store driver. The table is created when the
 * store opens (IF NOT EXISTS: additive to any schema version). A decision's
 * lookup is one index seek; recording a request and using an approval are
 * each one immediate transaction, so racing processes on one file record
 * one request per call and use an approval once.
 */
import type Database from 'better-sqlite3';
import type { Approval } from '../../core/approvals.js';
import {
  answered,
  APPROVAL_COLUMNS,
  approvalValues,
  checkAnswer,
  checkApprovalQuery,
  checkNewApproval,
  MAX_APPROVAL_RECORDS,
  toApproval,
  unknownApproval,
  type ApprovalAnswer,
  type ApprovalRow,
  type ApprovalStore,
} from '../approvals.js';
import { guard } from './guard.js';

export const APPROVALS_DDL = `
  CREATE TABLE IF NOT EXISTS approvals (
    id TEXT PRIMARY KEY,
    seat TEXT NOT NULL,
    tool TEXT NOT NULL,
    run_id TEXT,
    digest TEXT NOT NULL,
    args TEXT NOT NULL,
    plan_id TEXT,
    status TEXT NOT NULL CHECK (status IN ('pending', 'granted', 'denied', 'used')),
    requested_at INTEGER NOT NULL,
    window_min INTEGER NOT NULL,
    approvers TEXT NOT NULL,
    decided_by TEXT,
    decided_at INTEGER,
    reason TEXT,
    expires_at INTEGER,
    used_at INTEGER
  );
  -- A decision's lookup: one exact call's requests, newest first.
  CREATE INDEX IF NOT EXISTS approvals_by_call ON approvals(seat, tool, digest, requested_at);
  -- At most one pending request per exact call (the run as '' when none).
  CREATE UNIQUE INDEX IF NOT EXISTS approvals_one_pending ON approvals(seat, tool, IFNULL(run_id, ''), digest) WHERE status = 'pending';
  CREATE INDEX IF NOT EXISTS approvals_by_time ON approvals(requested_at);
  -- The seat's approvalRequests quota (facts/quotas.ts).
  CREATE INDEX IF NOT EXISTS approvals_by_seat ON approvals(seat, requested_at);
`;

/** The approvals half of an SQLite store, on an open connection. */
export function createSqliteApprovals(db: Database.Database): ApprovalStore {
  guard('creating the approvals table', () => db.exec(APPROVALS_DDL));
  const st = guard('preparing approval statements', () => ({
    of: db.prepare<[string, string, string, number], ApprovalRow>(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE seat = ? AND tool = ? AND digest = ? ORDER BY requested_at DESC, rowid DESC LIMIT ?`),
    get: db.prepare<[string], ApprovalRow>(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE id = ?`),
    pending: db.prepare<[string, string, string, string], ApprovalRow>(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE seat = ? AND tool = ? AND IFNULL(run_id, '') = ? AND digest = ? AND status = 'pending'`),
    insert: db.prepare(`INSERT INTO approvals (${APPROVAL_COLUMNS}) VALUES (${APPROVAL_COLUMNS.split(',').map(() => '?').join(', ')})`),
    answer: db.prepare<[string, string, number, string | null, number | null, string]>(`UPDATE approvals SET status = ?, decided_by = ?, decided_at = ?, reason = ?, expires_at = ? WHERE id = ? AND status = 'pending'`),
    use: db.prepare<[number, string, number]>(`UPDATE approvals SET status = 'used', used_at = ? WHERE id = ? AND status = 'granted' AND expires_at > ?`),
    list: db.prepare<[string | null, string | null, string | null, string | null, number], ApprovalRow>(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE (? IS NULL OR status = ?) AND (? IS NULL OR seat = ?) ORDER BY requested_at DESC, rowid DESC LIMIT ?`),
  }));

  const request = db.transaction((a: Approval): { approval: Approval; created: boolean } => {
    const pending = st.pending.get(a.seat, a.tool, a.runId ?? '', a.digest);
    if (pending) return { approval: toApproval(pending), created: false };
    st.insert.run(...approvalValues(a));
    return { approval: a, created: true };
  });

  const answer = db.transaction((id: string, x: ApprovalAnswer): Approval => {
    const row = st.get.get(id);
    if (!row) throw unknownApproval(id);
    const next = answered(toApproval(row), x);
    st.answer.run(next.status, next.decidedBy as string, next.decidedAt as number, next.reason, next.expiresAt, id);
    return next;
  });

  return {
    async approvalsOf(seat, tool, digest) {
      return guard('approvalsOf', () => st.of.all(seat, tool, digest, MAX_APPROVAL_RECORDS).map(toApproval));
    },
    async requestApproval(r) {
      return guard('requestApproval', () => request.immediate(checkNewApproval(r)));
    },
    async answerApproval(id, x) {
      return guard('answerApproval', () => answer.immediate(id, checkAnswer(x)));
    },
    async useApproval(id, at) {
      return guard('useApproval', () => st.use.run(at, id, at).changes === 1);
    },
    async getApproval(id) {
      return guard('getApproval', () => {
        const row = st.get.get(id);
        return row ? toApproval(row) : undefined;
      });
    },
    async listApprovals(query) {
      return guard('listApprovals', () => {
        const q = checkApprovalQuery(query);
        return st.list.all(q.status ?? null, q.status ?? null, q.seat ?? null, q.seat ?? null, q.limit).map(toApproval);
      });
    },
  };
}
