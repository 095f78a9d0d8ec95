/**
 * Replicas for the tests: real `plangate serve` processes on one real
 * PostgreSQL, and a private PostgreSQL cluster a test may stop and start.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXAMPLES } from '../http/support.js';

const CHILD = join(import.meta.dirname, '..', 'http', 'cli-child.ts');

/** Known tokens, given to every replica through PLANGATE_TOKENS. */
export const TOKENS = {
  operator: 'operator-token-0123456789abcdef',
  worker: 'worker-token-0123456789abcdef',
  a1: 'a1-token-0123456789abcdef0123',
  a2: 'a2-token-0123456789abcdef0123',
} as const;
const TOKENS_ENV = `operator=${TOKENS.operator} agent:0xWORKER=${TOKENS.worker} agent:0xA1=${TOKENS.a1} agent:0xA2=${TOKENS.a2}`;

export interface Replica {
  child: ChildProcess;
  url: string;
  err: () => string;
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** Starts `plangate serve` on `store` with its own copy of the example rules (and `ruleFiles` beside them); resolves once it listens. */
export async function startReplica(store: string, extraEnv: NodeJS.ProcessEnv = {}, ruleFiles: Record<string, string> = {}): Promise<Replica> {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-replica-'));
  const rules = join(dir, 'rules');
  cpSync(EXAMPLES, rules, { recursive: true });
  for (const [name, text] of Object.entries(ruleFiles)) writeFileSync(join(rules, name), text);
  const env = { PATH: process.env['PATH'], PLANGATE_RULES: rules, PLANGATE_STORE: store, PLANGATE_PORT: '0', PLANGATE_TOKENS: TOKENS_ENV, ...extraEnv };
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stdout!.resume();
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /serving (http:\/\/\S+) /.exec(err);
      if (m) resolve(m[1] as string);
    });
    void exited.then((code) => reject(new Error(`serve exited ${code} before listening:\n${err}`)));
  });
  return {
    child,
    url,
    err: () => err,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/** Where the PostgreSQL server binaries are (Debian's layout, as `.ci/run` installs them). */
export function postgresBin(): string | undefined {
  for (const v of ['17', '16', '15']) {
    const bin = `/usr/lib/postgresql/${v}/bin`;
    if (existsSync(join(bin, 'pg_ctl'))) return bin;
  }
  return undefined;
}

/** A private throwaway cluster on loopback that a test may stop and start again. */
export interface Cluster {
  url: string;
  stop(): void;
  start(): void;
  destroy(): void;
}

function asPostgres(cmd: string, args: string[]): void {
  const root = process.getuid?.() === 0;
  execFileSync(root ? 'runuser' : cmd, root ? ['-u', 'postgres', '--', cmd, ...args] : args, { stdio: 'pipe' });
}

/** initdb in a temp dir (as the `postgres` user when root) and start it on a free port. */
export function startCluster(bin: string, port: number): Cluster {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  asPostgres(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres']);
  const start = () => asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-o', `-k ${dir} -p ${port} -c listen_addresses=127.0.0.1 -c fsync=off`, '-l', join(dir, 'log'), '-w', 'start']);
  const stop = () => asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    destroy() {
      try {
        stop();
      } catch {
        // already stopped
      }
    },
  };
}
