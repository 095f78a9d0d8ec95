/**
 * The PostgreSQL the tests use: `PLANGATE_TEST_POSTGRES` (a `postgres://`
 * URL; `npm test` starts a throwaway cluster and sets it when the server
 * binaries are installed, see scripts/postgres.mjs). In CI a missing
 * variable fails the suite; locally the PostgreSQL tests are skipped with one
 * loud line naming them.
 *
 * Each store gets a schema of its own (`search_path` in the URL), so tests
 * never see each other's rows and can run in parallel.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const POSTGRES_ENV = 'PLANGATE_TEST_POSTGRES';
export const TEST_POSTGRES: string | undefined = process.env[POSTGRES_ENV] || undefined;

/**
 * Whether the PostgreSQL tests of `what` can run: throws in CI without a
 * database, says so loudly and returns false locally.
 */
export function havePostgres(what: string): boolean {
  if (TEST_POSTGRES) return true;
  // npm run test:unit leaves PostgreSQL out on purpose and says so once.
  if (process.env['PLANGATE_TEST_UNIT'] === 'true') return false;
  if (process.env['CI'] === 'true') {
    throw new Error(`${POSTGRES_ENV} is not set in CI: the PostgreSQL tests (${what}) must run; npm test starts a cluster when PostgreSQL's server binaries are installed`);
  }
  process.stderr.write(`\n!!! SKIPPED (no PostgreSQL): ${what} — set ${POSTGRES_ENV}=postgres://… to run them\n\n`);
  return false;
}

/** The test database's URL with its own fresh, empty schema as the search path. */
export async function freshSchemaUrl(prefix = 't', base = TEST_POSTGRES): Promise<{ url: string; schema: string; drop(): Promise<void> }> {
  if (!base) throw new Error(`${POSTGRES_ENV} is not set`);
  const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  const u = new URL(base);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: u.toString(),
    schema,
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      try {
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await c.end();
      }
    },
  };
}
