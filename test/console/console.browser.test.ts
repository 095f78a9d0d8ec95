/**
 * The console end to end, in a real headless chromium against a real
 * plangate over loopback: the seed-004 reviewer flow with a live second
 * plan, an operator's on-demand hold and unblock, refusals filtered by crew
 * after real refused calls, shadow would-be refusals apart, "as seat", a
 * wrong token refused — and a screenshot of each page.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRoutes } from '../../src/adapters/console/serve.js';
import { call, serve, TOKENS, type Served } from '../http/support.js';
import { browserStatus, consoleWorld, MISSING, screenshot, signIn as signInAt, type Browser } from './browser.js';

const REVIEWER = TOKENS.reviewer;
const op = (json?: unknown) => ({ token: TOKENS.operator, ...(json !== undefined ? { json } : {}) });

let s: Served;
let b: Browser;
let bundle: string;

async function until(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const textOf = async (l: Locator): Promise<string> => ((await l.count()) ? (await l.first().innerText()) : '');

const signIn = (page: Page, token: string): Promise<void> => signInAt(page, s.url, token);

const browser = browserStatus();

// Under CI=true a missing browser is a failed test, never a silent skip.
if (browser === 'missing') {
  it('runs the console in a real browser', () => {
    throw new Error(MISSING);
  });
}

describe.runIf(browser === 'yes')('the console in a browser', () => {
  beforeAll(async () => {
    ({ s, b, bundle } = await consoleWorld([
      ['/v1/org/crews/desk', {}],
      ['/v1/org/crews/trading', { parent: 'desk' }],
      ['/v1/org/crews/ops', {}],
      ['/v1/org/agents/0xWORKER', { crew: 'trading' }],
      ['/v1/org/agents/0xMGR', { crew: 'desk' }],
      ['/v1/org/agents/0xBOT', { crew: 'ops' }],
    ]));
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await s?.close();
  });

  it('refuses a wrong token and keeps nothing; an agent token is turned away too', async () => {
    const page = await b.newPage();
    await page.goto(`${s.url}/console`);
    await screenshot(page, 'signin');
    await signIn(page, 'not-a-real-token-0123456789');
    await page.getByRole('alert').filter({ hasText: 'That token is not accepted' }).waitFor();
    await screenshot(page, 'signin-wrong-token');
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    await page.getByLabel('Token').fill(TOKENS.worker);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'an agent token cannot use it' }).waitFor();
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    await page.close();
  });

  it('seed 004 from the reviewer\'s seat: a new hold appears, the plan is read, pushed back, the second plan arrives live, release', async () => {
    const page = await b.newPage();
    await signIn(page, REVIEWER);
    await page.getByText('No agent is on hold.').waitFor();
    await page.getByTestId('stream-state').filter({ hasText: 'Live' }).waitFor();
    // The token lives in this tab's session only: not in the URL, not in a cookie, not in localStorage.
    expect(page.url()).not.toContain(REVIEWER);
    expect(await page.evaluate('[document.cookie, localStorage.length]')).toEqual(['', 0]);
    expect(await page.evaluate('Object.values(sessionStorage)')).toEqual([REVIEWER]);

    // The reviewer holds 0xWORKER (its crew's profile turns the planning gate on); the card appears without a reload.
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER', op({ kind: 'reviewer', task: 'Refactor the auth middleware' }))).status).toBe(201);
    const card = page.locator('li.hold[data-agent="0xWORKER"]');
    await card.waitFor();
    expect(await card.innerText()).toContain('Refactor the auth middleware');
    expect(await card.innerText()).toContain("Waiting for the agent's plan.");

    // The agent sends its plan through the reviewer channel, with its own token.
    const refused = await call(s.url, 'POST', '/mcp/call', { token: TOKENS.worker, json: { name: 'github.merge_pull_request', arguments: { pr: 12 } } });
    expect(refused.json.check).toBe('planning_hold');
    expect((await call(s.url, 'POST', '/mcp/call', { token: TOKENS.worker, json: { name: 'plangate_submit_plan', arguments: { plan: 'Add an API-key branch to the auth middleware.' } } })).status).toBe(200);
    await card.getByText('Add an API-key branch to the auth middleware.').waitFor();

    await card.getByLabel('Push back').fill('Which callers change, and how do you test them?');
    await card.getByRole('button', { name: 'Push back' }).click();
    await card.locator('.msg-pushback').waitFor();
    const agentView = await call(s.url, 'GET', '/v1/holds/0xWORKER', { token: TOKENS.worker });
    expect(agentView.json.hold).toMatchObject({ pushBacks: 1, state: 'active' });

    // The second plan arrives live.
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER/plan', { token: TOKENS.worker, json: { body: 'Two callers change: login and token refresh; both get a test.' } })).status).toBe(201);
    await card.getByText('Two callers change: login and token refresh; both get a test.').waitFor();
    expect(await card.locator('.msg .msg-head strong').allInnerTexts()).toEqual(['Plan 1', 'Push-back by rev-ann', 'Plan 2']);
    // A reviewer releases or pushes back; clearing a hold is an operator's, and the rules page is not the reviewer's.
    expect(await card.getByRole('button', { name: 'Unblock' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Rules' }).count()).toBe(0);
    await screenshot(page, 'holds');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'holds-phone');
    await page.setViewportSize({ width: 1280, height: 900 });

    await card.getByRole('button', { name: 'Release' }).click();
    await page.getByText('No agent is on hold.').waitFor();
    expect((await call(s.url, 'GET', '/v1/holds?all=true&agent=0xWORKER', op())).json.holds[0]).toMatchObject({ state: 'released', releasedBy: 'rev-ann' });

    // Where the planning gate is off (0xMGR's crew desk), the reviewer's hold is refused, and the console says why.
    await page.getByText('Place a hold').click();
    expect(await page.getByLabel('Kind').count()).toBe(0);
    await page.getByLabel('Agent').fill('0xMGR');
    await page.getByRole('button', { name: 'Hold now' }).click();
    await page.locator('details.place').getByRole('alert').filter({ hasText: /planning gate/i }).waitFor();
    expect((await call(s.url, 'GET', '/v1/review/queue', op())).json.holds).toEqual([]);
    const after = await call(s.url, 'POST', '/v1/decide', { token: TOKENS.worker, json: { tool: 'github.merge_pull_request' } });
    expect(after.json.check).not.toBe('planning_hold');
    await page.close();
  });

  it('an operator places an on-demand hold and unblocks it, from the keyboard', async () => {
    const page = await b.newPage();
    await signIn(page, TOKENS.operator);
    await page.getByTestId('stream-state').filter({ hasText: 'Live' }).waitFor();
    await page.getByText('Place a hold').click();
    await page.getByLabel('Agent').fill('0xMGR');
    await page.getByLabel('Task (optional)').fill('Rotate the deploy keys');
    await page.getByLabel('Task (optional)').press('Enter');
    await page.getByText('0xMGR is on hold.').waitFor();
    const card = page.locator('li.hold[data-agent="0xMGR"]');
    await card.waitFor();
    expect(await card.innerText()).toContain('on demand');
    const held = await call(s.url, 'POST', '/v1/decide', { token: TOKENS.mgr, json: { tool: 'github.merge_pull_request' } });
    expect(held.json).toMatchObject({ allowed: false, check: 'planning_hold' });

    await card.getByRole('button', { name: 'Unblock' }).focus();
    await page.keyboard.press('Enter');
    await card.waitFor({ state: 'detached' });
    const hold = await call(s.url, 'GET', '/v1/holds?all=true&agent=0xMGR', op());
    expect(hold.json.holds[0]).toMatchObject({ state: 'cleared', clearedBy: 'ops' });
    expect(await page.getByRole('link', { name: 'Rules' }).count()).toBe(1);
    await page.close();
  });

  it('says when the queue cannot be read, instead of showing it as live, and is live again when it can', async () => {
    const page = await b.newPage();
    await signIn(page, TOKENS.operator);
    const state = page.getByTestId('stream-state');
    await state.filter({ hasText: 'Live' }).waitFor();
    const list = s.pg.gate.holds.list;
    s.pg.gate.holds.list = async () => { throw new Error('SQLITE_IOERR: disk I/O error'); };
    try {
      await state.filter({ hasText: 'The queue cannot be read right now' }).waitFor({ timeout: 10_000 });
    } finally {
      s.pg.gate.holds.list = list;
    }
    await state.filter({ hasText: 'Live' }).waitFor({ timeout: 10_000 });
    await page.close();
  });

  it('the refusals table filtered by crew shows the refused calls of that crew; shadow would-be refusals appear apart, per rule', async () => {
    expect((await call(s.url, 'PUT', '/v1/rules/plan-required/agents/0xBOT', op({ mode: 'side_effects', enforce: false }))).status).toBe(200);
    // 0xWORKER (crew trading) is held again, so its call is refused by the hold: a refusal outside desk, by another check.
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER', op({ task: 'Audit the payment flow' }))).status).toBe(201);
    for (const [token, tool, status] of [
      [TOKENS.mgr, 'github.merge_pull_request', 409],
      [TOKENS.mgr, 'wallet.propose_spend', 409],
      [TOKENS.worker, 'wallet.propose_spend', 409],
      [TOKENS.bot, 'github.merge_pull_request', 200],
      [TOKENS.bot, 'github.create_release', 200],
    ] as const) {
      const r = await call(s.url, 'POST', '/mcp/call', { token, json: { name: tool } });
      expect(r.status, `${tool}: ${r.text}`).toBe(status);
    }
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER/unblock', op())).status).toBe(200);
    const page = await b.newPage();
    await signIn(page, REVIEWER);
    await page.getByRole('link', { name: 'Refusals' }).click();
    const refused = page.locator('.table-wrap[aria-label="Refused calls"]');
    await refused.waitFor();
    await page.getByLabel('crew').fill('desk');
    await page.getByRole('button', { name: 'Apply' }).click();
    // desk: 0xMGR's two plan-required refusals, and the call its on-demand hold refused earlier; not 0xWORKER's (crew trading).
    await until('the desk rows', async () => (await refused.locator('tbody tr').count()) === 3 && (await textOf(refused)).includes('wallet.propose_spend'));
    const rows = await refused.locator('tbody tr').allInnerTexts();
    expect(rows.every((r) => r.includes('0xMGR') && r.includes('desk'))).toBe(true);
    expect(rows.join('\n')).toContain('plan_required:github.merge_pull_request:none');
    expect(rows.join('\n')).toContain('plan_required:wallet.propose_spend:none');
    expect(rows.join('\n')).toContain('planning_hold:github.merge_pull_request');
    expect(rows.join('\n')).not.toContain('0xWORKER');
    expect(await page.locator('.chart rect.bar-plan_required').count()).toBeGreaterThan(0);

    await page.getByLabel('crew').fill('');
    await page.getByRole('button', { name: 'Apply' }).click();
    const shadow = page.locator('.shadow-rule');
    await shadow.first().waitFor();
    await until('the shadow group', async () => (await textOf(shadow)).includes('2 would-be refusals'));
    expect(await shadow.count()).toBe(1);
    expect(await textOf(shadow)).toContain('agent 0xBOT: side_effects');
    expect(await textOf(shadow)).toContain('github.create_release');
    // Apart: the shadow calls are not in the table of refused calls.
    await until('all real refusals', async () => (await refused.locator('tbody tr').count()) >= 4);
    expect(await textOf(refused)).not.toContain('0xBOT');
    expect(await textOf(refused)).toContain('planning_hold:wallet.propose_spend');
    expect(await page.locator('.chart rect.bar-planning_hold').count()).toBeGreaterThan(0);
    // The audit trail carries no message body: none of the plans sent earlier shows here.
    expect(await page.locator('main').innerText()).not.toContain('Add an API-key branch');
    await screenshot(page, 'refusals');
    // On a phone (the session survives a reload of the tab).
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await refused.locator('tbody tr').first().waitFor();
    await screenshot(page, 'refusals-phone');
    await page.close();
  });

  it('rules in force: health, sources, profiles, and "as seat" with where each value comes from', async () => {
    const page = await b.newPage();
    await signIn(page, TOKENS.operator);
    await page.getByRole('link', { name: 'Rules' }).click();
    await page.getByTestId('health-status').filter({ hasText: 'ok' }).waitFor();
    const revision = s.pg.status().rules.revision as string;
    await page.getByText(revision).first().waitFor();
    const rules = page.locator('.table-wrap[aria-label="Plan-required rules"]');
    await rules.waitFor();
    expect(await rules.innerText()).toMatch(/crew desk\s+side_effects\s+15 min[\s\S]*plan-required\.yaml:\d+:\d+/);
    expect(await page.locator('.table-wrap[aria-label="Planning-gate profiles"]').innerText()).toContain('careful');

    await page.getByLabel('Agent id').fill('0xWORKER');
    await page.getByRole('button', { name: 'Show' }).click();
    const seat = page.getByTestId('seat');
    await seat.waitFor();
    const text = await seat.innerText();
    expect(text).toContain('trading ← desk');
    expect(text).toMatch(/mode\s+side_effects\s+agent rule 0xWORKER · seats\.yaml:\d+:\d+/);
    expect(text).toMatch(/acceptUpstream\s+true\s+crew rule trading · plan-required\.yaml:\d+:\d+/);
    expect(text).toMatch(/planning profile\s+careful\s+crew trading picks it · planning\.yaml:\d+:\d+/);
    expect(text).toMatch(/readGuardMaxBytes\s+262144\s+profile careful · planning\.yaml:\d+:\d+/);
    expect(text).toMatch(/whitelist\s+fs\.read_file, github\.get_\*, \*\.search\s+planning-gate defaults · planning\.yaml:\d+:\d+/);
    expect(text).toMatch(/quota messages\s+600 per 60 min, 50000 kept\s+built-in default/);
    await screenshot(page, 'rules');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'rules-phone');
    await page.close();
  });

  it('health: a bad edit shows the last reload error with its place while the last good rules stay; a plangate that fails open says so', async () => {
    const page = await b.newPage();
    await signIn(page, TOKENS.operator);
    writeFileSync(join(s.rules, 'broken.yaml'), 'planRequired:\n  crews:\n    desk: { mode: sometimes }\n');
    expect((await s.pg.reload()).outcome).not.toBe('loaded');
    await page.getByRole('link', { name: 'Rules' }).click();
    await page.getByTestId('health-status').filter({ hasText: 'degraded' }).waitFor();
    const health = page.locator('section[aria-labelledby="health"]');
    expect(await health.innerText()).toMatch(/last reload error[\s\S]*broken\.yaml:3:\d+/);
    expect(await health.innerText()).toContain('the last good rules stay in force');
    expect(await health.innerText()).toMatch(/plan-required\s+enforcing/);
    await screenshot(page, 'rules-reload-error');
    rmSync(join(s.rules, 'broken.yaml'));
    expect(['loaded', 'unchanged']).toContain((await s.pg.reload()).outcome);
    expect(s.pg.status().state).toBe('ok');

    const open = await serve({ prepare: (dir) => writeFileSync(join(dir, 'plan-required.yaml'), 'planRequired: [\n'), app: { routes: [consoleRoutes({ dir: bundle })] } });
    try {
      await page.goto(`${open.url}/console#/rules`);
      await page.getByLabel('Token').fill(TOKENS.operator);
      await page.getByLabel('Token').press('Enter');
      await page.getByText('NOT enforced: failing open').waitFor();
      expect(await page.locator('section[aria-labelledby="health"]').innerText()).toMatch(/failing open because\s+\S/);
      await page.getByRole('alert').filter({ hasText: 'no rules are in force' }).waitFor();
      await screenshot(page, 'rules-failing-open');
    } finally {
      await open.close();
    }
    await page.close();
  });

  it('made no request outside plangate, leaked no token into a URL, and broke no Content-Security-Policy rule', () => {
    const foreign = b.requests.filter((u) => !/^http:\/\/127\.0\.0\.1:\d+\//.test(u) && !u.startsWith('data:') && u !== 'about:blank');
    expect(foreign).toEqual([]);
    expect(b.requests.filter((u) => Object.values(TOKENS).some((t) => u.includes(t)))).toEqual([]);
    expect(b.problems).toEqual([]);
    expect(b.requests.length).toBeGreaterThan(10);
  });
});
