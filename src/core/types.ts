/**
 * The vocabulary of plangate, by concept: the rules (rules.ts), a call
 * (call.ts), the facts the policy is given (facts.ts) and its answer
 * (decision.ts). This module imports nothing else; every layer depends on it.
 */
export * from './rules.js';
export * from './call.js';
export * from './facts.js';
export * from './decision.js';
export * from './quotas.js';
export * from './approvals.js';
export type { PatternEntry, PatternShape, ToolMatchIndex } from './patterns.js';
