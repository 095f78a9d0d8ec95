/**
 * The console's banner, in a real headless chromium against a real
 * plangate: while plangate fails open (here: a rule file that does not
 * parse at start) every page says so, an operator with the reason and a
 * reviewer without it; once good rules are loaded it goes away.
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRoutes } from '../../src/adapters/console/serve.js';
import { serve, TOKENS, type Served } from '../http/support.js';
import { browserStatus, buildConsole, launch, MISSING, screenshot, signIn, type Browser } from './browser.js';

const browser = browserStatus();

if (browser === 'missing') {
  it('shows the failing-open banner in a real browser', () => {
    throw new Error(MISSING);
  });
}

describe.runIf(browser === 'yes')('the console banner', () => {
  let s: Served;
  let b: Browser;

  beforeAll(async () => {
    const bundle = await buildConsole();
    s = await serve({
      prepare: (rules) => writeFileSync(join(rules, 'plan-required.yaml'), 'planRequired: [\n'),
      app: { routes: [consoleRoutes({ dir: bundle })] },
    });
    b = await launch();
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await s?.close();
  });

  it('says plangate is failing open on every page, with the reason for an operator, and goes once rules load', async () => {
    expect(s.pg.status().enforcing).toBe(false);
    const page = await b.newPage();
    await signIn(page, s.url, TOKENS.operator, '#/holds');
    const banner = page.getByTestId('health-banner');
    await banner.waitFor();
    expect(await banner.innerText()).toMatch(/failing open: plan-required is NOT enforced\.[\s\S]*plan-required\.yaml:\d+:\d+/);
    expect(await banner.getAttribute('role')).toBe('alert');
    await page.goto(`${s.url}/console#/refusals`);
    await banner.waitFor();
    await screenshot(page, 'banner-failing-open');

    const reviewer = await b.newPage();
    await signIn(reviewer, s.url, TOKENS.reviewer);
    const shown = reviewer.getByTestId('health-banner');
    await shown.waitFor();
    expect(await shown.innerText()).toContain("An operator's token shows why");
    expect(await shown.innerText()).not.toContain('plan-required.yaml');

    copyFileSync(join(import.meta.dirname, '..', '..', 'examples', 'rules', 'plan-required.yaml'), join(s.rules, 'plan-required.yaml'));
    expect((await s.pg.reload()).outcome).toBe('loaded');
    await banner.waitFor({ state: 'detached', timeout: 15_000 });
    expect(b.problems).toEqual([]);
  }, 60_000);
});
