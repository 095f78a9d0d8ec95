/**
 * `plangate/postgres`: the PostgreSQL store (one database for several
 * replicas), its audit sink, and the hold-change feed between replicas.
 * Loads pg.
 *
 * @example
 * import { openPostgresStore, createPostgresAuditSink } from 'plangate/postgres';
 * const store = await openPostgresStore('postgres://plangate@db/plangate');
 * const audit = await createPostgresAuditSink(store.pool);
 */
export { openPostgresStore, type PostgresStore, type PostgresOptions } from './facts/postgres/store.js';
export { createPool } from './facts/postgres/pool.js';
export { watchHoldChanges, HOLD_CHANNEL, type HoldChange, type HoldWatch } from './facts/postgres/listen.js';
export { createPostgresAuditSink, type PostgresAuditSink } from './audit/postgres.js';
