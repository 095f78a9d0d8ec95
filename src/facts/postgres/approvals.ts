/**
 * Approvals for the PostgreSQL driver, shared by every replica. The
 * database decides every race: a partial unique index keeps one pending
 * request per exact call (a racing insert joins it), and using an approval
 * is one conditional UPDATE, so two replicas racing on one approval allow
 * exactly one call. The table is its own migration component (`approvals`).
 */
import type pg from 'pg';
import type { MigrationSet } from '../../core/migrations.js';
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
  type ApprovalRow,
  type ApprovalStore,
} from '../approvals.js';
import { inTransaction, type Runner } from './pool.js';

export const APPROVAL_MIGRATIONS: MigrationSet = {
  component: 'approvals',
  steps: [
    `CREATE TABLE approvals (
      seq bigserial UNIQUE,
      id text PRIMARY KEY,
      seat text NOT NULL,
      tool text NOT NULL,
      run_id text,
      digest text NOT NULL,
      args jsonb NOT NULL,
      plan_id text,
      status text NOT NULL CHECK (status IN ('pending', 'granted', 'denied', 'used')),
      requested_at bigint NOT NULL,
      window_min integer NOT NULL,
      approvers jsonb NOT NULL,
      decided_by text,
      decided_at bigint,
      reason text,
      expires_at bigint,
      used_at bigint
    );
    CREATE INDEX approvals_by_call ON approvals (seat, tool, digest, requested_at DESC, seq DESC);
    CREATE UNIQUE INDEX approvals_one_pending ON approvals (seat, tool, COALESCE(run_id, ''), digest) WHERE status = 'pending';
    CREATE INDEX approvals_by_time ON approvals (requested_at DESC, seq DESC);`,
    // 1 → 2: the seat's approvalRequests quota (facts/quotas.ts).
    'CREATE INDEX approvals_by_seat ON approvals (seat, requested_at);',
  ],
};

const COLUMNS = APPROVAL_COLUMNS.replace('args', 'args::text AS args').replace('approvers', 'approvers::text AS approvers');

export const APPROVAL_SQL = {
  of: `SELECT ${COLUMNS} FROM approvals WHERE seat = $1 AND tool = $2 AND digest = $3 ORDER BY requested_at DESC, seq DESC LIMIT $4`,
  get: `SELECT ${COLUMNS} FROM approvals WHERE id = $1`,
  getForUpdate: `SELECT ${COLUMNS} FROM approvals WHERE id = $1 FOR UPDATE`,
  insert: `INSERT INTO approvals (${APPROVAL_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11::jsonb, $12, $13, $14, $15, $16)
    ON CONFLICT (seat, tool, COALESCE(run_id, ''), digest) WHERE status = 'pending' DO NOTHING`,
  pending: `SELECT ${COLUMNS} FROM approvals WHERE seat = $1 AND tool = $2 AND COALESCE(run_id, '') = $3 AND digest = $4 AND status = 'pending'`,
  answer: `UPDATE approvals SET status = $2, decided_by = $3, decided_at = $4, reason = $5, expires_at = $6 WHERE id = $1 AND status = 'pending'`,
  use: `UPDATE approvals SET status = 'used', used_at = $2 WHERE id = $1 AND status = 'granted' AND expires_at > $2`,
  list: `SELECT ${COLUMNS} FROM approvals WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR seat = $2) ORDER BY requested_at DESC, seq DESC LIMIT $3`,
} as const;

/** The approvals half of a PostgreSQL store. */
export function createPostgresApprovals(pool: pg.Pool, run: Runner): ApprovalStore {
  return {
    approvalsOf: (seat, tool, digest) =>
      run('approvalsOf', async () => (await pool.query<ApprovalRow>({ name: 'plangate_approvals_of', text: APPROVAL_SQL.of, values: [seat, tool, digest, MAX_APPROVAL_RECORDS] })).rows.map(toApproval)),

    requestApproval: (r) =>
      run('requestApproval', async () => {
        const a = checkNewApproval(r);
        // A racing insert of the same call loses to the unique index and joins the request that won.
        for (let attempt = 0; attempt < 3; attempt++) {
          const { rowCount } = await pool.query(APPROVAL_SQL.insert, approvalValues(a));
          if (rowCount) return { approval: a, created: true };
          const row = (await pool.query<ApprovalRow>(APPROVAL_SQL.pending, [a.seat, a.tool, a.runId ?? '', a.digest])).rows[0];
          if (row) return { approval: toApproval(row), created: false };
        }
        throw new Error('the pending request of this call changed three times while it was being recorded');
      }),

    answerApproval: (id, x) =>
      run('answerApproval', () =>
        inTransaction(pool, async (c) => {
          const answer = checkAnswer(x);
          const row = (await c.query<ApprovalRow>(APPROVAL_SQL.getForUpdate, [id])).rows[0];
          if (!row) throw unknownApproval(id);
          const next = answered(toApproval(row), answer);
          await c.query(APPROVAL_SQL.answer, [id, next.status, next.decidedBy, next.decidedAt, next.reason, next.expiresAt]);
          return next;
        }),
      ),

    useApproval: (id, at) => run('useApproval', async () => ((await pool.query(APPROVAL_SQL.use, [id, at])).rowCount ?? 0) === 1),

    getApproval: (id) =>
      run('getApproval', async () => {
        const row = (await pool.query<ApprovalRow>(APPROVAL_SQL.get, [id])).rows[0];
        return row ? toApproval(row) : undefined;
      }),

    listApprovals: (query) =>
      run('listApprovals', async () => {
        const q = checkApprovalQuery(query);
        return (await pool.query<ApprovalRow>(APPROVAL_SQL.list, [q.status ?? null, q.seat ?? null, q.limit])).rows.map(toApproval);
      }),
  };
}
