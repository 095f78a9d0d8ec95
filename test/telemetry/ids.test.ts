/**
 * The ids plangate's SDK makes spans with (src/main/telemetry/ids.ts): the
 * form the SDK's own generator gives them, never all zeros, distinct across
 * many pool refills, random enough that a trace-id ratio sampler samples the
 * ratio it is set to, and the trace id the sampler decided by is the id the
 * recorded span carries.
 */
import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import {
  InMemorySpanExporter, SamplingDecision, SimpleSpanProcessor, TraceIdRatioBasedSampler, TracerProvider, type Sampler,
} from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { pooledIdGenerator } from '../../src/main/telemetry/ids.js';

describe('pooled trace and span ids', () => {
  it('are lowercase hex of 32 and 16 characters, and distinct across many refills of the pool', () => {
    const ids = pooledIdGenerator();
    const traces = new Set<string>();
    const spans = new Set<string>();
    for (let i = 0; i < 5_000; i++) {
      const t = ids.generateTraceId();
      const s = ids.generateSpanId();
      expect(t).toMatch(/^[0-9a-f]{32}$/);
      expect(s).toMatch(/^[0-9a-f]{16}$/);
      traces.add(t);
      spans.add(s);
    }
    expect(traces.size).toBe(5_000);
    expect(spans.size).toBe(5_000);
  });

  it('an all-zero draw gets its last byte set to 1, as the SDK does; other ids are left as drawn', () => {
    // Zeros for the first trace id, 0xab after: the span id drawn next is not touched.
    const ids = pooledIdGenerator((into) => { into.fill(0xab); into.fill(0, 0, 16); });
    expect(ids.generateTraceId()).toBe(`${'0'.repeat(30)}01`);
    expect(ids.generateSpanId()).toBe('ab'.repeat(8));
    const zeros = pooledIdGenerator((into) => into.fill(0));
    expect(zeros.generateSpanId()).toBe(`${'0'.repeat(14)}01`);
    expect(zeros.generateTraceId()).toBe(`${'0'.repeat(30)}01`);
  });

  it('a trace-id ratio sampler samples the ratio it is set to', () => {
    const ids = pooledIdGenerator();
    const sampler = new TraceIdRatioBasedSampler(0.25);
    let sampled = 0;
    const n = 40_000;
    for (let i = 0; i < n; i++) {
      if (sampler.shouldSample(ROOT_CONTEXT, ids.generateTraceId()).decision === SamplingDecision.RECORD_AND_SAMPLED) sampled++;
    }
    // 25 % of 40,000 is 10,000 with a standard deviation near 87: ±500 is more than five of them.
    expect(Math.abs(sampled - n / 4)).toBeLessThan(500);
  });

  it('the SDK decides by the trace id the span then carries, and gives the span its own span id', () => {
    const seen: string[] = [];
    const ratio = new TraceIdRatioBasedSampler(0.5);
    const recording: Sampler = {
      shouldSample(ctx, traceId) { seen.push(traceId); return ratio.shouldSample(ctx, traceId); },
      toString: () => 'recording',
    };
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ sampler: recording, idGenerator: pooledIdGenerator(), spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const tracer = provider.getTracer('plangate');
    for (let i = 0; i < 200; i++) tracer.startSpan('plangate.decide', { kind: SpanKind.INTERNAL }).end();
    const recorded = exporter.getFinishedSpans().map((s) => s.spanContext());
    expect(recorded.length).toBeGreaterThan(50);
    expect(recorded.length).toBeLessThan(150);
    for (const c of recorded) expect(seen).toContain(c.traceId);
    expect(new Set(recorded.map((c) => c.spanId)).size).toBe(recorded.length);
    expect(recorded.every((c) => !seen.includes(c.spanId))).toBe(true);
  });
});
