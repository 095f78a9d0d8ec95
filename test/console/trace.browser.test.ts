/**
 * The Refusals page names the trace a refusal was decided in, when the
 * decision was traced (its audit event carries the trace id).
 */
import { appendFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS, type Served } from '../http/support.js';
import { browserStatus, consoleWorld, MISSING, screenshot, signIn, type Browser } from './browser.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const browser = browserStatus();

if (browser === 'missing') {
  it('runs the console in a real browser', () => {
    throw new Error(MISSING);
  });
}

describe.runIf(browser === 'yes')('a refusal\'s trace in the console', () => {
  let s: Served;
  let b: Browser;
  beforeAll(async () => {
    ({ s, b } = await consoleWorld([['/v1/org/crews/desk', {}], ['/v1/org/agents/0xMGR', { crew: 'desk' }]]));
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await s?.close();
  });

  it('shows the trace id beside the refused call', async () => {
    appendFileSync(s.auditFile, `${JSON.stringify({
      type: 'PlanRequiredBlocked', time: new Date().toISOString(), agent: '0xMGR', crew: 'desk', tool: 'github.merge_pull_request',
      toolClass: 'effect', mode: 'side_effects', code: 'plan_required:github.merge_pull_request:none', runId: null,
      rule: { scope: 'crew', id: 'desk' }, traceId: TRACE,
    })}\n`);
    const page = await b.newPage();
    await signIn(page, s.url, TOKENS.reviewer);
    await page.getByRole('link', { name: 'Refusals' }).click();
    const row = page.locator('.table-wrap[aria-label="Refused calls"] tbody tr').filter({ hasText: 'github.merge_pull_request' });
    await row.first().waitFor();
    expect(await row.first().innerText()).toContain(`trace ${TRACE}`);
    await screenshot(page, 'refusals-trace');
    await page.close();
  });
});
