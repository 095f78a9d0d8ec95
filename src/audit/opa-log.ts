/**
 * Decisions in OPA's decision-log format
 * (https://www.openpolicyagent.org/docs/management-decision-logs), so a
 * pipeline built for OPA reads plangate's decisions unchanged: one event per
 * decision with `decision_id`, `path`, `input`, `result`, `timestamp`,
 * `labels`, `bundles` and, where the call came with a trace, `trace_id` and
 * `span_id`. Argument values are masked as OPA's masking does (the value
 * replaced, its JSON pointer listed under `masked`); the input never holds a
 * message body (the policy sees message facts only).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Decision, PolicyInput } from '../core/types.js';

/** The entrypoint the decision path names (the policy's hot entrypoint). */
export const OPA_LOG_PATH = 'plangate/decide';
/** What a masked value is replaced with. */
export const MASKED_VALUE = '**MASKED**';

/** One event, as OPA's decision logger writes it. */
export interface OpaDecisionEvent {
  decision_id: string;
  path: string;
  input: unknown;
  result: unknown;
  timestamp: string;
  labels: Record<string, string>;
  bundles?: Record<string, { revision: string }>;
  masked?: string[];
  erased?: string[];
  trace_id?: string;
  span_id?: string;
  metrics?: Record<string, number>;
}

export interface OpaEventOptions {
  /** The instance's labels (`id` and `version` are always there, as in OPA). */
  labels: Record<string, string>;
  /** The rules' revision, reported as the `plangate` bundle's. */
  revision?: string;
  /** Leave the argument values in (off: they may hold secrets or counterparties). */
  unmasked?: boolean;
  trace?: { traceId: string; spanId: string };
  /** Time spent deciding, in nanoseconds (OPA's `timer_server_handler_ns`). */
  durationNs?: number;
}

/** The labels OPA puts on every event: an instance id, the version, and the host's name as `app`. */
export function instanceLabels(version: string): Record<string, string> {
  return { id: randomUUID(), version, app: 'plangate', host: hostname() };
}

/** Encodes one JSON pointer token (RFC 6901). */
function pointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * One decision as OPA's event.
 *
 * @example
 * opaEvent(input, decision, { labels: instanceLabels('0.1.0'), revision: 'ab12…' }).masked // ['/input/call/args/path']
 */
export function opaEvent(input: PolicyInput, decision: Decision, options: OpaEventOptions): OpaDecisionEvent {
  const masked: string[] = [];
  let shown: PolicyInput = input;
  const args = input.call.args;
  if (!options.unmasked && args && Object.keys(args).length > 0) {
    const replaced: Record<string, unknown> = {};
    for (const key of Object.keys(args)) {
      replaced[key] = MASKED_VALUE;
      masked.push(`/input/call/args/${pointerToken(key)}`);
    }
    shown = { ...input, call: { ...input.call, args: replaced } };
  }
  return {
    decision_id: randomUUID(),
    path: OPA_LOG_PATH,
    input: shown,
    result: decision,
    timestamp: new Date(input.now).toISOString(),
    labels: options.labels,
    ...(options.revision ? { bundles: { plangate: { revision: options.revision } } } : {}),
    ...(masked.length ? { masked } : {}),
    ...(options.trace ? { trace_id: options.trace.traceId, span_id: options.trace.spanId } : {}),
    ...(options.durationNs !== undefined ? { metrics: { timer_server_handler_ns: options.durationNs } } : {}),
  };
}
