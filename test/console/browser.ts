/**
 * A real headless browser for the console's end-to-end tests: Debian's
 * chromium driven by playwright-core (never a downloaded browser), a fresh
 * profile per run, and the console bundle built from source by vite for the
 * run. Without /usr/bin/chromium the tests fail under CI=true and are
 * skipped with one loud line elsewhere.
 */
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { build } from 'vite';
import { consoleRoutes } from '../../src/adapters/console/serve.js';
import type { HttpAppOptions } from '../../src/adapters/http/app.js';
import { call, serve, TOKENS, type Served } from '../http/support.js';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run',
];
export const SCREENSHOTS = join(import.meta.dirname, '..', '..', '.data', 'screenshots');
const CONFIG = join(import.meta.dirname, '..', '..', 'src', 'adapters', 'console', 'web', 'vite.config.ts');

export const MISSING = `${CHROMIUM} is missing: the console's browser tests cannot run — install it with: apt-get install -y chromium`;

/**
 * Whether the browser tests can run here: `yes`; `skip` (no chromium, not
 * CI: one loud line says so); `missing` (no chromium under CI=true: a failure).
 */
export function browserStatus(): 'yes' | 'skip' | 'missing' {
  if (existsSync(CHROMIUM)) return 'yes';
  if (process.env['CI'] === 'true') return 'missing';
  process.stderr.write(`\n!!! SKIPPED: the console's browser tests (test/console/*.browser.test.ts): ${MISSING}\n\n`);
  return 'skip';
}

/** Builds the console from its source into a fresh directory. */
export async function buildConsole(): Promise<string> {
  const outDir = mkdtempSync(join(tmpdir(), 'plangate-console-build-'));
  await build({ configFile: CONFIG, logLevel: 'error', build: { outDir, emptyOutDir: true } });
  return outDir;
}

export interface Browser {
  context: BrowserContext;
  /** Every URL the browser asked for. */
  requests: string[];
  /** Script errors and Content-Security-Policy violations seen on any page. */
  problems: string[];
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  close(): Promise<void>;
}

export async function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(MISSING);
  const profile = mkdtempSync(join(tmpdir(), 'plangate-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 900 },
  });
  const requests: string[] = [];
  const problems: string[] = [];
  context.on('request', (r) => requests.push(r.url()));
  const watch = (page: Page): void => {
    page.on('console', (m) => { if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text()); });
    page.on('pageerror', (e) => problems.push(e.message));
  };
  context.on('page', watch);
  for (const p of context.pages()) watch(p);
  return {
    context,
    requests,
    problems,
    async newPage(viewport) {
      const page = await context.newPage();
      if (viewport) await page.setViewportSize(viewport);
      return page;
    },
    close: () => context.close(),
  };
}

/** Writes a full-page screenshot under .data/screenshots/. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * A plangate serving the console built from source, with `org` put through
 * its API as an operator (each a path under /v1/org and its body), and a
 * browser to open it with; `options` adds rule files and app options (tokens).
 *
 * @example
 * const { s, b } = await consoleWorld([['/v1/org/crews/desk', {}]]);
 */
export async function consoleWorld(
  org: ReadonlyArray<readonly [path: string, body: object]>,
  options: { prepare?: (rulesDir: string) => void; app?: Omit<Partial<HttpAppOptions>, 'routes'> } = {},
): Promise<{ s: Served; b: Browser; bundle: string }> {
  const bundle = await buildConsole();
  const s = await serve({ ...(options.prepare ? { prepare: options.prepare } : {}), app: { ...options.app, routes: [consoleRoutes({ dir: bundle })] } });
  for (const [path, body] of org) {
    const r = await call(s.url, 'PUT', path, { token: TOKENS.operator, json: body });
    if (r.status !== 200) throw new Error(`setting up ${path} answered ${r.status}`);
  }
  return { s, b: await launch(), bundle };
}

/** Opens the console at `url` (a `#/…` route after it if given) and signs in with `token`. */
export async function signIn(page: Page, url: string, token: string, hash = ''): Promise<void> {
  await page.goto(`${url}/console${hash}`);
  await page.getByLabel('Token').fill(token);
  await page.getByLabel('Token').press('Enter');
}
