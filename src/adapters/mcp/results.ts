/**
 * The tool results plangate itself answers with: a refusal (the model reads
 * the instruction, plans and retries), an upstream that is down, and an
 * error of one of plangate's own tools. All are `isError: true` results
 * whose `structuredContent` carries `check`, `code` and `reason`.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Decision } from '../../core/types.js';
import { refusalOf } from '../../gate/tool-call.js';

/** What `structuredContent` says about a call plangate did not forward. */
export interface NotForwarded {
  [key: string]: unknown;
  /** `plan_required`, `planning_hold`, `read_guard`, `upstream` or `plangate`. */
  check: string;
  /** E.g. `plan_required:write_file:none`, `upstream_down:fs`. */
  code: string;
  reason: string;
}

/**
 * The tool result of a refused decision: the instruction as text, the code in `structuredContent`.
 *
 * @example
 * if (!decision.allowed) return refusalResult(decision);
 */
export function refusalResult(decision: Decision): CallToolResult {
  const r = refusalOf(decision);
  return errorResult(r.text, { check: r.check, code: r.code, reason: r.reason });
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
