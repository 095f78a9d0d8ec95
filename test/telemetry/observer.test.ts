/**
 * The decision span as the SDK records it (an in-memory exporter, the real
 * tracer): its attributes, its two steps, the trace id a refusal's audit
 * event names, nothing of the arguments, and no span work at all while the
 * trace is sampled out.
 */
import { randomBytes } from 'node:crypto';
import { AlwaysOffSampler, AlwaysOnSampler, InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { createMemoryAuditSink } from '../../src/audit/memory.js';
import { Engine } from '../../src/engine/policy.js';
import { createMemoryStore } from '../../src/facts/memory/store.js';
import { createGate } from '../../src/gate/gate.js';
import { spanObserver } from '../../src/main/telemetry/observer.js';
import { checkRules } from '../../src/rules/load.js';

const CANARY = `canary-${randomBytes(8).toString('hex')}`;

async function traced(sampled: boolean) {
  const rules = checkRules([{ file: 'rules.yaml', text: 'planRequired:\n  workspace: { mode: side_effects, windowMin: 30 }\n' }]);
  const engine = await Engine.load({ data: rules.data!, rulesRevision: 't' });
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ sampler: sampled ? new AlwaysOnSampler() : new AlwaysOffSampler(), spanProcessors: [new SimpleSpanProcessor({ exporter })] });
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
});
