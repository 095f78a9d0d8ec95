/**
 * How the PostgreSQL driver names a database error, without a database: a
 * value refused as data (SQLSTATE class 22) is the request's fault and never
 * passes for an outage, which would make a gate fail open.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, PlangateError } from '../../src/core/errors.js';
import { failingOpen } from '../../src/engine/holder.js';
import { storeFailure } from '../../src/facts/postgres/pool.js';
import { createMemoryStore } from '../../src/facts/memory/store.js';
import { createGate } from '../../src/gate/gate.js';
import { seedOrg } from '../support/world.js';

const pgError = (code: string, message: string): Error => Object.assign(new Error(message), { code });

describe('storeFailure', () => {
  it('names a data exception invalid_input, an unreachable database store_unavailable, anything else store_failure', () => {
    const where = 'postgres://app:***@db/plangate';
    const cases: Array<[string, ErrorCode]> = [
      ['22021', ErrorCode.InvalidInput], // invalid byte sequence (a NUL in text)
      ['22P02', ErrorCode.InvalidInput], // invalid text representation
      ['22003', ErrorCode.InvalidInput], // numeric value out of range
      ['08006', ErrorCode.StoreUnavailable],
      ['57P01', ErrorCode.StoreUnavailable],
      ['42P01', ErrorCode.StoreFailure], // undefined table: the store's fault
      ['2200', ErrorCode.StoreFailure], // not an SQLSTATE
    ];
    for (const [code, expected] of cases) expect(storeFailure('decision facts', where, pgError(code, `failed ${code}`)).code, code).toBe(expected);
  });

  it('lets a gate refuse the call as invalid input, never fail open on it', async () => {
    const store = createMemoryStore();
    await seedOrg(store);
    const refusing = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop !== 'decisionFacts') return Reflect.get(target, prop, receiver);
        return async () => {
          throw storeFailure('decision facts', 'postgres://db', pgError('22021', 'invalid byte sequence for encoding "UTF8": 0x00'));
        };
      },
    });
    const gate = createGate({ engine: failingOpen('no policy in this test').evaluator, store: refusing, onStoreError: () => {} });
    const e = await gate.decide({ agent: '0xWORKER', tool: 'wallet.pay' }).then(() => undefined, (x: unknown) => x);
    expect(e).toBeInstanceOf(PlangateError);
    expect((e as PlangateError).code).toBe(ErrorCode.InvalidInput);
  });
});
