/**
 * Runs and delegations for the PostgreSQL driver: recorded facts, asserted by
 * a trusted party (host, CLI, operator, orchestrator), looked up by index.
 * Validation is shared with every driver (../runs.ts).
 */
import type pg from 'pg';
import type { DelegationStore, RunStore } from '../port.js';
import { toDelegation, toRun, type DelegationRow, type RunRow } from '../rows.js';
import {
  checkDelegationsTo,
  checkNewDelegation,
  checkNewRun,
  checkRevokeAt,
  checkRunEnd,
  checkRunQuery,
  delegationExists,
  MAX_DELEGATIONS_TO,
  runExists,
  unknownDelegation,
  unknownRun,
} from '../runs.js';
import { inTransaction, type Runner } from './pool.js';
import { RUN_SQL } from './schema.js';

/** The run and delegation halves of a PostgreSQL store. */
export function createPostgresRuns(pool: pg.Pool, run: Runner): RunStore & DelegationStore {
  return {
    startRun: (r) =>
      run('startRun', async () => {
        const x = checkNewRun(r);
        const { rowCount } = await pool.query(RUN_SQL.insertRun, [x.id, x.seat, x.delegationId, x.startedAt, x.expiresAt, x.startedBy]);
        if (!rowCount) throw runExists(x.id);
        return x;
      }),

    endRun: (id, end) =>
      run('endRun', () =>
        inTransaction(pool, async (c) => {
          const row = typeof id === 'string' ? (await c.query<RunRow>(RUN_SQL.getRunForUpdate, [id])).rows[0] : undefined;
          if (!row) throw unknownRun(String(id));
          const r = toRun(row);
          if (r.endedAt !== null) return r;
          const { by, at } = checkRunEnd(r, end);
          await c.query(RUN_SQL.endRun, [id, at, by]);
          return { ...r, endedAt: at, endedBy: by };
        }),
      ),

    getRun: (id) =>
      run('getRun', async () => {
        if (typeof id !== 'string') return undefined;
        const row = (await pool.query<RunRow>({ name: 'plangate_get_run', text: RUN_SQL.getRun, values: [id] })).rows[0];
        return row ? toRun(row) : undefined;
      }),

    listRuns: (query) =>
      run('listRuns', async () => {
        const { seat, limit } = checkRunQuery(query);
        const { rows } = seat === undefined
          ? await pool.query<RunRow>(RUN_SQL.listRuns, [limit])
          : await pool.query<RunRow>(RUN_SQL.listSeatRuns, [seat, limit]);
        return rows.map(toRun);
      }),

    delegate: (d) =>
      run('delegate', async () => {
        const x = checkNewDelegation(d);
        const values = [x.id, x.manager, x.worker, x.runId, x.createdAt, x.expiresAt, x.createdBy];
        const { rowCount } = await pool.query(RUN_SQL.insertDelegation, values);
        if (!rowCount) throw delegationExists(x.id);
        return x;
      }),

    revokeDelegation: (id, at) =>
      run('revokeDelegation', async () => {
        const when = checkRevokeAt(at);
        const row = typeof id === 'string' ? (await pool.query<DelegationRow>(RUN_SQL.revokeDelegation, [id, when])).rows[0] : undefined;
        if (!row) throw unknownDelegation(String(id));
        return toDelegation(row);
      }),

    delegationsTo: (worker, now, runId, manager) =>
      run('delegationsTo', async () => {
        checkDelegationsTo(worker, now, runId, manager);
        const { rows } = await pool.query<DelegationRow>(manager === undefined
          ? { name: 'plangate_delegations_to', text: RUN_SQL.delegationsTo, values: [worker, now, runId ?? null, MAX_DELEGATIONS_TO] }
          : { name: 'plangate_delegations_from', text: RUN_SQL.delegationsFrom, values: [worker, now, runId ?? null, MAX_DELEGATIONS_TO, manager] });
        return rows.map(toDelegation);
      }),

    getDelegation: (id) =>
      run('getDelegation', async () => {
        if (typeof id !== 'string') return undefined;
        const row = (await pool.query<DelegationRow>(RUN_SQL.getDelegation, [id])).rows[0];
        return row ? toDelegation(row) : undefined;
      }),
  };
}
