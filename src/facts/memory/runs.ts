/**
 * Runs and delegations for the in-memory store driver: maps keyed the way
 * they are looked up (a run by id, delegations by worker).
 */
import type { Delegation, Run } from '../../core/types.js';
import type { DelegationStore, RunStore } from '../port.js';
import {
  checkDelegationsTo,
  checkRevokeAt,
  delegationExists,
  checkNewDelegation,
  checkNewRun,
  checkRunEnd,
  checkRunQuery,
  isLive,
  MAX_DELEGATIONS_TO,
  runExists,
  unknownDelegation,
  unknownRun,
} from '../runs.js';

/** The runs and delegations half of a memory store. `assertOpen` throws once the store is closed. */
export function createMemoryRuns(assertOpen: () => void): RunStore & DelegationStore & { readRun(id: string): Run | undefined } {
  const runs = new Map<string, Run>();
  /** Every run, in start order (insertion), for listing. */
  const runOrder: Run[] = [];

  function readRun(id: string): Run | undefined {
    const r = runs.get(id);
    return r ? { ...r } : undefined;
  }

  const delegations = new Map<string, Delegation>();
  /** worker → its delegations, oldest first. */
  const toWorker = new Map<string, Delegation[]>();
  /** (worker, manager) → that manager's delegations to the worker, oldest first: a decision's lookup reads one pair's only. */
  const byPair = new Map<string, Delegation[]>();
  const pair = (worker: string, manager: string): string => `${worker}\u0000${manager}`;

  return {
    async startRun(run) {
      assertOpen();
      const r = checkNewRun(run);
      if (runs.has(r.id)) throw runExists(r.id);
      runs.set(r.id, r);
      runOrder.push(r);
      return { ...r };
    },

    async endRun(id, end) {
      assertOpen();
      const r = runs.get(id);
      if (!r) throw unknownRun(id);
      if (r.endedAt !== null) return { ...r };
      const { by, at } = checkRunEnd(r, end);
      r.endedAt = at;
      r.endedBy = by;
      return { ...r };
    },

    async getRun(id) {
      assertOpen();
      return readRun(id);
    },

    /** The run, synchronously, so a decision's facts are one snapshot. */
    readRun,

    async listRuns(query) {
      assertOpen();
      const { seat, limit } = checkRunQuery(query);
      // Newest start first; equal starts, the later started first (reverse insertion, then a stable sort).
      const matching = runOrder.filter((r) => seat === undefined || r.seat === seat).reverse();
      return matching.sort((a, b) => b.startedAt - a.startedAt).slice(0, limit).map((r) => ({ ...r }));
    },

    async delegate(delegation) {
      assertOpen();
      const d = checkNewDelegation(delegation);
      if (delegations.has(d.id)) throw delegationExists(d.id);
      delegations.set(d.id, d);
      let list = toWorker.get(d.worker);
      if (!list) toWorker.set(d.worker, (list = []));
      list.push(d);
      let mine = byPair.get(pair(d.worker, d.manager));
      if (!mine) byPair.set(pair(d.worker, d.manager), (mine = []));
      mine.push(d);
      return { ...d };
    },

    async revokeDelegation(id, at) {
      assertOpen();
      const d = delegations.get(id);
      if (!d) throw unknownDelegation(id);
      const when = checkRevokeAt(at);
      if (d.revokedAt === null) d.revokedAt = when;
      return { ...d };
    },

    async delegationsTo(worker, now, runId, manager) {
      assertOpen();
      checkDelegationsTo(worker, now, runId, manager);
      const rows = manager === undefined ? toWorker.get(worker) : byPair.get(pair(worker, manager));
      // Without a manager (a listing, not a decision) a revoked delegation is never returned, as in every driver.
      const live = (rows ?? []).filter((d) => isLive(d, now, runId) && (manager !== undefined || d.revokedAt === null)).reverse();
      return live.sort((a, b) => b.createdAt - a.createdAt).slice(0, MAX_DELEGATIONS_TO).map((d) => ({ ...d }));
    },

    async getDelegation(id) {
      assertOpen();
      const d = delegations.get(id);
      return d ? { ...d } : undefined;
    },
  };
}
