/**
 * The OPA-format decision log as plangate opens it: events made from each
 * decision (src/audit/opa-log.ts), with the trace the decision was made in,
 * sent to a file or an endpoint (src/audit/opa-log-sink.ts).
 */
import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import { instanceLabels, opaEvent } from '../../audit/opa-log.js';
import { openOpaLogSink } from '../../audit/opa-log-sink.js';
import type { Decision, PolicyInput } from '../../core/types.js';
import { plangateVersion } from '../version.js';

/** A bearer token for the endpoint, if it needs one. */
export const OPA_DECISION_LOG_TOKEN_ENV = 'PLANGATE_OPA_DECISION_LOG_TOKEN';
/** `true` leaves argument values unmasked in the events (they may hold secrets or counterparties). */
export const OPA_DECISION_LOG_UNMASKED_ENV = 'PLANGATE_OPA_DECISION_LOG_UNMASKED';

export interface OpaLog {
  record(input: PolicyInput, decision: Decision, revision?: string): void;
  close(): Promise<void>;
}

/**
 * Opens the OPA-format decision log at `target`.
 *
 * @example
 * const log = openOpaLog('.data/opa-decisions.jsonl', process.env);
 * log.record(input, decision, revision);
 */
export function openOpaLog(target: string, env: NodeJS.ProcessEnv): OpaLog {
  const token = env[OPA_DECISION_LOG_TOKEN_ENV] || undefined;
  const sink = openOpaLogSink(target, token ? { token } : {});
  const labels = instanceLabels(plangateVersion());
  const unmasked = env[OPA_DECISION_LOG_UNMASKED_ENV] === 'true';
  return {
    record(input, decision, revision) {
      const span = trace.getSpanContext(context.active());
      const traced = span && isSpanContextValid(span) ? { trace: { traceId: span.traceId, spanId: span.spanId } } : {};
      sink.record(opaEvent(input, decision, { labels, ...(revision ? { revision } : {}), ...(unmasked ? { unmasked } : {}), ...traced }));
    },
    close: () => sink.close(),
  };
}
