/**
 * Serves the console's built files at `/console` (a route module for the
 * HTTP app). The files are read once, at start, from the bundle that
 * `npm run build` writes to `dist/console/`; nothing is fetched from
 * elsewhere, and every answer carries a strict Content-Security-Policy: the
 * page may load only its own scripts, styles and images and talk only to
 * this origin.
 *
 * The console holds no authority of its own: it is a page that calls the
 * same HTTP API as every other client, with the token the person signed in
 * with, so the same roles apply.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpDeps } from '../http/deps.js';
import type { Reply, RouteModule, Router } from '../http/router.js';

/** Where `npm run build` writes the bundle (the same from `src/` and from `dist/`). */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL('../../../dist/console/', import.meta.url));

/**
 * The page may run only its own script and style, load images only from
 * itself (or data: URLs), send requests only to this origin, not be framed,
 * and not post forms anywhere.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers on every console answer. */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

interface Asset {
  bytes: Buffer;
  type: string;
  /** Hashed file names never change: they may be cached for good. */
  immutable: boolean;
}

function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!existsSync(join(dir, 'index.html'))) return assets;
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else {
        const type = TYPES[extname(name)];
        if (!type) continue; // source maps and anything unknown are not served
        const rel = relative(dir, p).split(sep).join('/');
        assets.set(rel, { bytes: readFileSync(p), type, immutable: rel.startsWith('assets/') });
      }
    }
  };
  walk(dir);
  return assets;
}

export interface ConsoleOptions {
  /** The built bundle; default {@link DEFAULT_CONSOLE_DIR}. */
  dir?: string;
}

/**
 * The route module serving the console.
 *
 * @example
 * const app = createHttpApp({ ...httpOptionsFrom(pg), tokens, routes: [consoleRoutes()] });
 * // GET /console → the page; its scripts under /console/assets/
 */
export function consoleRoutes(options: ConsoleOptions = {}): RouteModule<HttpDeps> {
  const dir = options.dir ?? DEFAULT_CONSOLE_DIR;
  const assets = loadAssets(dir);

  const page = (rel: string): Reply => {
    const asset = assets.get(rel);
    if (!asset) {
      const missing = assets.size === 0;
      return {
        status: missing ? 503 : 404,
        raw: { bytes: missing ? 'The console is not built: run `npm run build`.\n' : 'Not found.\n', contentType: 'text/plain; charset=utf-8' },
        headers: { ...CONSOLE_HEADERS },
      };
    }
    return {
      raw: { bytes: asset.bytes, contentType: asset.type },
      headers: { ...CONSOLE_HEADERS, ...(asset.immutable ? { 'cache-control': 'public, max-age=31536000, immutable' } : {}) },
    };
  };

  return (router: Router) => {
    for (const path of ['/console', '/console/']) {
      router.add({ method: 'GET', path, roles: 'open', body: 'none', handle: () => page('index.html') });
    }
    router.add({
      method: 'GET',
      path: '/console/*',
      roles: 'open',
      body: 'none',
      handle: (ctx) => {
        const rest = ctx.params['*'] ?? '';
        // Only names the bundle holds are served: no `..`, no directory listing, nothing outside it.
        return page(rest === '' ? 'index.html' : rest);
      },
    });
  };
}
