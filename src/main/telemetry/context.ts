/**
 * The caller's trace context, so that a decision's span sits inside the
 * agent's own trace: W3C Trace Context (`traceparent`, `tracestate`) from an
 * HTTP request's headers, and from an MCP request's `params._meta`, where
 * OpenTelemetry's semantic conventions for MCP carry it
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/, "Context
 * propagation"). Read only while tracing is on.
 */
import { context, propagation, ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import { tracingOn } from './state.js';

const getter = {
  keys: (carrier: Record<string, unknown>) => Object.keys(carrier),
  get(carrier: Record<string, unknown>, key: string): string | undefined {
    const v = carrier[key];
    return typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined;
  },
};

/**
 * Runs `fn` inside the trace context `carrier` names (HTTP headers, or an MCP
 * request's `_meta`); just runs it while tracing is off or the carrier names none.
 *
 * @example
 * await withCallerTrace(req.headers, () => gate.decide(call));
 */
export function withCallerTrace<T>(carrier: Record<string, unknown> | undefined, fn: () => T): T {
  if (!tracingOn() || carrier === undefined || carrier['traceparent'] === undefined) return fn();
  const ctx: Context = propagation.extract(ROOT_CONTEXT, carrier, getter);
  return context.with(ctx, fn);
}
