export { createGate, blockedEvent, type Gate, type GateOptions, type GateStore, type DecideOptions } from './gate.js';
export { checkCall, toMillis, type CheckedCall } from './call.js';
export { gatherInput, type FactSource } from './facts.js';
