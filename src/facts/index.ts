/** The facts layer: the store port and its drivers. */
export type { Agent, CandidateQuery, Crew, Hold, HoldMessageRole, HoldQuery, HoldStore, MessageStore, NewHold, OrgStore, Store } from './port.js';
export { DEFAULT_HOLD_LIMIT, MAX_HOLD_LIMIT, MAX_TASK_LENGTH, toHoldFact } from './holds.js';
export { createMemoryStore } from './memory/store.js';
export { openSqliteStore, type SqliteStoreOptions } from './sqlite/store.js';
export {
  KIND_PATTERN,
  MAX_AUTHOR_LENGTH,
  MAX_BODY_BYTES,
  MAX_CONTEXT_PER_THREAD,
  MAX_CREW_DEPTH,
  MAX_RUN_ID_LENGTH,
} from './validate.js';
