/** Runs the store contract against every driver. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createMemoryStore } from '../../src/facts/memory/store.js';
import { openPostgresStore } from '../../src/facts/postgres/store.js';
import { openSqliteStore } from '../../src/facts/sqlite/store.js';
import { freshSchemaUrl, havePostgres } from '../support/postgres.js';
import { storeContract } from './contract.js';

const dir = mkdtempSync(join(tmpdir(), 'plangate-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

storeContract('memory', () => createMemoryStore());
storeContract('sqlite :memory:', () => openSqliteStore(':memory:'));
storeContract('sqlite file', () => openSqliteStore(join(dir, `store-${n++}.db`)));

if (havePostgres('the store contract on PostgreSQL')) {
  const schemas: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const drop of schemas) await drop();
  }, 120_000); // one schema per random history: about a hundred to drop
  storeContract('postgres', async () => {
    const fresh = await freshSchemaUrl('contract');
    schemas.push(fresh.drop);
    return openPostgresStore(fresh.url);
  });
}
