/**
 * The public API: the root export (src/index.ts) is what a user composes —
 * exactly the values listed here, so any new export is a decision, not a
 * leak — and `import 'plangate'` loads no database driver, no schema
 * compiler and no adapter's protocol library. The stores with drivers and
 * the adapters are subpath exports (package.json `exports`), each loading
 * only its own dependencies, checked in a fresh Node process per entry.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as api from '../../src/index.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

/** Every value the root exports (types are erased and not listed). */
const ROOT_VALUES = [
  'CallRefusedError', 'DEFAULT_PATHS', 'Engine', 'ErrorCode', 'FAIL_CLOSED_HOLD_RULE', 'FAIL_CLOSED_REVIEWER_CHANNEL', 'FAIL_OPEN_CLASS',
  'HOLD_ON_POLICY_FAILURE', 'HOLD_ON_STORE_FAILURE', 'PATH_ENV', 'PLAN_REQUIRED_ON_POLICY_FAILURE', 'PLAN_REQUIRED_ON_STORE_FAILURE',
  'PlanRequiredError', 'PlangateError', 'READ_BASE_ENV', 'READ_GUARD_ON_POLICY_FAILURE', 'READ_GUARD_ON_STORE_FAILURE', 'RULES_OPTIONAL_ENV',
  'RulesError', 'UNREAD_HOLDS_ON_STORE_FAILURE', 'WORKSPACE_ENV', 'createGate', 'createJsonlAuditSink', 'createMemoryAuditSink',
  'createMemoryStore', 'formatProblem', 'loadRules', 'openPlangate', 'openStore', 'resolvePaths',
];

/** The package's entry points, by the source file each is built from, and the dependencies each may and may not load. */
const ENTRIES: Record<string, { source: string; loads: string[]; never: string[] }> = {
  'plangate': { source: 'src/index.ts', loads: [], never: ['pg', 'better-sqlite3', 'ajv', '@modelcontextprotocol/sdk', 'prom-client', 'chokidar', 'tar', 'express'] },
  'plangate/sqlite': { source: 'src/sqlite.ts', loads: ['better-sqlite3'], never: ['pg', 'ajv', '@modelcontextprotocol/sdk', 'prom-client'] },
  'plangate/postgres': { source: 'src/postgres.ts', loads: ['pg'], never: ['better-sqlite3', 'ajv', '@modelcontextprotocol/sdk', 'prom-client'] },
  'plangate/http': { source: 'src/adapters/http/index.ts', loads: ['prom-client'], never: ['pg', 'better-sqlite3', '@modelcontextprotocol/sdk'] },
  'plangate/mcp': { source: 'src/adapters/mcp/index.ts', loads: ['@modelcontextprotocol/sdk'], never: ['pg', 'better-sqlite3'] },
};

/**
 * The packages under node_modules a fresh process has loaded after importing
 * `file` (ajv's runtime helpers apart from ajv itself): every CommonJS module (pg, better-sqlite3, ajv, prom-client… are
 * CommonJS) is in the module cache, and ES modules are recorded by a
 * resolve hook registered before the import.
 */
function packagesLoadedBy(file: string): string[] {
  const script = `
    import { register, createRequire } from 'node:module';
    const seen = new Set();
    const { port1, port2 } = new MessageChannel();
    port1.on('message', (url) => seen.add(url));
    port1.unref();
    register('data:text/javascript,' + encodeURIComponent(\`
      let port;
      export function initialize(data) { port = data.port; }
      export async function resolve(specifier, context, next) { const r = await next(specifier, context); port.postMessage(r.url); return r; }
    \`), { data: { port: port2 }, transferList: [port2] });
    await import(${JSON.stringify(pathToFileURL(join(ROOT, file)).href)});
    await new Promise((r) => setTimeout(r, 50));
    const files = [...Object.keys(createRequire(import.meta.url).cache), ...seen];
    const names = new Set();
    for (const f of files) {
      const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\/(.*)/.exec(decodeURIComponent(f));
      // The generated validators use one helper of ajv's runtime (ucs2length), never its compiler.
      if (m) names.add(m[1] === 'ajv' && m[2].startsWith('dist/runtime/') ? 'ajv/dist/runtime' : m[1]);
    }
    console.log(JSON.stringify([...names].sort()));
  `;
  const r = spawnSync(process.execPath, ['--import', TSX, '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').at(-1) as string) as string[];
}

describe('the public API', () => {
  it('exports exactly the values a user composes (a new one must be added here on purpose)', () => {
    expect(Object.keys(api).sort()).toEqual([...ROOT_VALUES].sort());
    expect(api.PLAN_REQUIRED_ON_STORE_FAILURE).toBe('fail_open');
    expect(api.HOLD_ON_STORE_FAILURE).toBe('fail_closed');
    expect(api.UNREAD_HOLDS_ON_STORE_FAILURE).toBe('fail_closed');
    expect(api.ErrorCode.StoreUnavailable).toBe('store_unavailable');
    expect(api.PATH_ENV.rules).toBe('PLANGATE_RULES');
  });

  it('package.json maps each entry point to the file built from its source', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { import: string; types: string }> };
    const built = Object.fromEntries(Object.entries(ENTRIES).map(([name, e]) => [name === 'plangate' ? '.' : `./${name.slice('plangate/'.length)}`, {
      types: `./${e.source.replace(/^src\//, 'dist/').replace(/\.ts$/, '.d.ts')}`,
      import: `./${e.source.replace(/^src\//, 'dist/').replace(/\.ts$/, '.js')}`,
    }]));
    expect(pkg.exports).toEqual(built);
  });

  for (const [name, entry] of Object.entries(ENTRIES)) {
    it(`import '${name}' loads ${entry.loads.length ? entry.loads.join(', ') : 'no driver'} and none of ${entry.never.join(', ')}`, () => {
      const loaded = packagesLoadedBy(entry.source);
      for (const dep of entry.loads) expect(loaded, dep).toContain(dep);
      expect(loaded.filter((dep) => entry.never.includes(dep))).toEqual([]);
    }, 60_000);
  }
});
