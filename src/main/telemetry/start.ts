/**
 * OpenTelemetry, on when the deployment configures an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`)
 * and `OTEL_SDK_DISABLED` is not `true`; off otherwise, and then nothing of
 * the SDK is loaded. The SDK for Node reads the standard `OTEL_*` variables
 * itself (service name, protocol, headers, sampler, resource attributes). One
 * SDK per process, shared by every plangate opened in it and shut down
 * (flushing what it holds) when the last of them closes.
 */
import { trace } from '@opentelemetry/api';
import type { DecisionObserver } from '../../gate/observe.js';
import { pooledIdGenerator } from './ids.js';
import { spanObserver } from './observer.js';
import { setTracing, sharedRegistries, telemetryConfigured, TRACER_NAME } from './state.js';

export interface Telemetry {
  /** Watches decisions as spans. */
  observer: DecisionObserver;
  /** Gives up this holder's share; the last one shuts the SDK down, flushing its spans. */
  release(): Promise<void>;
}

let shared: { sdk: { shutdown(): Promise<void> }; holders: number } | undefined;

/**
 * Starts (or joins) the process's SDK when the environment asks for it;
 * undefined when it does not.
 *
 * @example
 * const telemetry = await startTelemetry(process.env); // with OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318
 * createGate({ engine, store, ...(telemetry ? { observer: telemetry.observer } : {}) });
 */
export async function startTelemetry(env: NodeJS.ProcessEnv, version?: string): Promise<Telemetry | undefined> {
  if (!telemetryConfigured(env)) return undefined;
  if (!shared) {
    const { NodeSDK } = await import('@opentelemetry/sdk-node');
    const metricReaders = await metricReadersFor(env);
    // No automatic instrumentations: plangate records its own spans, and only those.
    // Ids from a pool: the SDK makes two for every decision, sampled out or not (ids.ts).
    const sdk = new NodeSDK({
      serviceName: env['OTEL_SERVICE_NAME'] || 'plangate', instrumentations: [], idGenerator: pooledIdGenerator(),
      ...(metricReaders.length ? { metricReaders } : {}),
    });
    sdk.start();
    shared = { sdk, holders: 0 };
    setTracing(true);
  }
  shared.holders++;
  let released = false;
  return {
    observer: spanObserver(trace.getTracer(TRACER_NAME, version)),
    async release() {
      if (released || !shared) return;
      released = true;
      if (--shared.holders > 0) return;
      const { sdk } = shared;
      shared = undefined;
      setTracing(false);
      await sdk.shutdown();
    },
  };
}

/**
 * The metrics reader: plangate's Prometheus metrics, exported over OTLP every
 * `OTEL_METRIC_EXPORT_INTERVAL` ms (60 s by default), unless
 * `OTEL_METRICS_EXPORTER` is `none`. The protocol is
 * `OTEL_EXPORTER_OTLP_METRICS_PROTOCOL` or `OTEL_EXPORTER_OTLP_PROTOCOL`:
 * `http/protobuf` (the default) or `http/json`.
 */
async function metricReadersFor(env: NodeJS.ProcessEnv) {
  if ((env['OTEL_METRICS_EXPORTER'] ?? 'otlp').trim() === 'none') return [];
  const protocol = (env['OTEL_EXPORTER_OTLP_METRICS_PROTOCOL'] || env['OTEL_EXPORTER_OTLP_PROTOCOL'] || 'http/protobuf').trim();
  const [{ PeriodicExportingMetricReader }, { registryProducer }, { OTLPMetricExporter }] = await Promise.all([
    import('@opentelemetry/sdk-metrics'),
    import('./metrics.js'),
    protocol === 'http/json' ? import('@opentelemetry/exporter-metrics-otlp-http') : import('@opentelemetry/exporter-metrics-otlp-proto'),
  ]);
  const interval = Number(env['OTEL_METRIC_EXPORT_INTERVAL'] || 60_000);
  return [new PeriodicExportingMetricReader({
    exporter: new OTLPMetricExporter(),
    metricProducers: [registryProducer(sharedRegistries as Set<never>)],
    exportIntervalMillis: Number.isFinite(interval) && interval > 0 ? interval : 60_000,
  })];
}
