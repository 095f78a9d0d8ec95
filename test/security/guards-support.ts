/**
 * A plangate served over loopback for the guard suite: the example rules
 * (plus a multi-file read tool) in a temp dir, a read root holding a small
 * and a large file and a symlink leading out of it, a file outside the root,
 * real tokens, an executor that records what it gets — and the failures a
 * case may ask for: holds on record before boot, unreadable rules or a
 * corrupt policy at boot, a store that throws while deciding.
 */
import { cpSync, mkdirSync, mkdtempSync, existsSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHttpApp, type HttpApp } from '../../src/adapters/http/app.js';
import { createTokenSet } from '../../src/adapters/http/auth.js';
import { createExecutors } from '../../src/adapters/http/executors.js';
import { httpOptionsFrom } from '../../src/adapters/http/plangate.js';
import { listen, type RunningServer } from '../../src/adapters/http/server.js';
import type { Store } from '../../src/facts/port.js';
import { openSqliteStore } from '../../src/facts/sqlite/store.js';
import { openPlangate, type Plangate } from '../../src/main/open.js';
import { call, EXAMPLES, startUpstream, TOKEN_ENTRIES, TOKENS, type Upstream } from '../http/support.js';

/** The read guard's ceiling for 0xWORKER (trading → careful) in the example rules. */
export const CEILING = 262_144;

export interface Boot {
  /** Agents held (on demand, by ops) in the store before plangate starts. */
  heldBefore?: string[];
  /** `unreadable`: the rules directory is a file; `invalid`: a rule file is not YAML. */
  rules?: 'unreadable' | 'invalid';
  /** `corrupt`: the policy file is not WebAssembly. */
  policy?: 'corrupt';
}

export interface GuardServer {
  url: string;
  /** Paths a case may name: `${root}`, `${outside}`, … */
  vars: Record<string, string>;
  pg: Plangate;
  app: HttpApp;
  upstream: Upstream;
  /** Makes the store's reads throw (as a database outage does), or work again. */
  storeDown(down: boolean): void;
  audit(): Array<Record<string, unknown>>;
  logs: string[];
  close(): Promise<void>;
}

/** A store whose fact reads, and its health probe, can be made to throw: an outage, every query failing. */
function flaky(store: Store): { store: Store; state: { down: boolean } } {
  const state = { down: false };
  const failing = new Set(['lineage', 'candidates', 'activeHold', 'listHolds', 'decisionFacts', 'probe']);
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (state.down && failing.has(String(prop))) throw new Error('SQLITE_IOERR: disk I/O error');
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, state };
}

export async function serveGuarded(boot: Boot = {}): Promise<GuardServer> {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-guards-'));
  const rules = join(dir, 'rules');
  cpSync(EXAMPLES, rules, { recursive: true });
  writeFileSync(join(rules, 'multi-read.yaml'), [
    'readGuard:', '  tools:', '    fs.read_multiple_files: { paths: paths }', '    fs.head: { path: path, lines: { head: n }, skip: [from] }',
    'tools:', '  read: [fs.read_multiple_files, fs.head]', '',
  ].join('\n'));

  const root = join(dir, 'root');
  mkdirSync(join(root, 'logs'), { recursive: true });
  writeFileSync(join(root, 'small.txt'), 'tiny\n');
  writeFileSync(join(root, 'big.log'), '');
  truncateSync(join(root, 'big.log'), 5 * 1024 * 1024);
  const outsideDir = join(dir, 'elsewhere');
  mkdirSync(outsideDir);
  const outside = join(outsideDir, 'secret-payroll.csv');
  writeFileSync(outside, 'x'.repeat(12_345));
  symlinkSync(outside, join(root, 'logs', 'link-out.csv'));
  symlinkSync(join(outsideDir, 'nothing-here'), join(root, 'logs', 'dangling-out'));

  const storePath = join(dir, 'store.db');
  const seed = openSqliteStore(storePath);
  await seed.putCrew({ id: 'desk', parent: null });
  await seed.putCrew({ id: 'trading', parent: 'desk' });
  await seed.putCrew({ id: 'ops', parent: 'desk' });
  await seed.putAgent({ id: '0xWORKER', crew: 'trading' });
  await seed.putAgent({ id: '0xBOT', crew: 'ops' });
  for (const agent of boot.heldBefore ?? []) await seed.placeHold({ agent, kind: 'on_demand', placedBy: 'ops', placedAt: Date.now(), task: 'review first' });
  await seed.close();

  if (boot.rules === 'unreadable') {
    rmSync(rules, { recursive: true });
    writeFileSync(rules, 'not a directory');
  } else if (boot.rules === 'invalid') {
    writeFileSync(join(rules, 'broken.yaml'), 'planRequired: [unclosed\n');
  }
  let policy: string | undefined;
  if (boot.policy === 'corrupt') {
    policy = join(dir, 'policy.wasm');
    writeFileSync(policy, Buffer.from('\0asm-but-not-really'));
  }

  const { store, state } = flaky(openSqliteStore(storePath));
  const auditFile = join(dir, 'audit.jsonl');
  const logs: string[] = [];
  const pg = await openPlangate({
    rules, audit: auditFile, storeInstance: store, env: { PLANGATE_READ_BASE: root }, log: (t) => logs.push(t),
    ...(policy ? { policy } : {}),
  });
  const upstream = await startUpstream();
  const executors = createExecutors({ timeoutMs: 2000, tools: { '*': `${upstream.url}/tools` } });
  const app = createHttpApp({ ...httpOptionsFrom(pg), tokens: createTokenSet(TOKEN_ENTRIES), executors, onError: () => {} });
  const server: RunningServer = await listen(app, { port: 0 });
  return {
    url: server.url,
    vars: { root, dir, outside, outsideDir, big: join(root, 'big.log'), ceiling: String(CEILING) },
    pg, app, upstream, logs,
    storeDown: (down) => { state.down = down; },
    audit: () => (existsSync(auditFile) ? readFileSync(auditFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []),
    async close() {
      await server.close(1000);
      executors.close();
      await upstream.close();
      await pg.close();
      await store.close();
    },
  };
}

export { call, TOKENS };
