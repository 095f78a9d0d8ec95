/**
 * What a prune deletes from each table, as SQL both drivers run: each table
 * is walked in key order (its identity, which follows the time each row
 * was recorded) in batches of `batch` rows, and of each batch the rows the
 * table's condition names are deleted in one short statement. The walk
 * stops at the first batch recorded wholly after the table's cutoff (and
 * {@link STRAGGLERS_MS} more, for replicas whose clocks differ a little), so a
 * prune reads what it may delete and little more, and never locks a row a
 * decision reads (decisions only read, and read rows are not deleted).
 *
 * Parameters of every condition: `:now`, the table's `:before`, and for
 * messages `:keptFrom` (the start of the oldest run still open: a message
 * tagged with a run is kept from then on).
 */

/**
 * How far past the cutoff a batch must lie before the walk stops: rows are
 * recorded by replicas whose clocks may differ (the clock watch warns past
 * a second), so a row's key and time order may disagree a little.
 */
export const STRAGGLERS_MS = 60 * 60 * 1000;

export interface PruneTable {
  /** The kind counted in the report. */
  kind: 'holds' | 'messages' | 'runs' | 'delegations' | 'approvals' | 'audit';
  table: string;
  /** The walk's key: increasing in the order rows were recorded. */
  key: string;
  /** When the row was recorded: the walk stops at a batch recorded wholly at or after the cutoff. */
  recorded: string;
  /** Which rows of a batch go (SQL over the table's columns, with :now, :before, :keptFrom). */
  condition: string;
  /** Rows to delete first, in other tables, that refer to the ones deleted (SQL with :match, a subquery of the keys going). */
  dependents?: string;
}

/**
 * The tables in the order they are pruned: holds first (with their links
 * to messages), so that the messages of a hold that goes may go in the
 * same prune; a message is never deleted while a hold that is kept links to
 * it (the review queue, a hold's last plan).
 */
export const PRUNE_TABLES: readonly PruneTable[] = [
  {
    kind: 'holds',
    table: 'holds',
    key: 'id',
    recorded: 'placed_at',
    condition: "state <> 'active' AND coalesce(released_at, cleared_at) < :before",
    dependents: 'DELETE FROM hold_messages WHERE hold_id IN (:match)',
  },
  {
    kind: 'messages',
    table: 'messages',
    key: 'id',
    recorded: 'at',
    condition: 'at < :before AND (run_id IS NULL OR at < :keptFrom)'
      + ' AND id NOT IN (SELECT message_id FROM hold_messages)'
      + ' AND id NOT IN (SELECT last_plan_id FROM holds WHERE last_plan_id IS NOT NULL)',
  },
  {
    kind: 'runs',
    table: 'runs',
    key: ':runKey',
    recorded: 'started_at',
    condition: '((ended_at IS NOT NULL AND ended_at < :before) OR (ended_at IS NULL AND expires_at < :before))',
  },
  {
    kind: 'delegations',
    table: 'delegations',
    key: ':delegationKey',
    recorded: 'created_at',
    condition: '((revoked_at IS NOT NULL AND revoked_at < :before) OR (expires_at IS NOT NULL AND expires_at < :before))',
  },
  {
    // Answered and over: denied, used, or granted and expired (by :now too,
    // so a grant still usable is never deleted). A pending request never goes.
    kind: 'approvals',
    table: 'approvals',
    key: ':approvalKey',
    recorded: 'requested_at',
    condition: "((status = 'denied' AND decided_at < :before)"
      + " OR (status = 'used' AND used_at < :before)"
      + " OR (status = 'granted' AND expires_at < :before AND expires_at <= :now))",
  },
];

/** The audit table (PostgreSQL only). */
export const AUDIT_TABLE: PruneTable = { kind: 'audit', table: 'audit_events', key: 'id', recorded: 'time_ms', condition: 'time_ms < :before' };

/** The start of the oldest run still open at :now (messages tagged with it may still count). */
export const OLDEST_OPEN_RUN = 'SELECT min(started_at) FROM runs WHERE (ended_at IS NULL OR ended_at > :now) AND expires_at > :now';

/** The cutoff parameter each kind is judged by. */
export function beforeOf(kind: PruneTable['kind'], c: { messagesBefore: number; runsBefore: number; delegationsBefore: number; holdsBefore: number; approvalsBefore: number; auditBefore: number }): number {
  return { holds: c.holdsBefore, messages: c.messagesBefore, runs: c.runsBefore, delegations: c.delegationsBefore, approvals: c.approvalsBefore, audit: c.auditBefore }[kind];
}
