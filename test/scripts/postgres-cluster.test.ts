/**
 * The throwaway PostgreSQL cluster `npm test` starts (scripts/postgres.mjs):
 * it answers on loopback at the URL it gives, and stop() shuts it down and
 * removes it. Needs PostgreSQL's server binaries; under CI=true their
 * absence fails, elsewhere it is skipped with one loud line.
 */
import { existsSync } from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { findPostgresBin, startPostgres } from '../../scripts/postgres.mjs';

const bin = (findPostgresBin as () => string | null)();
if (!bin) {
  if (process.env['CI'] === 'true') it('starts a throwaway cluster', () => { throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql/*/bin'); });
  else process.stderr.write('\n!!! SKIPPED: the throwaway PostgreSQL cluster test — no server binaries under /usr/lib/postgresql/*/bin\n\n');
}

describe.runIf(bin !== null && process.env['PLANGATE_TEST_UNIT'] !== 'true')('the throwaway PostgreSQL cluster', () => {
  it('answers on 127.0.0.1 at its URL, and is gone after stop()', async () => {
    const cluster = (await (startPostgres as (b: string) => Promise<{ url: string; port: number; dir: string; stop(): void }>)(bin as string));
    try {
      expect(existsSync(cluster.dir)).toBe(true);
      expect(cluster.url).toBe(`postgres://postgres@127.0.0.1:${cluster.port}/postgres`);
      const client = new pg.Client({ connectionString: cluster.url });
      await client.connect();
      const r = await client.query<{ addr: string }>('select inet_server_addr()::text as addr');
      expect(r.rows[0]?.addr).toMatch(/^127\.0\.0\.1/);
      await client.end();
    } finally {
      cluster.stop();
    }
    const after = new pg.Client({ connectionString: cluster.url, connectionTimeoutMillis: 2000 });
    await expect(after.connect()).rejects.toThrow();
    expect(existsSync(cluster.dir)).toBe(false);
  }, 60_000);
});
