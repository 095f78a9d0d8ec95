export { createGate, type Gate, type GateOptions, type GateStore, type DecideOptions } from './gate.js';
export { blockedEvent } from './refusals.js';
export { checkCall, toMillis, type CheckedCall } from './call.js';
export { gatherInput, type FactSource } from './facts.js';
export { createHolds, type Holds, type HoldsOptions, type HoldsStore, type HoldMessage } from './holds.js';
export { fileFact } from './files.js';
export { planningRefusalEvent, refusalError } from './refusals.js';
export { decideWithFacts, explainWithFacts } from './with-facts.js';
