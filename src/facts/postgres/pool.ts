/**
 * The connection pool of the PostgreSQL driver: sane limits, statement
 * timeouts, int8 read as numbers, and every driver error turned into a
 * `store_unavailable` when the database cannot be reached (saying so
 * plainly), else a `store_failure`, naming what failed.
 */
import pg from 'pg';
import { ErrorCode, PlangateError } from '../../core/errors.js';

export interface PostgresOptions {
  /** Most connections this process opens (default 10). */
  max?: number;
  /** Longest wait for a connection, ms (default 2000): an unreachable database fails a call fast. */
  connectTimeoutMs?: number;
  /** Longest time one statement may run, ms (default 2000), enforced by the server and the client. */
  statementTimeoutMs?: number;
  /** An idle connection is closed after this long, ms (default 30000). */
  idleTimeoutMs?: number;
  /** Where an idle connection's error (e.g. the server restarting) is reported; defaults to stderr. */
  onIdleError?: (error: Error) => void;
}

/** int8 (`bigint`) comes back as a number: ids and epoch milliseconds stay below 2^53. */
const INT8_OID = 20;
const types = {
  getTypeParser(oid: number, format?: string) {
    if (oid === INT8_OID && format !== 'binary') return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

/**
 * The URL with `plan_cache_mode=force_generic_plan` added to its startup
 * `options` (kept as given): the prepared decision statements are planned once
 * per connection, not on every call, since their plans do not depend on the
 * values (equality lookups and small LIMITs on indexes; the EXPLAIN test
 * checks the generic plans). A URL that does not parse is used as it is.
 *
 * @example
 * withGenericPlans('postgres://db/plangate') // 'postgres://db/plangate?options=-c+plan_cache_mode%3Dforce_generic_plan'
 */
export function withGenericPlans(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const given = u.searchParams.get('options');
  u.searchParams.set('options', `${given ? `${given} ` : ''}-c plan_cache_mode=force_generic_plan`);
  return u.toString();
}

/**
 * Opens a pool on `url`. Connections are made lazily; nothing is checked here.
 *
 * @example
 * const pool = createPool('postgres://127.0.0.1:5432/plangate', { max: 10 });
 */
export function createPool(url: string, options: PostgresOptions = {}): pg.Pool {
  const statementTimeoutMs = options.statementTimeoutMs ?? 2000;
  const pool = new pg.Pool({
    connectionString: withGenericPlans(url),
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 2000,
    idleTimeoutMillis: options.idleTimeoutMs ?? 30_000,
    statement_timeout: statementTimeoutMs,
    query_timeout: statementTimeoutMs + 1000,
    lock_timeout: statementTimeoutMs,
    idle_in_transaction_session_timeout: 10_000,
    application_name: 'plangate',
    types,
  });
  const onIdleError = options.onIdleError ?? ((e: Error) => void process.stderr.write(`plangate: postgres connection lost: ${e.message}\n`));
  // Without a listener an idle connection's error (the server restarting) would crash the process.
  pool.on('error', onIdleError);
  return pool;
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08006', '08001', '08003', '08004']);

/** Whether the database refused a value as data (SQLSTATE class 22: bad encoding, out of range, malformed text). */
function isDataException(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
}

/** Whether an error means the database cannot be reached (refused, reset, shutting down, timed out). */
export function isUnreachable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && UNREACHABLE.has(code)) return true;
  const msg = err instanceof Error ? err.message : String(err);
  return /timeout exceeded when trying to connect|Connection terminated|connection timeout|not queryable|Client has encountered a connection error/i.test(msg);
}

/**
 * Turns anything but a PlangateError into a `store_unavailable` when the
 * database cannot be reached, else a `store_failure`, naming `what` and the
 * database (password redacted).
 *
 * @example
 * throw storeFailure('lineage', 'postgres://db/plangate', err);
 */
export function storeFailure(what: string, where: string, err: unknown): PlangateError {
  if (err instanceof PlangateError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  // A data exception (SQLSTATE class 22) is the database refusing a value the request carried:
  // the request's fault, not the store's, so it must never pass for an outage (which fails open).
  if (isDataException(err)) {
    return new PlangateError(ErrorCode.InvalidInput, `the store cannot take a value of this request (${what}): ${msg}`, [], { cause: err });
  }
  if (isUnreachable(err)) {
    return new PlangateError(ErrorCode.StoreUnavailable, `postgres store: ${what} failed: the database at ${where} cannot be reached (${msg})`, [], { cause: err });
  }
  return new PlangateError(ErrorCode.StoreFailure, `postgres store: ${what} failed: ${msg}`, [], { cause: err });
}

/**
 * One trivial query on a connection of its own, outside the pool, so that
 * a pool kept busy by slow requests never passes for a database that cannot
 * be reached: resolves when the database answers within `timeoutMs`.
 */
export async function probeDatabase(url: string, timeoutMs: number): Promise<void> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs,
    application_name: 'plangate-probe',
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    await client.end().catch(() => {});
  }
}

/** Something that runs a query: the pool, or one client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

/**
 * Runs `fn` in one transaction on one connection: COMMIT on success,
 * ROLLBACK on any error (the error is rethrown).
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    try {
      await client.query('ROLLBACK');
    } catch {
      broken = true;
    }
    throw err;
  } finally {
    client.release(broken);
  }
}

/** Runs one store operation: driver errors become store failures, and a closed store refuses work. */
export type Runner = <T>(what: string, fn: () => Promise<T>) => Promise<T>;
