/** The audit readers of the memory and JSONL sinks, and what only the JSONL file can get wrong. */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createJsonlAuditSink } from '../../src/audit/jsonl.js';
import { queryJsonlAudit } from '../../src/audit/jsonl-reader.js';
import { createMemoryAuditSink } from '../../src/audit/memory.js';
import type { PlanRequiredBlocked } from '../../src/audit/port.js';
import { readerOf } from '../../src/audit/query.js';
import { auditReaderContract, sampleEvents } from './reader-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'plangate-audit-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => join(dir, `audit-${n++}.jsonl`);

auditReaderContract('memory', async () => {
  const sink = createMemoryAuditSink();
  return { sink, reader: sink, close: () => sink.close() };
});

auditReaderContract('jsonl', async () => {
  const sink = createJsonlAuditSink(fresh(), { fsync: false });
  return { sink, reader: sink, close: () => sink.close() };
});

function refusal(i: number): PlanRequiredBlocked {
  return {
    type: 'PlanRequiredBlocked', time: new Date(Date.UTC(2026, 10, 30) + i * 1000).toISOString(), agent: `0xA${i}`,
    crew: i % 2 ? 'desk' : 'trading', tool: 'github.merge_pull_request', toolClass: 'effect', mode: 'side_effects',
    code: 'plan_required:github.merge_pull_request:none', runId: null, rule: { scope: 'crew', id: i % 2 ? 'desk' : 'trading' },
  };
}

describe('the JSONL reader', () => {
  it('reads a file of many chunks backwards, across chunk boundaries, and stops at the limit', async () => {
    const path = fresh();
    const sink = createJsonlAuditSink(path, { fsync: false });
    for (let i = 0; i < 3000; i++) await sink.record(refusal(i));
    await sink.close();
    const newest = await queryJsonlAudit(path, { limit: 1000 });
    expect(newest).toHaveLength(1000);
    expect(newest[0]?.agent).toBe('0xA2999');
    expect(newest[999]?.agent).toBe('0xA2000');
    const desk = await queryJsonlAudit(path, { crew: 'desk', limit: 1000 });
    expect(desk.every((e) => (e as PlanRequiredBlocked).crew === 'desk')).toBe(true);
    expect(desk.map((e) => e.agent)).toEqual(Array.from({ length: 1000 }, (_, k) => `0xA${2999 - 2 * k}`));
  });

  it('skips a torn last line, foreign lines and unknown event types, and drops undeclared fields', async () => {
    const path = fresh();
    writeFileSync(path, [
      JSON.stringify(refusal(1)),
      'not json at all',
      JSON.stringify({ type: 'SomethingElse', time: refusal(2).time, body: 'SECRET' }),
      JSON.stringify({ ...refusal(3), body: 'SECRET PLAN' }),
      '[1,2,3]',
      '',
    ].join('\n'));
    appendFileSync(path, JSON.stringify(refusal(4)).slice(0, 40)); // a crash mid-line
    const events = await queryJsonlAudit(path, {});
    expect(events.map((e) => e.agent)).toEqual(['0xA3', '0xA1']);
    expect(JSON.stringify(events)).not.toContain('SECRET');
  });

  it('skips a line longer than any event without losing the lines around it', async () => {
    const path = fresh();
    writeFileSync(path, `${JSON.stringify(refusal(1))}\n${'x'.repeat(3 * 1024 * 1024)}\n${JSON.stringify(refusal(2))}\n`);
    expect((await queryJsonlAudit(path, {})).map((e) => e.agent)).toEqual(['0xA2', '0xA1']);
  });

  it('answers nothing for a missing file, and reads what a running sink has written', async () => {
    expect(await queryJsonlAudit(join(dir, 'none.jsonl'), {})).toEqual([]);
    const sink = createJsonlAuditSink(fresh());
    for (const e of sampleEvents()) await sink.record(e);
    expect(await readerOf(sink)?.query({ check: 'read_guard' })).toHaveLength(1);
    await sink.close();
  });

  it('readerOf finds no reader on a write-only sink', () => {
    expect(readerOf({ record() {} })).toBeUndefined();
    expect(readerOf(undefined)).toBeUndefined();
  });
});

describe('openAuditReader', () => {
  it('reads a JSONL location, and refuses a database URL rather than reading it as a file name', async () => {
    const { openAuditReader } = await import('../../src/main/audit.js');
    const path = fresh();
    const sink = createJsonlAuditSink(path, { fsync: false });
    await sink.record(refusal(7));
    await sink.close();
    expect((await openAuditReader(path).query({})).map((e) => e.agent)).toEqual(['0xA7']);
    expect(() => openAuditReader('postgres://db/plangate')).toThrow(/no audit reader for postgres:\/\/ locations/);
  });
});
