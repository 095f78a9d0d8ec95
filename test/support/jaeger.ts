/**
 * Jaeger for the telemetry tests: a real OpenTelemetry receiver (OTLP over
 * HTTP in, Jaeger's query API out), started on loopback ports of its own with
 * an in-memory store. `.ci/run` builds the pinned version into `.tools/bin`
 * (tools/jaeger/go.mod); in CI a missing binary fails the suite, locally the
 * tests that need it are skipped with one loud line naming them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { freePort } from '../http/opa-server.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const LOCAL = join(import.meta.dirname, '..', '..', '.tools', 'bin', 'jaeger');

export function findJaeger(what: string): string | undefined {
  for (const candidate of [LOCAL, 'jaeger']) {
    if (spawnSync(candidate, ['version'], { encoding: 'utf8' }).status === 0) return candidate;
  }
  if (process.env['CI'] === 'true') throw new Error(`jaeger is not installed in CI: ${what} must run; .ci/run builds it into .tools/bin`);
  process.stderr.write(`\n!!! SKIPPED (no jaeger): ${what} — build it with: cd tools/jaeger && go build -o ../../.tools/bin/jaeger github.com/jaegertracing/jaeger/cmd/jaeger\n\n`);
  return undefined;
}


export interface Jaeger {
  /** The OTLP/HTTP endpoint, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  otlp: string;
  /** Jaeger's query API, e.g. `${query}/api/traces/${traceId}`. */
  query: string;
  /** The spans of a trace, waiting until at least `atLeast` arrived (or the wait ends). */
  spans(traceId: string, atLeast: number, ms?: number): Promise<JaegerSpan[]>;
  stop(): Promise<void>;
}

export interface JaegerSpan {
  operationName: string;
  spanID: string;
  traceID: string;
  references: Array<{ refType: string; spanID: string; traceID: string }>;
  tags: Array<{ key: string; type: string; value: unknown }>;
}

export async function startJaeger(bin: string): Promise<Jaeger> {
  const [otlpPort, httpPort, grpcPort] = [await freePort(), await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), 'plangate-jaeger-'));
  const config = join(dir, 'config.yaml');
  writeFileSync(config, `
service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${httpPort}
    grpc:
      endpoint: 127.0.0.1:${grpcPort}
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${otlpPort}
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`);
  const child: ChildProcess = spawn(bin, ['--config', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (b) => { log += String(b); });
  const query = `http://127.0.0.1:${httpPort}`;
  const end = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${query}/api/services`)).ok) break;
    } catch { /* not up yet */ }
    if (child.exitCode !== null || Date.now() > end) throw new Error(`jaeger did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    otlp: `http://127.0.0.1:${otlpPort}`,
    query,
    async spans(traceId, atLeast, ms = 15_000) {
      const until = Date.now() + ms;
      let spans: JaegerSpan[] = [];
      for (;;) {
        const res = await fetch(`${query}/api/traces/${traceId}`);
        if (res.ok) {
          const body = await res.json() as { data?: Array<{ spans: JaegerSpan[] }> };
          spans = body.data?.[0]?.spans ?? [];
          if (spans.length >= atLeast) return spans;
        }
        if (Date.now() > until) return spans;
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** A span's tags as a record. */
export function tagsOf(span: JaegerSpan): Record<string, unknown> {
  return Object.fromEntries(span.tags.map((t) => [t.key, t.value]));
}
