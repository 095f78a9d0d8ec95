/**
 * Which store a location names: `:memory:`, an SQLite file, or a
 * `postgres://` URL; any other URL scheme is an error, never a file name.
 * With PostgreSQL the audit goes to the same database unless told otherwise.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/core/errors.js';
import { describeLocation, resolvePaths, storeKind } from '../../src/main/config.js';
import { openPlangate } from '../../src/main/open.js';
import { cli, tempDir } from '../cli/run.js';
import { expectCode } from '../facts/contract.js';
import { freshSchemaUrl, havePostgres } from '../support/postgres.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'rules');

describe('store locations', () => {
  it('tells memory, SQLite and PostgreSQL apart, and refuses any other URL scheme', () => {
    expect(storeKind(':memory:')).toBe('memory');
    expect(storeKind('/var/lib/plangate.db')).toBe('sqlite');
    expect(storeKind('postgres://db/plangate')).toBe('postgres');
    expect(storeKind('postgresql://db/plangate')).toBe('postgres');
    expect(() => storeKind('mysql://app:pw@db/plangate')).toThrow(/unsupported store URL scheme "mysql:" in mysql:\/\/app:\*\*\*@db\/plangate/);
    expect(() => storeKind('sqlite:///x.db')).toThrow(/use postgres:\/\//);
  });

  it('keeps URLs as they are, and sends a PostgreSQL store’s audit to its database unless an audit is given', () => {
    const url = 'postgres://app:pw@db:5432/plangate';
    expect(resolvePaths({}, { PLANGATE_STORE: url })).toMatchObject({ store: url, audit: url });
    expect(resolvePaths({ audit: 'a.jsonl' }, { PLANGATE_STORE: url }).audit).toMatch(/\/a\.jsonl$/);
    expect(resolvePaths({}, { PLANGATE_STORE: 'x.db' }).audit).toMatch(/\.data\/audit\.jsonl$/);
    expect(describeLocation(url)).toBe('postgres://app:***@db:5432/plangate');
  });

  it('refuses a store with another URL scheme in openPlangate and the CLI, creating no file', async () => {
    const dir = tempDir();
    await expectCode(openPlangate({ rules: EXAMPLES, store: 'mysql://db/plangate', audit: join(dir, 'a.jsonl') }), ErrorCode.InvalidInput, /unsupported store URL scheme/);
    const r = await cli(['org', 'crew', 'desk'], { PLANGATE_STORE: 'redis://localhost' });
    expect(r.status).toBe(1);
    expect(r.err).toMatch(/unsupported store URL scheme "redis:"/);
    expect(existsSync('redis:')).toBe(false);
  });

  it.runIf(havePostgres('the CLI on a PostgreSQL store'))('runs the CLI on a PostgreSQL store', async () => {
    const fresh = await freshSchemaUrl('cli');
    try {
      const env = { PLANGATE_STORE: fresh.url, PLANGATE_RULES: EXAMPLES };
      expect((await cli(['org', 'crew', 'desk'], env)).status).toBe(0);
      expect((await cli(['org', 'agent', '0xW', '--crew', 'desk'], env)).status).toBe(0);
      const listed = await cli(['org', 'list'], env);
      expect(listed.out).toMatch(/0xW/);
    } finally {
      await fresh.drop();
    }
  });
});
