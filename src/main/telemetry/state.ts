/**
 * Whether telemetry is asked for and running, without loading any of
 * OpenTelemetry: a process that does not trace loads none of it.
 */

let tracing = false;

/** True while an SDK records spans: adapters then read the incoming trace context (otherwise they skip it). */
export function tracingOn(): boolean {
  return tracing;
}

export function setTracing(on: boolean): void {
  tracing = on;
}

/** The instrumentation scope plangate's spans are recorded under. */
export const TRACER_NAME = 'plangate';

/** Whether the environment asks for telemetry: an OTLP endpoint, and the SDK not disabled. */
export function telemetryConfigured(env: NodeJS.ProcessEnv): boolean {
  if ((env['OTEL_SDK_DISABLED'] ?? '').trim().toLowerCase() === 'true') return false;
  return Boolean(env['OTEL_EXPORTER_OTLP_ENDPOINT'] || env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']);
}

/** Where the OPA-format decision log goes: a file or an `http(s)://` endpoint. */
export const OPA_DECISION_LOG_ENV = 'PLANGATE_OPA_DECISION_LOG';

/** The Prometheus registries (the HTTP service's, the gateway's) whose metrics also go out over OTLP while telemetry runs. */
export const sharedRegistries = new Set<object>();

/** Shares a Prometheus registry with OTLP while telemetry runs; does nothing otherwise. */
export function shareRegistry(registry: object): void {
  if (tracing) sharedRegistries.add(registry);
}
