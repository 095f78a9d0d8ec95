/**
 * The console's Approvals page end to end, in a real headless chromium
 * against a real plangate over loopback: an approver signs in, a call that
 * needs approval appears live (its arguments, which the agent wrote, shown
 * as text, never as markup), is approved and goes through once; another is
 * denied with a reason and stays refused; the plan that counted is named
 * and its text shown, as text (the agent wrote it: its markup is never run).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenSet } from '../../src/adapters/http/auth.js';
import { DEFAULT_RETENTION } from '../../src/facts/retention.js';
import { pruneOnce } from '../../src/main/retention.js';
import { call, TOKEN_ENTRIES, TOKENS, type Served } from '../http/support.js';
import { browserStatus, consoleWorld, MISSING, screenshot, signIn as signInAt, type Browser } from './browser.js';

const APPROVER = 'approver-token-0123456789abcdef';
const MERGE = 'github.merge_pull_request';

let s: Served;
let b: Browser;

const signIn = (page: Page, token: string, hash = ''): Promise<void> => signInAt(page, s.url, token, hash);
const merge = (args: unknown, token: string = TOKENS.bot) => call(s.url, 'POST', '/mcp/call', { token, json: { name: MERGE, arguments: args } });

const browser = browserStatus();

if (browser === 'missing') {
  it('runs the console in a real browser', () => {
    throw new Error(MISSING);
  });
}

describe.runIf(browser === 'yes')('the Approvals page in a browser', () => {
  beforeAll(async () => {
    ({ s, b } = await consoleWorld([
      ['/v1/org/crews/desk', {}],
      ['/v1/org/crews/ops', {}],
      ['/v1/org/agents/0xWORKER', { crew: 'desk' }],
      ['/v1/org/agents/0xBOT', { crew: 'ops' }],
    ], {
      prepare: (dir) => writeFileSync(join(dir, 'approvals.yaml'), `approvals: { workspace: { tools: [${MERGE}], approvers: { roles: [approver] } } }\n`),
      app: { tokens: createTokenSet([...TOKEN_ENTRIES, { role: 'approver', name: 'ops-alice', token: APPROVER }]) },
    }));
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await s?.close();
  });

  it('a request appears live with its exact call; approved, the call goes through once', async () => {
    const page = await b.newPage();
    await signIn(page, APPROVER);
    // An approver's token opens on the Approvals page, and it is the only page it has.
    await page.getByRole('heading', { name: 'Approvals' }).waitFor();
    expect(await page.locator('.top nav a').allInnerTexts()).toEqual(['Approvals']);
    await page.getByTestId('stream-state').filter({ hasText: 'Live' }).waitFor();
    await page.getByText('No call is waiting for approval.').waitFor();

    // The agent's arguments carry markup; they must reach the approver as text.
    const hostile = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
    const args = { repo: 'acme/site', pr: 12, title: hostile, nested: { note: 'a\u202Egnp.exe' } };
    const refused = await merge(args);
    expect(refused.status).toBe(409);
    const id = refused.json.approval.request as string;

    // It appears without a reload.
    const card = page.locator(`li.approval[data-approval="${id}"]`);
    await card.waitFor();
    const text = await card.innerText();
    for (const part of [MERGE, '0xBOT', 'sha256:', 'usable once, for 15 minutes', 'the approver role']) {
      expect(text).toContain(part);
    }
    expect(text).toMatch(/Run\s+none/);
    const shown = await card.getByTestId('args').innerText();
    expect(shown).toBe(JSON.stringify({ ...args, nested: { note: 'a⟨U+202E⟩gnp.exe' } }, null, 2));
    expect(shown).toContain(JSON.stringify(hostile));
    expect(await card.locator('img, script').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    await screenshot(page, 'approvals');

    await card.getByRole('button', { name: 'Approve' }).click();
    await card.waitFor({ state: 'detached' });
    await page.getByText('No call is waiting for approval.').waitFor();
    const answered = page.locator(`.answered li[data-approval="${id}"]`);
    await answered.waitFor();
    expect(await answered.innerText()).toContain('approved by ops-alice');

    expect(s.upstream.received).toHaveLength(0);
    expect((await merge(args)).status).toBe(200);
    expect((await merge(args)).json.code).toBe(`approval_required:${MERGE}:used`);
    expect(s.upstream.received).toHaveLength(1);
    expect(b.problems).toEqual([]);
    await page.close();
  });

  it('denied with a reason, the call stays refused; a deny without a reason is not sent', async () => {
    const page = await b.newPage();
    await signIn(page, TOKENS.operator, '#/approvals');
    await page.getByTestId('stream-state').filter({ hasText: 'Live' }).waitFor();
    const before = s.upstream.received.length;
    const id = (await merge({ repo: 'acme/site', pr: 77 })).json.approval.request as string;
    const card = page.locator(`li.approval[data-approval="${id}"]`);
    await card.waitFor();

    await card.getByRole('button', { name: 'Deny' }).click();
    await card.getByRole('alert').filter({ hasText: 'Say why the call is denied first' }).waitFor();
    expect((await call(s.url, 'GET', `/v1/approvals/${id}`, { token: TOKENS.operator })).json.approval.status).toBe('pending');

    await card.getByLabel('Reason to deny').fill('not before the release freeze ends');
    await card.getByRole('button', { name: 'Deny' }).click();
    await card.waitFor({ state: 'detached' });
    const answered = page.locator(`.answered li[data-approval="${id}"]`);
    await answered.waitFor();
    expect(await answered.innerText()).toContain('denied by ops');
    expect(await answered.innerText()).toContain('not before the release freeze ends');
    expect((await call(s.url, 'GET', `/v1/approvals/${id}`, { token: TOKENS.operator })).json.approval)
      .toMatchObject({ status: 'denied', decidedBy: 'ops', reason: 'not before the release freeze ends' });
    const again = await merge({ repo: 'acme/site', pr: 77 });
    expect(again.json.code).toBe(`approval_required:${MERGE}:denied`);
    expect(s.upstream.received).toHaveLength(before);
    await page.close();
  });

  it('shows the plan that counted, as text; a reviewer not named by the rule is told it may not answer', async () => {
    const body = 'Merge PR 5 after CI is green.\n<img src=x onerror="window.__planPwned=1"><script>window.__planPwned=2</script>\nthen tell a\u202Egnp.exe';
    const plan = await call(s.url, 'POST', '/v1/say', { token: TOKENS.worker, json: { thread: 'agent:0xWORKER', kind: 'plan', body } });
    expect(plan.status, plan.text).toBeLessThan(300);
    const refused = await call(s.url, 'POST', '/mcp/call', { token: TOKENS.worker, json: { name: MERGE, arguments: { pr: 5 } } });
    expect(refused.json.code).toBe(`approval_required:${MERGE}:pending`);
    const id = refused.json.approval.request as string;
    const planId = (await call(s.url, 'GET', `/v1/approvals/${id}`, { token: TOKENS.operator })).json.approval.planId as string;
    expect(planId).toEqual(expect.any(String));

    const page = await b.newPage();
    await signIn(page, TOKENS.reviewer, '#/approvals');
    const card = page.locator(`li.approval[data-approval="${id}"]`);
    await card.waitFor();
    expect(await card.innerText()).toContain(`plan ${planId}`);
    expect(await card.innerText()).toContain('0xWORKER');
    // The plan's text, as the agent wrote it, shown as text: its markup is not run, its invisible character spelled out.
    const shown = card.getByTestId('plan');
    await shown.waitFor();
    expect(await shown.innerText()).toBe(body.replace('\u202E', '⟨U+202E⟩'));
    expect(await card.locator('img, script').count()).toBe(0);
    expect(await page.evaluate('window.__planPwned')).toBeUndefined();
    expect(await card.innerText()).toContain('The plan that counted, by 0xWORKER in agent:0xWORKER');
    await card.getByRole('button', { name: 'Approve' }).click();
    await card.getByRole('alert').filter({ hasText: 'may not answer approval' }).waitFor();
    expect((await call(s.url, 'GET', `/v1/approvals/${id}`, { token: TOKENS.operator })).json.approval.status).toBe('pending');
    await page.close();
  });

  it('a plan pruned by retention shows as pruned, the request still answerable', async () => {
    await call(s.url, 'POST', '/v1/say', { token: TOKENS.worker, json: { thread: 'agent:0xWORKER', kind: 'plan', body: 'Merge PR 6 after CI.' } });
    const id = (await call(s.url, 'POST', '/mcp/call', { token: TOKENS.worker, json: { name: MERGE, arguments: { pr: 6 } } })).json.approval.request as string;
    const planId = (await call(s.url, 'GET', `/v1/approvals/${id}`, { token: TOKENS.operator })).json.approval.planId as string;
    // Forty days on by the prune's clock, the messages are past their retention; the pending request stays.
    expect((await pruneOnce(s.pg, DEFAULT_RETENTION, { now: Date.now() + 40 * 24 * 60 * 60 * 1000 })).messages).toBeGreaterThanOrEqual(1);

    const page = await b.newPage();
    await signIn(page, APPROVER);
    const card = page.locator(`li.approval[data-approval="${id}"]`);
    await card.waitFor();
    const pruned = card.getByTestId('plan-pruned');
    await pruned.waitFor();
    expect(await pruned.innerText()).toBe(`Plan ${planId} was pruned by retention: its text is no longer kept.`);
    await card.getByRole('button', { name: 'Approve' }).click();
    await card.waitFor({ state: 'detached' });
    expect(b.problems).toEqual([]);
    await page.close();
  });
});
