// A throwaway PostgreSQL cluster for `npm test`: the server binaries Debian's
// packages install (/usr/lib/postgresql/<version>/bin), a cluster in a
// temporary directory, trust authentication, listening on 127.0.0.1 only at
// a free port, run as the postgres user when this runs as root (the server
// refuses to run as root). Stopped and removed by stop().
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PG_LIB = '/usr/lib/postgresql';

/** The newest installed server's bin directory, or null. */
export function findPostgresBin() {
  if (!existsSync(PG_LIB)) return null;
  const versions = readdirSync(PG_LIB).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = join(PG_LIB, v, 'bin');
    if (existsSync(join(bin, 'pg_ctl')) && existsSync(join(bin, 'initdb'))) return bin;
  }
  return null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function postgresUid() {
  const r = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error('running as root, and there is no postgres user to run the server as');
  const uid = Number(r.stdout.trim());
  const g = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  return { uid, gid: Number(g.stdout.trim()) };
}

/**
 * Starts a cluster with the server binaries in `bin`; resolves with its URL
 * and stop(). Throws with the server's log when it does not start.
 */
export async function startPostgres(bin) {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-test-pg-'));
  const root = process.getuid?.() === 0;
  const as = root ? postgresUid() : undefined;
  if (as) chownSync(dir, as.uid, as.gid);
  const exec = (cmd, args) => {
    const r = spawnSync(join(bin, cmd), args, { encoding: 'utf8', ...(as ? { uid: as.uid, gid: as.gid } : {}) });
    if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr || r.stdout}`);
  };
  const data = join(dir, 'data');
  const port = await freePort();
  exec('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres']);
  exec('pg_ctl', ['-D', data, '-o', `-k ${dir} -p ${port} -c listen_addresses=127.0.0.1`, '-l', join(dir, 'log'), '-w', 'start']);
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    stop() {
      if (stopped) return;
      stopped = true;
      spawnSync(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'], { stdio: 'ignore', ...(as ? { uid: as.uid, gid: as.gid } : {}) });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
