/** The audit sinks: JSONL on disk and in memory. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ErrorCode, PlangateError } from '../../src/core/errors.js';
import { createJsonlAuditSink } from '../../src/audit/jsonl.js';
import { createMemoryAuditSink } from '../../src/audit/memory.js';
import type { AuditEvent, PlanRequiredBlocked } from '../../src/audit/port.js';
import { toAuditRecord } from '../../src/audit/record.js';

const dir = mkdtempSync(join(tmpdir(), 'plangate-audit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => join(dir, `audit-${n++}.jsonl`);

function event(i: number, patch: Partial<PlanRequiredBlocked> = {}): PlanRequiredBlocked {
  return {
    type: 'PlanRequiredBlocked',
    time: new Date(Date.UTC(2026, 10, 29, 12, 0, i)).toISOString(),
    agent: `0xW${i}`,
    crew: i % 2 ? 'desk' : null,
    tool: 'github.merge_pull_request',
    toolClass: 'effect',
    mode: 'side_effects',
    code: 'plan_required:github.merge_pull_request:none',
    runId: i % 3 ? `run-${i}` : null,
    rule: i % 2 ? { scope: 'crew', id: 'desk', source: 'rules/desk.yaml:3:5' } : { scope: 'default' },
    ...patch,
  };
}

/** An event with fields the type does not declare, as a careless caller might build it. */
function withBody(i: number): AuditEvent {
  return { ...event(i), body: 'SECRET PLAN TEXT', message: { body: 'x' }, rule: { scope: 'workspace', body: 'y' } } as unknown as AuditEvent;
}

function lines(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n');
}

describe('toAuditRecord', () => {
  it('keeps exactly the declared fields', () => {
    expect(toAuditRecord(event(1))).toEqual(event(1));
    const r = toAuditRecord(withBody(2));
    expect(Object.keys(r).sort()).toEqual(
      ['agent', 'code', 'crew', 'mode', 'rule', 'runId', 'time', 'tool', 'toolClass', 'type'],
    );
    expect((r as PlanRequiredBlocked).rule).toEqual({ scope: 'workspace' });
    expect(JSON.stringify(r)).not.toMatch(/body|SECRET/);
  });

  it('keeps exactly the declared fields of a ClaimRefused, copying the claim', () => {
    const claim = {
      type: 'ClaimRefused', time: '2026-11-29T12:00:00.000Z', agent: '0xW', claim: 'delegation',
      claimed: ['0xM'], refused: '0xM', tool: 'github.merge_pull_request', runId: null,
    } as const;
    const r = toAuditRecord({ ...claim, claimed: [...claim.claimed], body: 'secret', token: 't' } as unknown as AuditEvent);
    expect(r).toEqual(claim);
    expect(JSON.stringify(r)).not.toContain('secret');
  });

  it('refuses an unknown event type', () => {
    expect(() => toAuditRecord({ type: 'Nope' } as unknown as AuditEvent)).toThrowError(PlangateError);
    try {
      toAuditRecord({ type: 'Nope' } as unknown as AuditEvent);
    } catch (err) {
      expect((err as PlangateError).code).toBe(ErrorCode.InvalidInput);
    }
  });
});

describe('JSONL audit sink', () => {
  it('appends one parseable line per event, in order, with no body', async () => {
    const path = fresh();
    const sink = createJsonlAuditSink(path);
    await sink.record(event(0));
    await sink.record(event(1));
    await sink.record(withBody(2));
    await sink.close();
    const got = lines(path).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(got).toEqual([event(0), event(1), { ...event(2), rule: { scope: 'workspace' } }]);
    for (const o of got) expect(o).not.toHaveProperty('body');
    expect(readFileSync(path, 'utf8')).not.toMatch(/body|SECRET/);
  });

  it('has the line in the file as soon as record() returns, before it resolves', async () => {
    const path = fresh();
    const sink = createJsonlAuditSink(path);
    const pending = sink.record(event(7));
    // Still synchronous here: the line is already in the kernel, so a crash now keeps it.
    expect(lines(path).map((l) => JSON.parse(l))).toEqual([event(7)]);
    await pending;
    await sink.close();
  });

  it('keeps call order and whole lines under concurrent records', async () => {
    const path = fresh();
    const sink = createJsonlAuditSink(path);
    await Promise.all(Array.from({ length: 200 }, (_, i) => sink.record(event(i))));
    await sink.close();
    const got = lines(path).map((l) => (JSON.parse(l) as PlanRequiredBlocked).agent);
    expect(got).toEqual(Array.from({ length: 200 }, (_, i) => `0xW${i}`));
  });

  it('survives a reopen: appends after the existing lines', async () => {
    const path = fresh();
    const a = createJsonlAuditSink(path);
    await a.record(event(1));
    await a.record(event(2));
    await a.close();
    const b = createJsonlAuditSink(path);
    await b.record(event(3));
    await b.close();
    expect(lines(path).map((l) => JSON.parse(l))).toEqual([event(1), event(2), event(3)]);
  });

  it('creates the missing parent folders', async () => {
    const path = join(dir, 'x', 'y', 'audit.jsonl');
    const sink = createJsonlAuditSink(path);
    expect(sink.path).toBe(path);
    await sink.record(event(1));
    await sink.close();
    expect(lines(path)).toHaveLength(1);
  });

  it('starts on a fresh line after a line torn by an earlier crash', async () => {
    const path = fresh();
    writeFileSync(path, `${JSON.stringify(event(1))}\n{"type":"PlanRequ`);
    const sink = createJsonlAuditSink(path);
    await sink.record(event(2));
    await sink.close();
    const all = lines(path);
    expect(all).toHaveLength(3);
    expect(JSON.parse(all[0] as string)).toEqual(event(1));
    expect(all[1]).toBe('{"type":"PlanRequ');
    expect(JSON.parse(all[2] as string)).toEqual(event(2));
  });

  it('works without fsync, and refuses records after close', async () => {
    const path = fresh();
    const sink = createJsonlAuditSink(path, { fsync: false });
    await sink.record(event(1));
    await sink.close();
    await sink.close();
    await expect(sink.record(event(2))).rejects.toThrowError(/closed/);
    expect(lines(path)).toHaveLength(1);
  });

  it('close() waits for pending records', async () => {
    const path = fresh();
    const sink = createJsonlAuditSink(path);
    const settled: string[] = [];
    const records = [1, 2, 3].map((i) => sink.record(event(i)).then(() => settled.push(`r${i}`)));
    await sink.close().then(() => settled.push('close'));
    await Promise.all(records);
    expect(settled.at(-1)).toBe('close');
    expect(settled).toHaveLength(4);
  });

  it('refuses an empty path', () => {
    expect(() => createJsonlAuditSink('')).toThrowError(/path/);
  });
});

describe('memory audit sink', () => {
  it('keeps copies of the declared fields, in order; clear() forgets; closed refuses', async () => {
    const sink = createMemoryAuditSink();
    const e = event(1);
    await sink.record(e);
    await sink.record(withBody(2));
    e.agent = 'mutated later';
    expect(sink.events).toEqual([event(1), { ...event(2), rule: { scope: 'workspace' } }]);
    expect(JSON.stringify(sink.events)).not.toMatch(/body|SECRET/);
    sink.clear();
    expect(sink.events).toEqual([]);
    await sink.close();
    await expect(Promise.resolve().then(() => sink.record(event(3)))).rejects.toThrowError(/closed/);
    expect(sink.events).toEqual([]);
  });
});
