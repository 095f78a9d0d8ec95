/**
 * Versioned SQL migrations for a shared database: applied at start, in
 * order, once each, under an advisory lock so that several replicas starting
 * at once do not race. The client is structural (anything with `query`), so
 * this module depends on no driver.
 */

/** The part of a database client migrations need (e.g. a `pg` PoolClient). */
export interface SqlClient {
  query(config: { text: string; values?: unknown[]; query_timeout?: number }): Promise<{ rows: Array<Record<string, unknown>> }>;
}

/**
 * How long one migration statement may take, ms. A migration may rewrite a
 * big table or wait for another replica's migration, so the serving
 * timeouts (seconds) do not apply to it.
 */
export const MIGRATION_TIMEOUT_MS = 30 * 60_000;

/**
 * The advisory lock every plangate migration holds: one key for every
 * component, so that two components never create the version table at once.
 */
export const MIGRATION_LOCK_KEY = 0x706c_6167; // "plag"

/** One component's migrations, oldest first: `steps[n]` takes it from version `n` to `n + 1`. */
export interface MigrationSet {
  /** The name the applied versions are recorded under (`plangate_migrations.component`). */
  component: string;
  steps: readonly string[];
}

/**
 * Brings `set` up to date on `client`: takes the advisory lock (waiting for
 * another replica that holds it), applies every missing step in its own
 * transaction with its version row, and releases the lock. Idempotent.
 * Throws when the database is newer than this code.
 *
 * @example
 * await migrate(client, { component: 'store', steps: ['CREATE TABLE t (x int)'] });
 */
export async function migrate(client: SqlClient, set: MigrationSet): Promise<{ from: number; to: number }> {
  const q = (text: string, values?: unknown[]) => client.query({ text, ...(values ? { values } : {}), query_timeout: MIGRATION_TIMEOUT_MS });
  await q('SET statement_timeout = 0');
  await q('SET lock_timeout = 0');
  try {
    return await migrateLocked(q, set);
  } finally {
    // Back to the connection's own settings (the pool's timeouts) before it serves again.
    await q('RESET statement_timeout');
    await q('RESET lock_timeout');
  }
}

async function migrateLocked(
  q: (text: string, values?: unknown[]) => Promise<{ rows: Array<Record<string, unknown>> }>,
  set: MigrationSet,
): Promise<{ from: number; to: number }> {
  await q('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
  try {
    await q(`CREATE TABLE IF NOT EXISTS plangate_migrations (
      component  text NOT NULL,
      version    integer NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (component, version))`);
    const { rows } = await q('SELECT coalesce(max(version), 0) AS v FROM plangate_migrations WHERE component = $1', [set.component]);
    const from = Number(rows[0]?.['v'] ?? 0);
    if (from > set.steps.length) {
      throw new Error(`${set.component} schema version ${from} is newer than this plangate supports (${set.steps.length})`);
    }
    for (let v = from; v < set.steps.length; v++) {
      await q('BEGIN');
      try {
        await q(set.steps[v] as string);
        await q('INSERT INTO plangate_migrations (component, version) VALUES ($1, $2)', [set.component, v + 1]);
        await q('COMMIT');
      } catch (err) {
        await q('ROLLBACK');
        throw err;
      }
    }
    return { from, to: set.steps.length };
  } finally {
    await q('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
  }
}
