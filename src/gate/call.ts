/**
 * Validating a call before it reaches the policy: a malformed call is an
 * error with a reason, never a decision.
 */
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { ErrorCode, PlangateError, type Problem } from '../core/errors.js';
import { checkJson, checkText } from '../core/json.js';
import { RESERVED_IDS } from '../core/threads.js';
import type { Call, ToolHints } from '../core/types.js';
import { validate as validateCallSchema } from './generated/call-validator.js';

/**
 * The call schema (schemas/call.schema.json) as a standalone validator,
 * generated at build time (scripts/build-validators.mjs): nothing compiles
 * it when a process starts.
 */
const validate = validateCallSchema as ValidateFunction;

/** A call after validation, with its time resolved to epoch milliseconds. */
export interface CheckedCall {
  agent: string;
  tool: string;
  runId?: string;
  delegatedBy: string[];
  now: number;
  args?: Record<string, unknown>;
  omittedArgs?: string[];
  annotations?: ToolHints;
  /** The whole arguments an approval is bound to, when `args` is a trimmed view (never given to the policy). */
  callArgs?: Record<string, unknown>;
}

/** Largest `call.args`, as JSON in UTF-8 bytes. */
export const MAX_ARGS_BYTES = 64 * 1024;

/**
 * Validates a call and resolves its time.
 *
 * @example
 * checkCall({ agent: '0xW', tool: 'github.merge' }, Date.now()).delegatedBy // []
 */
export function checkCall(call: unknown, defaultNow: number): CheckedCall {
  // The whole arguments are the host's, for the approval digest only: kept apart from what the schema checks.
  const callArgs = call instanceof Object ? (call as Call).callArgs : undefined;
  const bare = callArgs === undefined ? call : withoutCallArgs(call as Call);
  const input = bare instanceof Object && 'at' in bare && (bare as Call).at instanceof Date
    ? { ...(bare as Call), at: ((bare as Call).at as Date).toISOString() }
    : bare;
  if (!validate(input)) {
    const problems = (validate.errors ?? []).map(toProblem);
    throw new PlangateError(ErrorCode.InvalidInput, `invalid call: ${problems.map((p) => p.message).join('; ')}`, problems);
  }
  const c = input as Omit<Call, 'at'> & { at?: number | string };
  // A lone surrogate in any field (the run id, an argument, a key) would reach the policy altered: refuse it.
  checkJson(c, 'call');
  // The run id is looked up in the store: text it cannot hold is refused here, as for a message's.
  checkText(c.runId, 'call.runId');
  checkNotReserved(c.agent);
  if (c.delegatedBy !== undefined) for (const id of c.delegatedBy) checkNotReserved(id);
  if (c.args !== undefined) {
    let text: string;
    try {
      text = JSON.stringify(c.args);
    } catch {
      throw new PlangateError(ErrorCode.InvalidInput, 'invalid call: call.args must be plain JSON');
    }
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > MAX_ARGS_BYTES) {
      throw new PlangateError(ErrorCode.InvalidInput, `invalid call: call.args is ${bytes} bytes as JSON, more than ${MAX_ARGS_BYTES}; leave out large values such as file contents`);
    }
  }
  const checked: CheckedCall = {
    agent: c.agent,
    tool: c.tool,
    delegatedBy: c.delegatedBy ?? [],
    now: c.at === undefined ? defaultNow : toMillis(c.at, 'call.at'),
  };
  if (c.runId !== undefined) checked.runId = c.runId;
  if (c.args !== undefined) checked.args = c.args;
  if (c.omittedArgs !== undefined) checked.omittedArgs = c.omittedArgs;
  if (c.annotations !== undefined) checked.annotations = c.annotations;
  if (callArgs !== undefined) {
    if (typeof callArgs !== 'object' || callArgs === null || Array.isArray(callArgs)) throw new PlangateError(ErrorCode.InvalidInput, 'invalid call: call.callArgs must be an object');
    checked.callArgs = callArgs;
  }
  return checked;
}

function checkNotReserved(id: string): void {
  if (RESERVED_IDS.has(id)) {
    throw new PlangateError(ErrorCode.InvalidInput, `invalid call: "${id}" is a reserved name, not an agent id`);
  }
}

/**
 * Epoch milliseconds from an integer or an ISO-8601 date-time string.
 *
 * @example
 * toMillis('2026-01-01T00:00:00Z', 'at') // 1767225600000
 */
export function toMillis(value: number | string | Date, field: string): number {
  const ms = value instanceof Date ? value.getTime()
    : typeof value === 'number' ? value
    : /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : NaN;
  if (!Number.isSafeInteger(ms) || ms < 0) {
    throw new PlangateError(ErrorCode.InvalidInput, `${field} must be epoch milliseconds or an ISO-8601 date-time (got ${JSON.stringify(value)})`);
  }
  if (ms > MAX_CALL_TIME) {
    throw new PlangateError(ErrorCode.InvalidInput, `${field} must be before ${new Date(MAX_CALL_TIME).toISOString()} (got ${JSON.stringify(value)})`);
  }
  return ms;
}

/**
 * The latest time a call may be decided at (2100-01-01): far past any plan
 * or run, and far below the magnitudes at which the policy's arithmetic on
 * times (ages in minutes, formatted) stops working.
 */
export const MAX_CALL_TIME = Date.UTC(2100, 0, 1);

/** The call without its whole arguments (a copy, made only for a call that has them). */
function withoutCallArgs(call: Call): Omit<Call, 'callArgs'> {
  const { callArgs: _, ...rest } = call;
  return rest;
}

function toProblem(e: ErrorObject): Problem {
  const where = 'call' + e.instancePath.replace(/\//g, '.');
  if (e.keyword === 'additionalProperties') {
    return { path: e.instancePath, message: `${where}: unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"` };
  }
  if (e.keyword === 'required') {
    return { path: e.instancePath, message: `${where}.${(e.params as { missingProperty: string }).missingProperty} is required` };
  }
  return { path: e.instancePath, message: `${where} ${e.message ?? 'is invalid'}` };
}
