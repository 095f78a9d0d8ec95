/**
 * The tool results plangate itself answers with: a refusal (the model reads
 * the instruction, plans and retries), an upstream that is down, and an
 * error of one of plangate's own tools. All are `isError: true` results
 * whose `structuredContent` carries `check`, `code` and `reason`.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { refusalCode } from '../../core/errors.js';
import type { Decision } from '../../core/types.js';

/** What `structuredContent` says about a call plangate did not forward. */
export interface NotForwarded {
  [key: string]: unknown;
  /** `plan_required`, `planning_hold`, `read_guard`, `upstream` or `plangate`. */
  check: string;
  /** E.g. `plan_required:write_file:none`, `upstream_down:fs`. */
  code: string;
  reason: string;
}

/** Why each check refuses, where the policy gives no finer reason. */
const REASONS: Record<string, string> = { planning_hold: 'held', read_guard: 'whole_file_too_large' };

/**
 * The read guard's reasons, by its status; a status not named here is its
 * own reason (`outside_roots`, `unsized`, `bad_path`, `withheld`,
 * `lines_unmeasured`).
 */
const READ_GUARD_REASONS: Record<string, string> = { over: 'whole_file_too_large', lines_over: 'lines_too_large' };

function readGuardReason(status: string | undefined): string | undefined {
  return status === undefined ? undefined : READ_GUARD_REASONS[status] ?? status;
}

/**
 * The tool result of a refused decision: the instruction as text, the code in `structuredContent`.
 *
 * @example
 * if (!decision.allowed) return refusalResult(decision);
 */
export function refusalResult(decision: Decision): CallToolResult {
  const check = decision.check ?? 'plan_required';
  const detail: NotForwarded = {
    check,
    code: refusalCode({ ...decision, check }),
    reason: decision.reason ?? readGuardReason(decision.readGuard?.status) ?? REASONS[check] ?? 'refused',
  };
  return errorResult(decision.message ?? detail.code, detail);
}

/**
 * An `isError` result with text for the model and its detail.
 *
 * @example
 * errorResult('upstream fs is down', { check: 'upstream', code: 'upstream_down:fs', reason: 'down' })
 */
export function errorResult(text: string, detail: NotForwarded): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: detail, isError: true };
}

/** The JSON Schema of {@link NotForwarded}. */
const NOT_FORWARDED_SCHEMA = {
  type: 'object',
  properties: { check: { type: 'string' }, code: { type: 'string' }, reason: { type: 'string' } },
  required: ['check', 'code', 'reason'],
} as const;

/**
 * A tool's `outputSchema` as the gateway lists it: the upstream's, or
 * plangate's answer when it did not forward the call. A client that checks
 * `structuredContent` against the schema (the SDK's `Client` does, errors
 * included) then accepts a refusal. `$schema` and `$defs` stay at the top,
 * where references into them resolve.
 *
 * @example
 * withNotForwarded({ type: 'object', properties: { content: { type: 'string' } } }).anyOf.length // 2
 */
export function withNotForwarded(schema: Tool['outputSchema']): Tool['outputSchema'] {
  if (!schema) return schema;
  const { $schema, $defs, definitions, ...rest } = schema as Record<string, unknown>;
  return {
    ...($schema !== undefined ? { $schema } : {}),
    ...($defs !== undefined ? { $defs } : {}),
    ...(definitions !== undefined ? { definitions } : {}),
    type: 'object',
    anyOf: [rest, NOT_FORWARDED_SCHEMA],
  } as Tool['outputSchema'];
}
