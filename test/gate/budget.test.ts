/**
 * withinBudget (gate/store-failures.ts): the waits under one budget share a
 * timer; each is refused when its own deadline passes first, whatever the
 * waits before and after it did.
 */
import { describe, expect, it } from 'vitest';
import { withinBudget } from '../../src/gate/store-failures.js';

const later = <T>(ms: number, value: T): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(value), ms));

describe('withinBudget', () => {
  it('answers the work that ends in time and refuses, naming the budget, each that does not', async () => {
    const fast = withinBudget(later(5, 'fast'), 60);
    const slow = withinBudget(later(400, 'slow'), 60);
    const failed = withinBudget(Promise.reject(new Error('the store said no')), 60);
    const [f, s, x] = await Promise.allSettled([fast, slow, failed]);
    expect(f).toEqual({ status: 'fulfilled', value: 'fast' });
    expect(s).toMatchObject({ status: 'rejected', reason: { code: 'store_failure', message: expect.stringContaining('within its 60 ms budget') } });
    expect(x).toMatchObject({ status: 'rejected', reason: { message: 'the store said no' } });
  });

  it('gives a wait begun after others its own whole budget', async () => {
    const first = withinBudget(later(400, 'first'), 80);
    await later(50, undefined);
    const second = withinBudget(later(60, 'second'), 80);
    // The first's deadline passes before the second's work ends; the second still has its 80 ms.
    await expect(first).rejects.toMatchObject({ code: 'store_failure' });
    await expect(second).resolves.toBe('second');
  });

  it('refuses a wait whose timer comes after settled ones', async () => {
    const settled = await Promise.all(Array.from({ length: 50 }, (_, i) => withinBudget(Promise.resolve(i), 40)));
    expect(settled).toHaveLength(50);
    await expect(withinBudget(later(300, 'late'), 40)).rejects.toMatchObject({ code: 'store_failure' });
  });

  it('keeps budgets of different lengths apart', async () => {
    const short = withinBudget(later(120, 'short'), 30);
    const long = withinBudget(later(60, 'long'), 500);
    await expect(short).rejects.toMatchObject({ code: 'store_failure' });
    await expect(long).resolves.toBe('long');
  });
});
