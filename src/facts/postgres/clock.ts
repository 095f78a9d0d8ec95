/**
 * The database's clock against this process's. With replicas on one
 * PostgreSQL, each replica stamps the messages it posts and decides by its
 * own clock, so a replica whose clock is off makes plans count later, or
 * for longer, on the others. Measuring it is how an operator learns.
 */
import type pg from 'pg';

/** How far the database's clock is ahead of `now` (negative: behind), and the round trip it was measured in. */
export interface ClockReading {
  skewMs: number;
  rttMs: number;
}

/**
 * @example
 * const { skewMs } = await clockSkew(store.pool); // 3: the database is 3 ms ahead
 */
export async function clockSkew(pool: pg.Pool, now: () => number = Date.now): Promise<ClockReading> {
  const before = now();
  const r = await pool.query<{ ms: number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms');
  const after = now();
  const ms = Number(r.rows[0]?.ms);
  return { skewMs: Math.round(ms - (before + after) / 2), rttMs: after - before };
}
