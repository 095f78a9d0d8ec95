/**
 * The console against what an agent controls: plans, run ids, paths in
 * read-guard refusals — and queues larger than the console shows at once.
 * A real headless chromium against a real plangate over loopback.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, TOKENS, type Served } from '../http/support.js';
import { browserStatus, consoleWorld, MISSING, signIn as signInAt, type Browser } from './browser.js';

const op = (json?: unknown) => ({ token: TOKENS.operator, ...(json !== undefined ? { json } : {}) });

let s: Served;
let b: Browser;

const signIn = (page: Page, token: string, hash = ''): Promise<void> => signInAt(page, s.url, token, hash);

/** Whether `word`, inside the element matched by `selector`, is drawn left to right (its first letter left of its last). */
function drawnInOrder(page: Page, selector: string, word: string): Promise<boolean> {
  // A string, evaluated in the page (the tests are not compiled against the DOM's types).
  return page.evaluate(`(() => {
    const sel = ${JSON.stringify(selector)}, w = ${JSON.stringify(word)};
    const root = document.querySelector(sel);
    if (!root) throw new Error('no ' + sel);
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const i = n.textContent.indexOf(w);
      if (i < 0) continue;
      const at = (k) => { const r = document.createRange(); r.setStart(n, k); r.setEnd(n, k + 1); return r.getBoundingClientRect().left; };
      return at(i) < at(i + w.length - 1);
    }
    throw new Error('no "' + w + '" in ' + sel);
  })()`) as Promise<boolean>;
}

const browser = browserStatus();

if (browser === 'missing') {
  it('runs the console in a real browser', () => {
    throw new Error(MISSING);
  });
}

describe.runIf(browser === 'yes')('the console against hostile input', () => {
  beforeAll(async () => {
    ({ s, b } = await consoleWorld([
      ['/v1/org/crews/desk', {}],
      ['/v1/org/crews/trading', { parent: 'desk' }],
      ['/v1/org/agents/0xWORKER', { crew: 'trading' }],
    ], {
      // One hold here carries more plans than the queue shows: above the default hold-plans quota.
      prepare: (rules) => writeFileSync(join(rules, 'quotas.yaml'), 'quotas:\n  holdPlans: { rate: 1000, standing: 1000 }\n'),
    }));
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await s?.close();
  });

  it('a hold with more plans than the queue carries: the plans keep their real numbers, and the page says older ones are left out', async () => {
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER', op({ kind: 'reviewer', task: 'Numbering' }))).status).toBe(201);
    for (let i = 1; i <= 203; i++) {
      const r = await call(s.url, 'POST', '/v1/holds/0xWORKER/plan', { token: TOKENS.worker, json: { body: `plan number ${i}` } });
      expect(r.status).toBe(201);
    }
    const page = await b.newPage();
    try {
      await signIn(page, TOKENS.reviewer);
      const card = page.locator('li.hold[data-agent="0xWORKER"]');
      await card.getByText('plan number 203', { exact: true }).waitFor();
      const labels = await card.locator('.msg .msg-head strong').allInnerTexts();
      expect(labels).toHaveLength(200);
      // The first shown is the agent's 4th plan: calling it "Plan 1" would hide the three before it.
      expect(labels[0]).toBe('Plan 4');
      expect(labels.at(-1)).toBe('Plan 203');
      expect(await card.innerText()).toMatch(/3 older plans and push-backs are not shown/);
    } finally {
      await call(s.url, 'POST', '/v1/holds/0xWORKER/unblock', op());
      await page.close();
    }
  }, 60_000);

  it('a read-guard refusal outside the read roots says so, not that an unmeasured file is over the ceiling', async () => {
    const r = await call(s.url, 'POST', '/mcp/call', { token: TOKENS.worker, json: { name: 'fs.read_file', arguments: { path: '/etc/shadow' } } });
    expect(r.json.check).toBe('read_guard');
    const page = await b.newPage();
    await signIn(page, TOKENS.operator, '#/refusals');
    const row = page.locator('.table-wrap[aria-label="Refused calls"] tbody tr', { hasText: '/etc/shadow' });
    await row.first().waitFor();
    const why = await row.first().locator('td[data-label="why"]').innerText();
    // Nothing measured the file: "0 B over 256 KiB" would be false.
    expect(why).not.toMatch(/0 B over/);
    expect(why).toMatch(/outside the read roots/);
    await page.close();
  }, 30_000);

  it('a path with a bidi override cannot turn the rest of its refusal row around', async () => {
    const r = await call(s.url, 'POST', '/mcp/call', { token: TOKENS.worker, json: { name: 'fs.read_file', arguments: { path: '/tmp/notes\u202Etxt.' } } });
    expect(r.json.check).toBe('read_guard');
    const page = await b.newPage();
    await signIn(page, TOKENS.operator, '#/refusals');
    const rows = page.locator('.table-wrap[aria-label="Refused calls"] tbody tr');
    await rows.first().waitFor();
    const texts = await rows.allInnerTexts();
    const idx = texts.findIndex((t) => t.includes('notes'));
    expect(idx).toBeGreaterThanOrEqual(0);
    // The words after the path ("… KiB", "outside …") read left to right, as everywhere else.
    expect(await drawnInOrder(page, `.table-wrap[aria-label="Refused calls"] tbody tr:nth-child(${idx + 1}) td[data-label="why"]`, 'KiB')).toBe(true);
    // The override itself is shown for what it is, not left to turn the path around.
    expect(texts[idx]).toContain('/tmp/notes⟨U+202E⟩txt.');
    await page.close();
  }, 30_000);

  it("a plan's bidi overrides and invisible characters are shown for what they are, and its run is shown as the agent's tag", async () => {
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER', op({ kind: 'reviewer', task: 'Spoofing' }))).status).toBe(201);
    // Read aloud it says "Drop prod db"; drawn as it is, it would look like something harmless.
    const body = 'Plan: \u202Eetadpu tsuj ,bd dorp porD\u202C done';
    const hidden = `release-42\u00AD${String.fromCodePoint(0xE0049, 0xE0047)}`;
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER/plan', { token: TOKENS.worker, json: { body, runId: hidden } })).status).toBe(201);
    const page = await b.newPage();
    try {
      await signIn(page, TOKENS.reviewer);
      const msg = page.locator('li.hold[data-agent="0xWORKER"] .msg').last();
      await msg.waitFor();
      const text = await msg.innerText();
      expect(text).toContain('Plan: ⟨U+202E⟩etadpu tsuj ,bd dorp porD⟨U+202C⟩ done');
      expect(text).toContain('tagged run release-42⟨U+00AD⟩⟨U+E0049⟩⟨U+E0047⟩');
    } finally {
      await call(s.url, 'POST', '/v1/holds/0xWORKER/unblock', op());
      await page.close();
    }
  }, 30_000);

  it('a queue longer than the console is sent says it leaves holds out; newer on-demand holds do not crowd a reviewer\'s holds out', async () => {
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER', op({ kind: 'reviewer', task: 'the oldest hold' }))).status).toBe(201);
    for (let i = 0; i < 105; i++) {
      expect((await call(s.url, 'POST', `/v1/holds/bulk-${String(i).padStart(3, '0')}`, op({ task: `task ${i}` }))).status).toBe(201);
    }
    const page = await b.newPage();
    try {
      await signIn(page, TOKENS.operator);
      await page.locator('li.hold[data-agent="bulk-104"]').waitFor();
      expect(await page.locator('li.hold').count()).toBe(100);
      // The oldest holds are not in the list: the page must say so, not look complete.
      await page.getByText(/newest 100 holds/).waitFor({ timeout: 5000 });
      expect(await page.locator('li.hold[data-agent="0xWORKER"]').count()).toBe(0);
      // The reviewer's queue is reviewer holds: the one reviewer hold is there, behind 105 newer on-demand holds.
      const rev = await b.newPage();
      await signIn(rev, TOKENS.reviewer);
      await rev.locator('li.hold[data-agent="0xWORKER"]').waitFor({ timeout: 5000 });
      expect(await rev.locator('li.hold').count()).toBe(1);
      expect(await rev.getByText(/newest 100 holds/).count()).toBe(0);
      await rev.close();
    } finally {
      await call(s.url, 'POST', '/v1/holds/0xWORKER/unblock', op());
      for (let i = 0; i < 105; i++) await call(s.url, 'POST', `/v1/holds/bulk-${String(i).padStart(3, '0')}/unblock`, op());
      await page.close();
    }
  }, 60_000);
});
