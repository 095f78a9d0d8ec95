/**
 * Runs and delegations for the SQLite store driver. A run is found by its
 * primary key and a worker's live delegations by one partial-index seek.
 */
import type Database from 'better-sqlite3';
import type { Delegation, Run } from '../../core/types.js';
import { toDelegation, toRun, type DelegationRow, type RunRow } from '../rows.js';
import type { DelegationStore, RunStore } from '../port.js';
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
import { guard } from './guard.js';
import { RUN_SQL } from './schema.js';

/** The runs and delegations half of an SQLite store, on an open connection whose schema is up to date. */
export function createSqliteRuns(db: Database.Database): RunStore & DelegationStore & { readRun(id: string): Run | undefined } {
  const st = guard('preparing run statements', () => ({
    getRun: db.prepare<[string], RunRow>(RUN_SQL.getRun),
    insertRun: db.prepare<[string, string, string | null, number, number, string]>(RUN_SQL.insertRun),
    endRun: db.prepare<[number, string, string]>(RUN_SQL.endRun),
    listRuns: db.prepare<[number], RunRow>(RUN_SQL.listRuns),
    listSeatRuns: db.prepare<[string, number], RunRow>(RUN_SQL.listSeatRuns),
    getDelegation: db.prepare<[string], DelegationRow>(RUN_SQL.getDelegation),
    insertDelegation: db.prepare<[string, string, string, string | null, number, number | null, string]>(RUN_SQL.insertDelegation),
    revoke: db.prepare<[number, string]>(RUN_SQL.revoke),
    delegationsTo: db.prepare<[string, number, number, string | null, number], DelegationRow>(RUN_SQL.delegationsTo),
    delegationsFrom: db.prepare<[{ worker: string; manager: string; now: number; run: string | null; limit: number }], DelegationRow>(RUN_SQL.delegationsFrom),
  }));

  function readRun(id: string): Run | undefined {
    const row = st.getRun.get(id);
    return row ? toRun(row) : undefined;
  }

  const startRun = db.transaction((r: Run): Run => {
    if (st.getRun.get(r.id)) throw runExists(r.id);
    st.insertRun.run(r.id, r.seat, r.delegationId, r.startedAt, r.expiresAt, r.startedBy);
    return r;
  });

  const endRun = db.transaction((id: string, end: { by: string; at?: number }): Run => {
    const row = st.getRun.get(id);
    if (!row) throw unknownRun(id);
    const run = toRun(row);
    if (run.endedAt !== null) return run;
    const { by, at } = checkRunEnd(run, end);
    st.endRun.run(at, by, id);
    return { ...run, endedAt: at, endedBy: by };
  });

  const delegate = db.transaction((d: Delegation): Delegation => {
    if (st.getDelegation.get(d.id)) throw delegationExists(d.id);
    st.insertDelegation.run(d.id, d.manager, d.worker, d.runId, d.createdAt, d.expiresAt, d.createdBy);
    return d;
  });

  const revoke = db.transaction((id: string, at: number): Delegation => {
    const row = st.getDelegation.get(id);
    if (!row) throw unknownDelegation(id);
    if (row.revoked_at !== null) return toDelegation(row);
    st.revoke.run(at, id);
    return { ...toDelegation(row), revokedAt: at };
  });

  return {
    async startRun(run) {
      return guard('startRun', () => startRun.immediate(checkNewRun(run)));
    },
    async endRun(id, end) {
      return guard('endRun', () => endRun.immediate(id, end));
    },
    async getRun(id) {
      return guard('getRun', () => readRun(id));
    },
    /** The run, synchronously, for a decision's read transaction (one snapshot). */
    readRun,
    async listRuns(query) {
      return guard('listRuns', () => {
        const { seat, limit } = checkRunQuery(query);
        const rows = seat === undefined ? st.listRuns.all(limit) : st.listSeatRuns.all(seat, limit);
        return rows.map(toRun);
      });
    },
    async delegate(delegation) {
      return guard('delegate', () => delegate.immediate(checkNewDelegation(delegation)));
    },
    async revokeDelegation(id, at) {
      return guard('revokeDelegation', () => revoke.immediate(id, checkRevokeAt(at)));
    },
    async delegationsTo(worker, now, runId, manager) {
      return guard('delegationsTo', () => {
        checkDelegationsTo(worker, now, runId, manager);
        const rows = manager === undefined
          ? st.delegationsTo.all(worker, now, now, runId ?? null, MAX_DELEGATIONS_TO)
          : st.delegationsFrom.all({ worker, manager, now, run: runId ?? null, limit: MAX_DELEGATIONS_TO });
        return rows.map(toDelegation);
      });
    },
    async getDelegation(id) {
      return guard('getDelegation', () => {
        const row = st.getDelegation.get(id);
        return row ? toDelegation(row) : undefined;
      });
    },
  };
}
