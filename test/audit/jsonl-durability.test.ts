/**
 * The JSONL sink resolves record() only after fdatasync, shares one
 * fdatasync between concurrent records, and stays failed after a failed one.
 * fdatasync is replaced by a fake that holds its callback until released.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PlanRequiredBlocked } from '../../src/audit/port.js';

type Callback = (err: NodeJS.ErrnoException | null) => void;
const held: Callback[] = [];

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return { ...fs, fdatasync: (_fd: number, cb: Callback) => void held.push(cb) };
});

const { createJsonlAuditSink } = await import('../../src/audit/jsonl.js');

const dir = mkdtempSync(join(tmpdir(), 'plangate-audit-sync-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const event = (i: number): PlanRequiredBlocked => ({
  type: 'PlanRequiredBlocked',
  time: '2026-11-29T12:00:00.000Z',
  agent: `0xW${i}`,
  crew: null,
  tool: 'deploy',
  toolClass: 'effect',
  mode: 'side_effects',
  code: 'plan_required:deploy:none',
  runId: null,
  rule: { scope: 'default' },
});

/** Lets pending callbacks and promise reactions run. */
const tick = () => new Promise((r) => setImmediate(r));

function track(p: Promise<void>): { state: () => string } {
  let state = 'pending';
  p.then(
    () => (state = 'resolved'),
    () => (state = 'rejected'),
  );
  return { state: () => state };
}

describe('JSONL sink durability', () => {
  beforeEach(() => {
    held.length = 0;
  });

  it('resolves only after fdatasync completes, with one fdatasync per batch', async () => {
    const path = join(dir, `a-${n++}.jsonl`);
    const sink = createJsonlAuditSink(path);
    const first = track(sink.record(event(1)));
    await tick();
    expect(held).toHaveLength(1);
    expect(first.state()).toBe('pending');
    // Two more arrive while the first fdatasync runs: they wait for the next one, together.
    const second = track(sink.record(event(2)));
    const third = track(sink.record(event(3)));
    await tick();
    expect(held).toHaveLength(1);

    held.shift()?.(null);
    await tick();
    expect(first.state()).toBe('resolved');
    expect(second.state()).toBe('pending');
    expect(held).toHaveLength(1);

    held.shift()?.(null);
    await tick();
    expect([second.state(), third.state()]).toEqual(['resolved', 'resolved']);
    expect(held).toHaveLength(0);
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(3);

    const closing = track(sink.close());
    await tick();
    expect(closing.state()).toBe('resolved');
  });

  it('rejects when fdatasync fails, and every later record too', async () => {
    const path = join(dir, `b-${n++}.jsonl`);
    const sink = createJsonlAuditSink(path);
    const first = sink.record(event(1));
    await tick();
    held.shift()?.(Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }));
    await expect(first).rejects.toThrowError(/fdatasync failed: EIO/);
    await expect(sink.record(event(2))).rejects.toThrowError(/fdatasync failed/);
    expect(held).toHaveLength(0);
    await sink.close();
  });

  it('close() waits for an fdatasync in flight', async () => {
    const path = join(dir, `c-${n++}.jsonl`);
    const sink = createJsonlAuditSink(path);
    const rec = track(sink.record(event(1)));
    const closing = track(sink.close());
    await tick();
    expect(closing.state()).toBe('pending');
    held.shift()?.(null);
    await tick();
    expect([rec.state(), closing.state()]).toEqual(['resolved', 'resolved']);
  });
});
