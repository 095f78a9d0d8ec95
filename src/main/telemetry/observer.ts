/**
 * Decisions as OpenTelemetry spans: one `plangate.decide` span per decision
 * (child of whatever span is active where the call came in: an HTTP
 * request's `traceparent`, an MCP request's `_meta`), with one child span per
 * step (`plangate.facts`, `plangate.evaluate`). The attributes say who asked
 * for what and how it was decided, and never carry a message body or an
 * argument's value.
 */
import { context, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import type { Decision } from '../../core/types.js';
import type { DecisionObserver, DecisionStep } from '../../gate/observe.js';

/** The decision span's attributes, from the decision (never its arguments, never a body). */
export function decisionAttributes(decision: Decision, crews?: readonly string[]): Attributes {
  const mode = decision.settings.mode;
  const attributes: Attributes = {
    'plangate.allowed': decision.allowed,
    'plangate.class': decision.class,
    'plangate.gated': decision.gated,
    'plangate.mode': mode.value,
    'plangate.rule.scope': mode.scope,
  };
  if (crews && crews.length > 0) attributes['plangate.crew'] = crews[0];
  if (mode.id !== undefined) attributes['plangate.rule.id'] = mode.id;
  if (mode.source !== undefined) attributes['plangate.rule.source'] = mode.source;
  if (decision.check !== undefined) attributes['plangate.check'] = decision.check;
  if (decision.code !== undefined) attributes['plangate.code'] = decision.code;
  if (decision.shadow === true) attributes['plangate.shadow'] = true;
  if (decision.failOpen) attributes['plangate.fail_open'] = decision.failOpen.cause;
  if (decision.failClosed) attributes['plangate.fail_closed'] = decision.failClosed.cause;
  if (decision.run) attributes['plangate.run.status'] = decision.run.status;
  return attributes;
}

/**
 * A decision observer that records spans with `tracer`.
 *
 * @example
 * createGate({ engine, store, observer: spanObserver(trace.getTracer('plangate')) });
 */
export function spanObserver(tracer: Tracer): DecisionObserver {
  return {
    begin(call) {
      const span = tracer.startSpan('plangate.decide', {
        attributes: { 'plangate.seat': call.agent, 'plangate.tool': call.tool, ...(call.runId !== undefined ? { 'plangate.run.id': call.runId } : {}) },
      });
      const within = trace.setSpan(context.active(), span);
      return {
        ...(span.isRecording() ? { traceId: span.spanContext().traceId } : {}),
        step<T>(name: DecisionStep, run: () => T): T {
          const child = tracer.startSpan(`plangate.${name}`, {}, within);
          let result: T;
          try {
            result = context.with(trace.setSpan(within, child), run);
          } catch (error) {
            failed(child, error);
            child.end();
            throw error;
          }
          if (result instanceof Promise) {
            return result.then(
              (value) => { child.end(); return value; },
              (error: unknown) => { failed(child, error); child.end(); throw error; },
            ) as T;
          }
          child.end();
          return result;
        },
        end(outcome) {
          if ('error' in outcome) failed(span, outcome.error);
          else span.setAttributes(decisionAttributes(outcome.decision, outcome.crews));
          span.end();
        },
      };
    },
  };
}

/**
 * Marks a span failed with the error's type only: plangate's error code, or
 * the error's name. Its message may quote what the caller sent.
 */
function failed(span: Span, error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  const type = typeof code === 'string' ? code : error instanceof Error ? error.name : 'Error';
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
  span.setAttribute('error.type', type);
}
