/** docs/reference/metrics.md names every metric plangate serve exposes (beside the process metrics). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, serve, type Served } from '../http/support.js';
import { ROOT } from './snippets.js';

describe('the metrics reference', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('names every plangate_ metric of GET /metrics', async () => {
    const text = (await call(s.url, 'GET', '/metrics')).text;
    const names = [...text.matchAll(/^# HELP (plangate_\w+)/gm)].map((m) => m[1] as string)
      .filter((n) => !n.startsWith('plangate_process_') && !n.startsWith('plangate_nodejs_'));
    expect(names).toContain('plangate_decisions_total');
    const page = readFileSync(join(ROOT, 'docs', 'reference', 'metrics.md'), 'utf8');
    expect(names.filter((n) => !page.includes(`\`${n}`))).toEqual([]);
    expect(page).toContain('`plangate_process_*`');
  });
});
