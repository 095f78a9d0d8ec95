/**
 * Runs and delegations for the PostgreSQL driver: recorded facts, asserted by
 * a trusted party (host, CLI, operator, orchestrator), looked up by index.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { ErrorCode, PlangateError } from '../../core/errors.js';
import { isValidId } from '../../core/threads.js';
import type { Delegation, NewDelegation, NewRun, Run } from '../../core/types.js';
import { checkLimit } from '../holds.js';
import type { DelegationStore, RunStore } from '../port.js';
import { MAX_AUTHOR_LENGTH, MAX_RUN_ID_LENGTH } from '../validate.js';
import type { Runner } from './pool.js';
import { RUN_SQL } from './schema.js';

interface RunRow {
  id: string;
  seat: string;
  delegation_id: string | null;
  started_at: number;
  expires_at: number;
  ended_at: number | null;
  started_by: string;
  ended_by: string | null;
}

interface DelegationRow {
  id: string;
  manager: string;
  worker: string;
  run_id: string | null;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  created_by: string;
}

const toRun = (r: RunRow): Run => ({
  id: r.id,
  seat: r.seat,
  delegationId: r.delegation_id,
  startedAt: r.started_at,
  expiresAt: r.expires_at,
  endedAt: r.ended_at,
  startedBy: r.started_by,
  endedBy: r.ended_by,
});

const toDelegation = (r: DelegationRow): Delegation => ({
  id: r.id,
  manager: r.manager,
  worker: r.worker,
  runId: r.run_id,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
  createdBy: r.created_by,
});

function invalid(message: string): PlangateError {
  return new PlangateError(ErrorCode.InvalidInput, message);
}

function seat(x: unknown, field: string): string {
  if (!isValidId(x)) throw invalid(`${field} is not a valid agent id: ${JSON.stringify(x)}`);
  return x;
}

function text(x: unknown, field: string, max: number): string {
  if (typeof x !== 'string' || x.length === 0 || x.length > max) throw invalid(`${field} must be a non-empty string of at most ${max} characters`);
  return x;
}

function time(x: unknown, field: string, fallback?: number): number {
  if (x === undefined && fallback !== undefined) return fallback;
  if (!Number.isSafeInteger(x)) throw invalid(`${field} must be an integer number of epoch milliseconds, got ${String(x)}`);
  return x as number;
}

/** The run and delegation halves of a PostgreSQL store. */
export function createPostgresRuns(pool: pg.Pool, run: Runner): RunStore & DelegationStore {
  return {
    startRun: (r: NewRun) =>
      run('startRun', async () => {
        if (typeof r !== 'object' || r === null) throw invalid('run must be an object');
        const id = r.id === undefined ? randomUUID() : text(r.id, 'run.id', MAX_RUN_ID_LENGTH);
        const startedAt = time(r.startedAt, 'run.startedAt', Date.now());
        const expiresAt = time(r.expiresAt, 'run.expiresAt');
        if (expiresAt <= startedAt) throw invalid('run.expiresAt must be after run.startedAt');
        const delegationId = r.delegationId === undefined ? null : text(r.delegationId, 'run.delegationId', MAX_RUN_ID_LENGTH);
        const values = [id, seat(r.seat, 'run.seat'), delegationId, startedAt, expiresAt, text(r.startedBy, 'run.startedBy', MAX_AUTHOR_LENGTH)];
        const row = (await pool.query<RunRow>(RUN_SQL.insertRun, values)).rows[0];
        if (!row) throw new PlangateError(ErrorCode.Conflict, `a run with id ${id} exists`);
        return toRun(row);
      }),

    endRun: (id, end) =>
      run('endRun', async () => {
        if (typeof end !== 'object' || end === null) throw invalid('end must be an object');
        const by = text(end.by, 'end.by', MAX_AUTHOR_LENGTH);
        const at = time(end.at, 'end.at', Date.now());
        const row = (await pool.query<RunRow>(RUN_SQL.endRun, [id, at, by])).rows[0];
        if (row) return toRun(row);
        const existing = (await pool.query<RunRow>(RUN_SQL.getRun, [id])).rows[0];
        if (!existing) throw new PlangateError(ErrorCode.NotFound, `unknown run: ${String(id)}`);
        return toRun(existing);
      }),

    getRun: (id) =>
      run('getRun', async () => {
        if (typeof id !== 'string') return undefined;
        const row = (await pool.query<RunRow>(RUN_SQL.getRun, [id])).rows[0];
        return row ? toRun(row) : undefined;
      }),

    listRuns: (query = {}) =>
      run('listRuns', async () => {
        const limit = checkLimit(query.limit);
        const { rows } = query.seat !== undefined
          ? await pool.query<RunRow>(RUN_SQL.listSeatRuns, [seat(query.seat, 'query.seat'), limit])
          : await pool.query<RunRow>(RUN_SQL.listRuns, [limit]);
        return rows.map(toRun);
      }),

    delegate: (d: NewDelegation) =>
      run('delegate', async () => {
        if (typeof d !== 'object' || d === null) throw invalid('delegation must be an object');
        const manager = seat(d.manager, 'delegation.manager');
        const worker = seat(d.worker, 'delegation.worker');
        if (manager === worker) throw invalid(`a seat cannot delegate to itself: ${manager}`);
        const id = d.id === undefined ? randomUUID() : text(d.id, 'delegation.id', MAX_RUN_ID_LENGTH);
        const createdAt = time(d.createdAt, 'delegation.createdAt', Date.now());
        const expiresAt = d.expiresAt === undefined ? null : time(d.expiresAt, 'delegation.expiresAt');
        const runId = d.runId === undefined ? null : text(d.runId, 'delegation.runId', MAX_RUN_ID_LENGTH);
        const values = [id, manager, worker, runId, createdAt, expiresAt, text(d.createdBy, 'delegation.createdBy', MAX_AUTHOR_LENGTH)];
        const row = (await pool.query<DelegationRow>(RUN_SQL.insertDelegation, values)).rows[0];
        if (!row) throw new PlangateError(ErrorCode.Conflict, `a delegation with id ${id} exists`);
        return toDelegation(row);
      }),

    revokeDelegation: (id, at) =>
      run('revokeDelegation', async () => {
        const when = time(at, 'at', Date.now());
        const row = typeof id === 'string' ? (await pool.query<DelegationRow>(RUN_SQL.revokeDelegation, [id, when])).rows[0] : undefined;
        if (!row) throw new PlangateError(ErrorCode.NotFound, `unknown delegation: ${String(id)}`);
        return toDelegation(row);
      }),

    delegationsTo: (worker, now, runId) =>
      run('delegationsTo', async () => {
        const { rows } = await pool.query<DelegationRow>(RUN_SQL.delegationsTo, [seat(worker, 'worker'), time(now, 'now'), runId ?? null]);
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
