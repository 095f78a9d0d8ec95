/**
 * The decision span as the SDK records it (an in-memory exporter, the real
 * tracer): its attributes, its two steps, the trace id a refusal's audit
 * event names, nothing of the arguments, and no span work at all while the
 * trace is sampled out (the sampler asked once, for the decision span); a
 * parent-based sampler follows the caller's sampled flag.
 */
import { randomBytes } from 'node:crypto';
import { context, ROOT_CONTEXT, trace, TraceFlags, type Context } from '@opentelemetry/api';
import {
  AlwaysOffSampler, AlwaysOnSampler, InMemorySpanExporter, ParentBasedSampler, SamplingDecision, SimpleSpanProcessor, StackContextManager, TracerProvider, type Sampler,
} from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryAuditSink } from '../../src/audit/memory.js';
import { Engine } from '../../src/engine/policy.js';
import { createMemoryStore } from '../../src/facts/memory/store.js';
import { createGate } from '../../src/gate/gate.js';
import { spanObserver } from '../../src/main/telemetry/observer.js';
import { checkRules } from '../../src/rules/load.js';

const CANARY = `canary-${randomBytes(8).toString('hex')}`;

async function traced(sampled: boolean | Sampler) {
  const rules = checkRules([{ file: 'rules.yaml', text: 'planRequired:\n  workspace: { mode: side_effects, windowMin: 30 }\n' }]);
  const engine = await Engine.load({ data: rules.data!, rulesRevision: 't' });
  const exporter = new InMemorySpanExporter();
  const sampler = typeof sampled === 'boolean' ? (sampled ? new AlwaysOnSampler() : new AlwaysOffSampler()) : sampled;
  const provider = new TracerProvider({ sampler, spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const audit = createMemoryAuditSink();
  const gate = createGate({ engine, store: createMemoryStore(), audit, observer: spanObserver(provider.getTracer('plangate')) });
  return { gate, audit, exporter };
}

describe('the decision span', () => {
  it('records the decision and its two steps; the refusal\'s audit event names its trace; no argument value anywhere', async () => {
    const { gate, audit, exporter } = await traced(true);
    const d = await gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request', runId: 'r-1', args: { title: CANARY } });
    expect(d.allowed).toBe(false);
    const spans = exporter.getFinishedSpans();
    const decide = spans.find((s) => s.name === 'plangate.decide')!;
    expect(decide.attributes).toMatchObject({
      'plangate.seat': '0xWORKER', 'plangate.tool': 'github.merge_pull_request', 'plangate.allowed': false, 'plangate.class': 'effect',
      'plangate.code': 'plan_required:github.merge_pull_request:none', 'plangate.check': 'plan_required', 'plangate.mode': 'side_effects',
      'plangate.rule.scope': 'workspace', 'plangate.rule.source': 'rules.yaml:2:3', 'plangate.run.id': 'r-1',
    });
    for (const step of ['plangate.facts', 'plangate.evaluate']) {
      const s = spans.find((x) => x.name === step)!;
      expect(s.parentSpanContext?.spanId).toBe(decide.spanContext().spanId);
    }
    expect(audit.events[0]).toMatchObject({ type: 'PlanRequiredBlocked', traceId: decide.spanContext().traceId });
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain(CANARY);
  });

  it('an invalid call ends its span as an error named by its code, not its message', async () => {
    const { gate, exporter } = await traced(true);
    await expect(gate.decide({ agent: '0xWORKER', tool: '', args: { title: CANARY } })).rejects.toThrow();
    const decide = exporter.getFinishedSpans().find((s) => s.name === 'plangate.decide')!;
    expect(decide.attributes['error.type']).toBe('invalid_input');
    expect(decide.status).toMatchObject({ code: 2, message: 'invalid_input' });
  });

  it('sampled out: nothing is exported and the audit event names no trace', async () => {
    const { gate, audit, exporter } = await traced(false);
    await gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' });
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(audit.events[0]).not.toHaveProperty('traceId');
  });

  it('sampled out: the sampler is asked once per decision, for the decision span, and no step is traced', async () => {
    let asked = 0;
    const counting: Sampler = { shouldSample: () => { asked++; return { decision: SamplingDecision.NOT_RECORD }; }, toString: () => 'counting' };
    const { gate, exporter } = await traced(counting);
    for (const tool of ['fs.read_file', 'github.merge_pull_request', 'fs.write_file']) await gate.decide({ agent: '0xWORKER', tool });
    expect(asked).toBe(3);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

/** The caller's span context, as a propagator would extract it from a `traceparent`. */
function caller(sampled: boolean): { ctx: Context; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  const ctx = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE, isRemote: true });
  return { ctx, traceId, spanId };
}

describe('a parent-based sampler follows the caller', () => {
  // The decision begins synchronously inside decide(), so the synchronous context manager carries the caller's context to it.
  beforeAll(() => { context.setGlobalContextManager(new StackContextManager().enable()); });
  afterAll(() => { context.disable(); });

  it('a sampled caller is traced though new traces are sampled out: the decision and its steps, under the caller\'s span', async () => {
    const { gate, audit, exporter } = await traced(new ParentBasedSampler({ root: new AlwaysOffSampler() }));
    await gate.decide({ agent: '0xWORKER', tool: 'fs.write_file' });
    expect(exporter.getFinishedSpans()).toEqual([]);
    const parent = caller(true);
    const d = await context.with(parent.ctx, () => gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' }));
    expect(d.allowed).toBe(false);
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name).sort()).toEqual(['plangate.decide', 'plangate.evaluate', 'plangate.facts']);
    const decide = spans.find((s) => s.name === 'plangate.decide')!;
    expect(decide.spanContext().traceId).toBe(parent.traceId);
    expect(decide.parentSpanContext?.spanId).toBe(parent.spanId);
    expect(decide.attributes).toMatchObject({ 'plangate.seat': '0xWORKER', 'plangate.code': 'plan_required:github.merge_pull_request:none' });
    expect(audit.events.at(-1)).toMatchObject({ type: 'PlanRequiredBlocked', traceId: parent.traceId });
  });

  it('an unsampled caller is not traced though new traces are: the same decision, no span, no trace id in the audit', async () => {
    const { gate, audit, exporter } = await traced(new ParentBasedSampler({ root: new AlwaysOnSampler() }));
    const d = await context.with(caller(false).ctx, () => gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' }));
    expect(d).toMatchObject({ allowed: false, code: 'plan_required:github.merge_pull_request:none' });
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(audit.events[0]).toMatchObject({ type: 'PlanRequiredBlocked' });
    expect(audit.events[0]).not.toHaveProperty('traceId');
    // A call with no caller trace starts its own, sampled.
    await gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' });
    expect(exporter.getFinishedSpans().map((s) => s.name)).toContain('plangate.decide');
  });
});
