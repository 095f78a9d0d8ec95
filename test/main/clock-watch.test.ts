/**
 * The clock check's verdicts: skew beyond the bound, less what the round
 * trip cannot tell apart, is off; it is logged once when it goes off and
 * once when it comes back; a failed measure keeps the last verdict.
 */
import { describe, expect, it } from 'vitest';
import { MAX_CLOCK_SKEW_MS, watchClock } from '../../src/main/clock-watch.js';

describe('watchClock', () => {
  it('says when the clock goes off the database\'s and when it is back, once each', async () => {
    const readings = [
      { skewMs: 0, rttMs: 2 },
      { skewMs: MAX_CLOCK_SKEW_MS + 400, rttMs: 1000 }, // within the bound once the round trip is allowed for
      { skewMs: -3 * MAX_CLOCK_SKEW_MS, rttMs: 2 },
      { skewMs: -3 * MAX_CLOCK_SKEW_MS, rttMs: 2 },
      'fails' as const,
      { skewMs: 10, rttMs: 2 },
    ];
    const verdicts: Array<boolean | undefined> = [];
    const lines: string[] = [];
    let i = 0;
    const clock = await watchClock(async () => {
      const r = readings[Math.min(i++, readings.length - 1)];
      if (r === 'fails') throw new Error('the database is away');
      return r as { skewMs: number; rttMs: number };
    }, (l) => lines.push(l), 5);
    try {
      while (i < readings.length + 1) {
        verdicts.push(clock.state()?.ok);
        await new Promise((r) => setTimeout(r, 5));
      }
    } finally {
      clock.stop();
    }
    // Each verdict as it was read, duplicates of a slow timer aside.
    expect(verdicts.filter((v, k) => k === 0 || v !== verdicts[k - 1])).toEqual([true, false, true]);
    expect(lines).toEqual([
      expect.stringMatching(/^plangate: this process's clock is 3000 ms ahead of the database's/),
      expect.stringMatching(/^plangate: this process's clock is within 1000 ms of the database's again/),
    ]);
  });
});
