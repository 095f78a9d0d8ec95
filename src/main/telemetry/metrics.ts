/**
 * plangate's Prometheus metrics over OTLP too, with the same names and
 * labels, so one collector takes both: a metric producer that reads the
 * prom-client registries (the HTTP service's, the gateway's) at each export
 * and hands their counters, gauges and histograms to the SDK's periodic
 * reader as cumulative OpenTelemetry data points.
 */
import { ValueType, type Attributes, type HrTime } from '@opentelemetry/api';
import { AggregationTemporality, DataPointType, type CollectionResult, type MetricData, type MetricProducer } from '@opentelemetry/sdk-metrics';
import { emptyResource } from '@opentelemetry/resources';
import type { MetricObjectWithValues, MetricValue, MetricValueWithName, Registry } from 'prom-client';

function hrNow(): HrTime {
  const ms = Date.now();
  return [Math.floor(ms / 1000), (ms % 1000) * 1e6];
}

function attributesOf(labels: Record<string, string | number | undefined>, drop?: string): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(labels)) if (k !== drop && v !== undefined) out[k] = v;
  return out;
}

/** One prom-client histogram as OpenTelemetry histogram points: one per label set, buckets made per-bucket from cumulative. */
function histogram(m: MetricObjectWithValues<MetricValueWithName<string>>, start: HrTime, end: HrTime): MetricData {
  const series = new Map<string, { attributes: Attributes; bounds: Array<[number, number]>; sum: number; count: number }>();
  for (const v of m.values) {
    const attributes = attributesOf(v.labels, 'le');
    const key = JSON.stringify(attributes);
    const s = series.get(key) ?? { attributes, bounds: [], sum: 0, count: 0 };
    series.set(key, s);
    if (v.metricName?.endsWith('_bucket')) {
      const le = v.labels['le'];
      if (le !== '+Inf' && le !== undefined) s.bounds.push([Number(le), v.value]);
    } else if (v.metricName?.endsWith('_sum')) s.sum = v.value;
    else if (v.metricName?.endsWith('_count')) s.count = v.value;
  }
  return {
    descriptor: { name: m.name, description: m.help, unit: '', valueType: ValueType.DOUBLE },
    aggregationTemporality: AggregationTemporality.CUMULATIVE,
    dataPointType: DataPointType.HISTOGRAM,
    dataPoints: [...series.values()].map((s) => {
      s.bounds.sort((a, b) => a[0] - b[0]);
      const counts: number[] = [];
      let below = 0;
      for (const [, cumulative] of s.bounds) {
        counts.push(cumulative - below);
        below = cumulative;
      }
      counts.push(s.count - below);
      return { startTime: start, endTime: end, attributes: s.attributes, value: { buckets: { boundaries: s.bounds.map((b) => b[0]), counts }, sum: s.sum, count: s.count } };
    }),
  };
}

function scalar(m: MetricObjectWithValues<MetricValue<string>>, start: HrTime, end: HrTime): MetricData {
  const dataPoints = m.values.map((v) => ({ startTime: start, endTime: end, attributes: attributesOf(v.labels), value: v.value }));
  const descriptor = { name: m.name, description: m.help, unit: '', valueType: ValueType.DOUBLE };
  // prom-client's JSON names the type as a string ('counter', 'gauge', …), whatever its typings say.
  return (m.type as unknown as string) === 'counter'
    ? { descriptor, aggregationTemporality: AggregationTemporality.CUMULATIVE, dataPointType: DataPointType.SUM, isMonotonic: true, dataPoints }
    : { descriptor, aggregationTemporality: AggregationTemporality.CUMULATIVE, dataPointType: DataPointType.GAUGE, dataPoints };
}

/**
 * The producer the periodic reader asks at each export.
 *
 * @example
 * new PeriodicExportingMetricReader({ exporter, metricProducers: [registryProducer(registries)] });
 */
export function registryProducer(registries: ReadonlySet<Registry>): MetricProducer {
  const start = hrNow();
  return {
    async collect(): Promise<CollectionResult> {
      const end = hrNow();
      const metrics: MetricData[] = [];
      const errors: unknown[] = [];
      for (const registry of registries) {
        try {
          for (const m of await registry.getMetricsAsJSON()) {
            const type = m.type as unknown as string;
            if (type === 'histogram') metrics.push(histogram(m as MetricObjectWithValues<MetricValueWithName<string>>, start, end));
            else if (type === 'counter' || type === 'gauge') metrics.push(scalar(m as MetricObjectWithValues<MetricValue<string>>, start, end));
          }
        } catch (error) {
          errors.push(error);
        }
      }
      return { resourceMetrics: { resource: emptyResource(), scopeMetrics: [{ scope: { name: 'plangate' }, metrics }] }, errors };
    },
  };
}
