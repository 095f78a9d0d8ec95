/**
 * The PostgreSQL audit sink and reader: every replica writes its events to
 * one table, `audit_events`, and any replica reads them back, newest first.
 * `record()` resolves once the row is committed (durable, with PostgreSQL's
 * default `synchronous_commit`), so an answered call's event is never lost
 * by a crash of the replica. The stored row is the event's declared fields
 * only (`toAuditRecord`), never a message body.
 */
import type pg from 'pg';
import { ErrorCode, PlangateError } from '../core/errors.js';
import { migrate, type MigrationSet } from '../core/migrations.js';
import type { AuditEvent, AuditQuery, AuditReader, AuditSink } from './port.js';
import { AUDIT_CHECKS, checkAuditQuery, type AuditCheck } from './query.js';
import { toAuditRecord } from './record.js';

/** The audit table's migrations. Never edit a released step; append a new one. */
export const AUDIT_MIGRATIONS: MigrationSet = {
  component: 'audit',
  steps: [
    `
    CREATE TABLE audit_events (
      id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      time_ms bigint NOT NULL,
      type    text NOT NULL,
      agent   text NULL,
      crew    text NULL,
      tool    text NULL,
      code    text NULL,
      shadow  boolean NOT NULL DEFAULT false,
      -- json, not jsonb: the event reads back with its fields in their order.
      event   json NOT NULL
    );
    CREATE INDEX audit_by_time ON audit_events(time_ms DESC, id DESC);
    CREATE INDEX audit_by_agent ON audit_events(agent, time_ms DESC, id DESC);
    CREATE INDEX audit_by_type ON audit_events(type, time_ms DESC, id DESC);
    `,
  ],
};

const INSERT = `INSERT INTO audit_events (time_ms, type, agent, crew, tool, code, shadow, event)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`;

export interface PostgresAuditSink extends AuditSink, AuditReader {
  record(event: AuditEvent): Promise<void>;
  /** Refuses later records; ends the pool only when the sink opened it (`ownsPool`). */
  close(): Promise<void>;
}

function invalid(message: string): PlangateError {
  return new PlangateError(ErrorCode.InvalidInput, message);
}

/**
 * The SQL for a query, with the meaning every reader shares (`checkAuditQuery`,
 * `matchesAudit`): every filter a bound parameter, newest first.
 *
 * @example
 * auditQuerySql({ agent: '0xW', limit: 10 }).text // '… WHERE agent = $1 … LIMIT $2'
 */
export function auditQuerySql(query: AuditQuery): { text: string; values: unknown[] } {
  const q = checkAuditQuery(query);
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (sql: (p: string) => string, value: unknown): void => {
    values.push(value);
    where.push(sql(`$${values.length}`));
  };
  if (q.types) add((p) => `type = ANY(${p}::text[])`, [...q.types]);
  if (q.check !== undefined) add((p) => `type = ${p}`, AUDIT_CHECKS[q.check as AuditCheck]);
  for (const key of ['agent', 'crew', 'tool', 'code'] as const) {
    const v = q[key];
    if (v !== undefined) add((p) => `${key} = ${p}`, v);
  }
  if (q.shadow !== undefined) add((p) => `shadow = ${p}`, q.shadow);
  if (q.since !== undefined) add((p) => `time_ms >= ${p}`, q.since);
  if (q.until !== undefined) add((p) => `time_ms <= ${p}`, q.until);
  values.push(q.limit);
  const text = `SELECT event FROM audit_events${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
    ORDER BY time_ms DESC, id DESC LIMIT $${values.length}`;
  return { text, values };
}

/** The indexed columns of an event (null where the type has none). */
function columns(e: AuditEvent): unknown[] {
  const r = e as Partial<Record<'agent' | 'crew' | 'tool' | 'code', string | null>> & { shadow?: boolean };
  const time = Date.parse(e.time);
  if (Number.isNaN(time)) throw invalid(`audit event time is not an ISO-8601 time: ${JSON.stringify(e.time)}`);
  return [time, e.type, r.agent ?? null, r.crew ?? null, r.tool ?? null, r.code ?? null, r.shadow === true, JSON.stringify(e)];
}

/**
 * Opens the sink on a pool (the PostgreSQL store's, or one of its own) and
 * brings the audit table up to date (under the migrations' advisory lock).
 *
 * @example
 * const audit = await createPostgresAuditSink(store.pool);
 * await audit.record(event);                       // committed when this resolves
 * await audit.query({ agent: '0xWORKER', limit: 10 }); // newest first, from every replica
 */
export async function createPostgresAuditSink(pool: pg.Pool, options: { ownsPool?: boolean } = {}): Promise<PostgresAuditSink> {
  try {
    const client = await pool.connect();
    try {
      await migrate(client, AUDIT_MIGRATIONS);
    } finally {
      client.release();
    }
  } catch (err) {
    if (options.ownsPool) await pool.end().catch(() => {});
    throw new PlangateError(ErrorCode.StoreFailure, `postgres audit: opening failed: ${err instanceof Error ? err.message : String(err)}`, [], { cause: err });
  }
  let closed = false;
  const fail = (what: string, err: unknown): Error =>
    err instanceof PlangateError ? err : new PlangateError(ErrorCode.StoreFailure, `postgres audit: ${what} failed: ${err instanceof Error ? err.message : String(err)}`, [], { cause: err });
  return {
    async record(event) {
      if (closed) throw new Error('postgres audit sink is closed');
      const values = columns(toAuditRecord(event));
      try {
        await pool.query(INSERT, values);
      } catch (err) {
        throw fail('record', err);
      }
    },
    async query(q) {
      const { text, values } = auditQuerySql(q);
      if (closed) throw new PlangateError(ErrorCode.StoreFailure, 'postgres audit: the sink is closed');
      try {
        const { rows } = await pool.query<{ event: AuditEvent }>(text, values);
        return rows.map((r) => r.event);
      } catch (err) {
        throw fail('query', err);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      if (options.ownsPool) await pool.end();
    },
  };
}
