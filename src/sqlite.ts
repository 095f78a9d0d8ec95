/**
 * `plangate/sqlite`: the SQLite store (one file, one host), for
 * `createGate` or `openPlangate({ storeInstance })`. Loads better-sqlite3.
 *
 * @example
 * import { openSqliteStore } from 'plangate/sqlite';
 * const store = openSqliteStore('.data/plangate.db');
 */
export { openSqliteStore, type SqliteStoreOptions } from './facts/sqlite/store.js';
