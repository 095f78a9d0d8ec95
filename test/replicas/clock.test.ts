/**
 * Replicas stamp and judge plans by their own clocks: a replica whose clock
 * is off the database's says so in /health's status and its metrics, and is
 * degraded until it is back within the bound.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/adapters/http/metrics.js';
import { degradedReasons } from '../../src/adapters/http/routes/ops.js';
import { openPlangate } from '../../src/main/open.js';
import { MAX_CLOCK_SKEW_MS } from '../../src/main/clock-watch.js';
import { freshSchemaUrl, havePostgres } from '../support/postgres.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'rules');

describe.runIf(havePostgres('the clock check'))('the clock against the database', () => {
  it('is ok for a replica in sync, and degraded for one whose clock is off', async () => {
    const fresh = await freshSchemaUrl('clock');
    const lines: string[] = [];
    const inSync = await openPlangate({ rules: EXAMPLES, store: fresh.url, log: () => {} });
    const fast = await openPlangate({ rules: EXAMPLES, store: fresh.url, clock: () => Date.now() + 5 * MAX_CLOCK_SKEW_MS, log: (l) => lines.push(l) });
    try {
      expect(inSync.status()).toMatchObject({ state: 'ok', clock: { ok: true } });
      expect(Math.abs(inSync.status().clock?.skewMs ?? Infinity)).toBeLessThan(MAX_CLOCK_SKEW_MS);
      const s = fast.status();
      expect(s).toMatchObject({ state: 'degraded', clock: { ok: false } });
      expect(s.clock?.skewMs).toBeLessThan(-4 * MAX_CLOCK_SKEW_MS);
      expect(lines.join('\n')).toMatch(/this process's clock is \d+ ms ahead of the database's/);
      expect(degradedReasons(s)).toEqual([expect.stringMatching(/^this replica's clock is \d+ ms ahead of the database's/)]);
      const metrics = await createMetrics({ status: () => fast.status(), processMetrics: false }).render();
      expect(metrics.text).toMatch(/plangate_clock_skew_seconds -[45](\.\d+)?\n/);
      expect(metrics.text).toMatch(/plangate_degraded 1/);
    } finally {
      await fast.close();
      await inSync.close();
      await fresh.drop();
    }
  });
});
