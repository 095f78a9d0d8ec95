/**
 * With replicas on PostgreSQL, a hold another replica places while this one
 * starts is known here: the hold changes are followed from before the
 * active holds are read, so none falls between the listing and the watch.
 */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openPostgresStore } from '../../src/facts/postgres/store.js';
import type { Gate } from '../../src/gate/gate.js';
import { freshSchemaUrl, havePostgres } from '../support/postgres.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'rules');

/** Set by the test: run right after this replica has read the active holds at start. */
const afterListing: { run?: () => Promise<void> } = {};

vi.mock('../../src/main/holds-at-start.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/main/holds-at-start.js')>();
  return {
    ...real,
    async readHoldsAtStart(gate: Pick<Gate, 'holds' | 'knownHolds'>, log: (line: string) => void) {
      const reading = await real.readHoldsAtStart(gate, log);
      await afterListing.run?.();
      return reading;
    },
  };
});

const { openPlangate } = await import('../../src/main/open.js');

describe.runIf(havePostgres('the hold watch at start'))('holds at start on PostgreSQL', () => {
  it('knows a hold another replica placed right after this one listed the active holds', async () => {
    const fresh = await freshSchemaUrl('start');
    const other = await openPostgresStore(fresh.url);
    afterListing.run = async () => {
      await other.placeHold({ agent: '0xWORKER', kind: 'on_demand', placedBy: 'ops' });
    };
    const pg = await openPlangate({ rules: EXAMPLES, store: fresh.url, log: () => {} });
    try {
      for (let i = 0; i < 40 && !pg.gate.knownHolds.get('0xWORKER'); i++) await new Promise((r) => setTimeout(r, 50));
      expect(pg.gate.knownHolds.get('0xWORKER')).toMatchObject({ kind: 'on_demand' });
    } finally {
      await pg.close();
      await other.close();
      await fresh.drop();
    }
  });
});
