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
import { spanObserver } from './observer.js';
import { setTracing, telemetryConfigured, TRACER_NAME } from './state.js';

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
    // No automatic instrumentations: plangate records its own spans, and only those.
    const sdk = new NodeSDK({ serviceName: env['OTEL_SERVICE_NAME'] || 'plangate', instrumentations: [] });
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
