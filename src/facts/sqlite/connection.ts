/**
 * Opening a SQLite store's file: the options, the connection's pragmas (WAL,
 * synchronous=FULL, foreign keys, the busy timeout, the page cache) and
 * the schema brought up to date.
 */
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { ErrorCode, PlangateError } from '../../core/errors.js';
import { guard } from './guard.js';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';

export interface SqliteStoreOptions {
  /** How long to wait for another connection's write lock, in ms. Default 5000. */
  busyTimeoutMs?: number;
  /**
   * The page cache of the connection, in MiB (SQLite's `cache_size`). The
   * default (SQLite's, about 2 MiB; better-sqlite3 builds with 16 MiB) keeps
   * a small store in memory; a store of millions of messages decides faster
   * for random agents with a cache near the size of its indexes (e.g. 256).
   */
  cacheSizeMiB?: number;
}

/**
 * better-sqlite3's compiled addon, by its path in the package, or undefined
 * where it was built elsewhere (the package then finds it itself). Given
 * the path, the package loads it directly instead of through `bindings`,
 * which reads a stack trace and tries a dozen paths: about 1.3 ms of every
 * `plangate hook` call.
 */
let addon: string | undefined | null = null;
function addonPath(): string | undefined {
  if (addon === null) {
    try {
      addon = createRequire(import.meta.url).resolve('better-sqlite3/build/Release/better_sqlite3.node');
    } catch {
      addon = undefined;
    }
  }
  return addon;
}

/** Brings the schema to {@link SCHEMA_VERSION}, in one write transaction. */
function migrate(db: Database.Database): void {
  db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new PlangateError(
        ErrorCode.StoreFailure,
        `sqlite store: schema version ${version} is newer than this plangate supports (${SCHEMA_VERSION})`,
      );
    }
    for (let v = version; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v] as string);
    if (version !== SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

/**
 * Opens the file (creating it and its folder when missing; `':memory:'` for
 * a private in-memory database) with the store's pragmas and schema.
 *
 * @example
 * const db = openConnection('.data/plangate.db', { cacheSizeMiB: 256 });
 */
export function openConnection(path: string, options: SqliteStoreOptions = {}): Database.Database {
  if (typeof path !== 'string' || path === '') {
    throw new PlangateError(ErrorCode.InvalidInput, 'sqlite store: path must be a file path or ":memory:"');
  }
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new PlangateError(ErrorCode.InvalidInput, 'sqlite store: busyTimeoutMs must be a non-negative integer');
  }

  const cacheSizeMiB = options.cacheSizeMiB;
  if (cacheSizeMiB !== undefined && (!Number.isSafeInteger(cacheSizeMiB) || cacheSizeMiB < 1 || cacheSizeMiB > 65536)) {
    throw new PlangateError(ErrorCode.InvalidInput, 'sqlite store: cacheSizeMiB must be an integer from 1 to 65536');
  }

  return guard(`opening ${path}`, () => {
    if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
    const nativeBinding = addonPath();
    const conn = new Database(path, nativeBinding === undefined ? { timeout: busyTimeoutMs } : { timeout: busyTimeoutMs, nativeBinding });
    try {
      conn.pragma('journal_mode = WAL');
      // FULL: a commit is on disk before it is acknowledged, power loss included (about 0.4 ms a write here; decisions only read).
      conn.pragma('synchronous = FULL');
      conn.pragma('foreign_keys = ON');
      conn.pragma(`busy_timeout = ${busyTimeoutMs}`);
      // A negative cache_size is in KiB.
      if (cacheSizeMiB !== undefined) conn.pragma(`cache_size = -${cacheSizeMiB * 1024}`);
      migrate(conn);
    } catch (err) {
      conn.close();
      throw err;
    }
    return conn;
  });
}
