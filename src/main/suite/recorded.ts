/**
 * Recording a suite's runs and delegations in the store, where the store
 * keeps them (the `RunStore` and `DelegationStore` ports). A store without
 * them decides on the call's claims alone; the runner then says so once per
 * suite instead of pretending the records were made.
 */
import type { DelegationStore, RunStore } from '../../facts/port.js';
import type { SuiteDelegation, SuiteRun } from './load.js';

/** Who a suite says recorded its runs and delegations. */
export const SUITE_PRINCIPAL = 'plangate-test';

/** Default run length when a suite names none: one day. */
const DEFAULT_RUN_MS = 86_400_000;

/** Whether the store records runs and delegations. */
export function recordsRuns(store: object): store is RunStore & DelegationStore {
  return 'startRun' in store && 'delegate' in store;
}

/**
 * Records the runs and delegations, or returns a note saying they were not.
 *
 * @example
 * const note = await recordRunsAndDelegations(store, suite.runs, suite.delegations, now, ms);
 */
export async function recordRunsAndDelegations(
  store: object,
  suite: { runs: readonly SuiteRun[]; delegations: readonly SuiteDelegation[] },
  now: number,
  startOf: (where: Array<string | number>) => (item: { age?: string; at?: string }) => number,
  ms: (duration: string) => number,
  step: (where: Array<string | number>, run: () => Promise<unknown>) => Promise<void>,
): Promise<string | undefined> {
  const { runs, delegations } = suite;
  if (runs.length === 0 && delegations.length === 0) return undefined;
  if (!recordsRuns(store)) {
    return 'this store does not record runs and delegations: the calls are decided on what they claim (run id, delegatedBy)';
  }
  for (const [i, d] of delegations.entries()) await step(['delegations', i], async () => {
    const createdAt = startOf(['delegations', i])(d);
    const made = await store.delegate({
      id: d.id,
      manager: d.manager,
      worker: d.worker,
      createdBy: SUITE_PRINCIPAL,
      createdAt,
      ...(d.run !== undefined ? { runId: d.run } : {}),
      ...(d.expiresIn !== undefined ? { expiresAt: createdAt + ms(d.expiresIn) } : {}),
    });
    if (d.revoked) await store.revokeDelegation(made.id, now);
  });
  for (const [i, r] of runs.entries()) await step(['runs', i], async () => {
    const startedAt = startOf(['runs', i])(r);
    await store.startRun({
      id: r.id,
      seat: r.seat,
      startedBy: SUITE_PRINCIPAL,
      startedAt,
      expiresAt: startedAt + (r.expiresIn !== undefined ? ms(r.expiresIn) : DEFAULT_RUN_MS),
      ...(r.delegation !== undefined ? { delegationId: r.delegation } : {}),
    });
    if (r.endedAge !== undefined) await store.endRun(r.id, { by: SUITE_PRINCIPAL, at: now - ms(r.endedAge) });
  });
  return undefined;
}
