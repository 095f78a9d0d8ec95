/**
 * The audit event of a call refused because its own fact gathering failed
 * on a healthy store (core/store-failures.ts): never let through, recorded.
 * Never a message body.
 */

/**
 * A call refused with `store_failure`: the store answered its health probe,
 * so the failure was this request's, not an outage.
 *
 * @example
 * const e: StoreFailureRefused = {
 *   type: 'StoreFailureRefused', time: '2026-11-29T12:00:00.000Z', agent: '0xWORKER',
 *   tool: 'github.merge_pull_request', runId: null, delegatedBy: [],
 *   reason: 'the facts of this call were not read within its 500 ms budget',
 * };
 */
export interface StoreFailureRefused {
  type: 'StoreFailureRefused';
  time: string;
  /** The acting seat. */
  agent: string;
  tool: string;
  runId: string | null;
  /** The delegation chain the call claimed. */
  delegatedBy: string[];
  /** What failed, for the operator. */
  reason: string;
}

/**
 * A fresh copy of the event holding only its declared fields.
 *
 * @example
 * toStoreRecord({ ...event, body: 'secret' } as StoreFailureRefused) // no `body` key
 */
export function toStoreRecord(e: StoreFailureRefused): StoreFailureRefused {
  return { type: e.type, time: e.time, agent: e.agent, tool: e.tool, runId: e.runId, delegatedBy: [...e.delegatedBy], reason: e.reason };
}
