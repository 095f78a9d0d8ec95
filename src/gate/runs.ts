/**
 * Runs and delegations, as the host records them (`gate.runs`,
 * `gate.delegations`). These are trusted facts: the host in-process, the
 * CLI, an operator or an orchestrator records them; an agent's own token
 * never starts or ends a run (the HTTP adapter enforces who may call what).
 */
import { ErrorCode, PlangateError } from '../core/errors.js';
import { DEFAULT_MAX_RUN_MIN, type Delegation, type Run } from '../core/types.js';
import type { DelegationStore, RunStore } from '../facts/port.js';
import { isValidId } from '../core/threads.js';
import type { QuotaCheck } from './quotas.js';

/** The run half of the gate. */
export interface Runs {
  /**
   * Starts a run for `seat`. It expires `ttlMs` after its start (default 24
   * hours); the rules' `runs.maxMinutes` bounds it further at decision time.
   * With `delegationId`, the run is a delegated run: the delegation must be
   * on record, to this seat, live (neither revoked nor expired), and for
   * this run when it names one.
   */
  start(run: { seat: string; by: string; id?: string; delegationId?: string; ttlMs?: number }): Promise<Run>;
  /** Ends a run (ending an ended run changes nothing). Fails with `not_found` for an unknown id. */
  end(id: string, options: { by: string }): Promise<Run>;
  get(id: string): Promise<Run | undefined>;
  /** Runs newest first, of one seat when given. */
  list(query?: { seat?: string; limit?: number }): Promise<Run[]>;
}

/** The delegation half of the gate. */
export interface Delegations {
  /**
   * Records that `manager` delegates to `worker`, for one run or any run,
   * until `ttlMs` from now (default: no expiry).
   */
  record(d: { manager: string; worker: string; by: string; id?: string; runId?: string; ttlMs?: number }): Promise<Delegation>;
  /** Revokes a delegation from now on. Fails with `not_found` for an unknown id. */
  revoke(id: string): Promise<Delegation>;
  get(id: string): Promise<Delegation | undefined>;
  /** The live delegations to `worker` now (for `runId` or any run). */
  to(worker: string, runId?: string): Promise<Delegation[]>;
}

/** Default run length (ms) when `start` is given no `ttlMs`. */
export const DEFAULT_RUN_TTL_MS = DEFAULT_MAX_RUN_MIN * 60_000;

function checkTtl(ttl: unknown, field: string): number {
  if (!Number.isSafeInteger(ttl) || (ttl as number) <= 0) throw new PlangateError(ErrorCode.InvalidInput, `${field} must be a positive integer number of milliseconds, got ${String(ttl)}`);
  return ttl as number;
}

/** Throws unless `d` is a delegation a run of `seat` (with `runId`, when given) may be started under now. */
function checkDelegation(d: Delegation | undefined, id: string, seat: string, runId: string | undefined, now: number): void {
  if (!d) throw new PlangateError(ErrorCode.NotFound, `no delegation with id ${id}`);
  const refuse = (why: string): never => {
    throw new PlangateError(ErrorCode.InvalidInput, `delegation ${id} ${why}`);
  };
  if (d.worker !== seat) refuse(`is to ${d.worker}, not to ${seat}`);
  if (d.revokedAt !== null && d.revokedAt <= now) refuse(`was revoked at ${new Date(d.revokedAt).toISOString()}`);
  if (d.expiresAt !== null && d.expiresAt <= now) refuse(`expired at ${new Date(d.expiresAt).toISOString()}`);
  if (d.runId !== null && d.runId !== runId) refuse(`is for run ${d.runId} only: start the run with that id`);
}

/**
 * Creates the runs and delegations API over a store.
 *
 * @example
 * const { runs, delegations } = createRuns(store, Date.now);
 * const run = await runs.start({ seat: '0xWORKER', by: 'host' });
 * await delegations.record({ manager: '0xMGR', worker: '0xWORKER', by: 'host', runId: run.id });
 */
export function createRuns(store: RunStore & DelegationStore, clock: () => number, quota?: QuotaCheck): { runs: Runs; delegations: Delegations } {
  // Whoever records it, a run counts against its seat's quota and a delegation against its manager's (an id the store refuses is not counted).
  const check = async (seat: unknown, kind: 'runs' | 'delegations'): Promise<void> => {
    if (quota && isValidId(seat)) await quota(seat, kind);
  };
  const runs: Runs = {
    async start({ seat, by, id, delegationId, ttlMs }) {
      const now = clock();
      const ttl = ttlMs === undefined ? DEFAULT_RUN_TTL_MS : checkTtl(ttlMs, 'ttlMs');
      if (delegationId !== undefined) checkDelegation(await store.getDelegation(delegationId), delegationId, seat, id, now);
      await check(seat, 'runs');
      return store.startRun({
        seat, startedBy: by, startedAt: now, expiresAt: now + ttl,
        ...(id !== undefined ? { id } : {}), ...(delegationId !== undefined ? { delegationId } : {}),
      });
    },
    end: (id, { by }) => store.endRun(id, { by, at: clock() }),
    get: (id) => store.getRun(id),
    list: (query) => store.listRuns(query),
  };
  const delegations: Delegations = {
    async record({ manager, worker, by, id, runId, ttlMs }) {
      const now = clock();
      await check(manager, 'delegations');
      return store.delegate({
        manager, worker, createdBy: by, createdAt: now,
        ...(id !== undefined ? { id } : {}), ...(runId !== undefined ? { runId } : {}),
        ...(ttlMs !== undefined ? { expiresAt: now + checkTtl(ttlMs, 'ttlMs') } : {}),
      });
    },
    revoke: (id) => store.revokeDelegation(id, clock()),
    get: (id) => store.getDelegation(id),
    to: (worker, runId) => store.delegationsTo(worker, clock(), runId),
  };
  return { runs, delegations };
}
