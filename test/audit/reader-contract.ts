/**
 * One contract for every AuditReader: the same events recorded through the
 * sink, the same queries, the same answers. A driver runs it with
 * `auditReaderContract('name', open)`.
 */
import { describe, expect, it } from 'vitest';
import type { AuditEvent, AuditReader, AuditSink } from '../../src/audit/port.js';

export interface ReaderUnderTest {
  sink: AuditSink;
  reader: AuditReader;
  close(): Promise<void>;
}

const T0 = Date.UTC(2026, 10, 30, 9, 0, 0);
const at = (min: number): string => new Date(T0 + min * 60_000).toISOString();

/** A day of events: real refusals, shadow would-be refusals, hold life. */
export function sampleEvents(): AuditEvent[] {
  return [
    { type: 'HoldPlaced', time: at(0), agent: '0xWORKER', holdId: 'h1', kind: 'on_demand', task: 'auth', by: 'ops' },
    { type: 'PlanRequiredBlocked', time: at(1), agent: '0xWORKER', crew: 'desk', tool: 'github.merge_pull_request', toolClass: 'effect', mode: 'side_effects', code: 'plan_required:github.merge_pull_request:none', runId: null, rule: { scope: 'crew', id: 'desk', source: 'plan-required.yaml:24:5' } },
    { type: 'PlanRequiredBlocked', time: at(2), agent: '0xTRADER', crew: 'trading', tool: 'wallet.propose_spend', toolClass: 'spend', mode: 'side_effects', code: 'plan_required:wallet.propose_spend:stale', runId: 'r1', rule: { scope: 'crew', id: 'trading', source: 'plan-required.yaml:27:5' }, shadow: true },
    { type: 'PlanningHoldBlocked', time: at(3), agent: '0xWORKER', crew: 'desk', tool: 'github.merge_pull_request', toolClass: 'effect', code: 'planning_hold:github.merge_pull_request', runId: null, holdId: 'h1', holdKind: 'on_demand' },
    { type: 'ReadGuardBlocked', time: at(4), agent: '0xMGR', crew: 'desk', tool: 'fs.read_file', code: 'read_guard:fs.read_file', runId: null, reason: 'over', path: 'big.log', resolved: '/srv/big.log', sizeBytes: 5_000_000, maxBytes: 1_048_576 },
    { type: 'HoldPlanSubmitted', time: at(5), agent: '0xWORKER', holdId: 'h1', messageId: 'm1', plans: 1 },
    { type: 'PlanRequiredBlocked', time: at(6), agent: '0xTRADER', crew: 'trading', tool: 'payments.send', toolClass: 'spend', mode: 'side_effects', code: 'plan_required:payments.send:none', runId: null, rule: { scope: 'crew', id: 'trading', source: 'plan-required.yaml:27:5' }, shadow: true },
    { type: 'HoldReleased', time: at(7), agent: '0xWORKER', holdId: 'h1', by: 'reviewer', planId: 'm1', plans: 1, pushBacks: 0 },
  ];
}

const times = (events: AuditEvent[]): string[] => events.map((e) => e.time);

export function auditReaderContract(name: string, open: () => Promise<ReaderUnderTest>): void {
  describe(`AuditReader contract: ${name}`, () => {
    async function withSample<T>(fn: (r: AuditReader) => Promise<T>): Promise<T> {
      const u = await open();
      try {
        for (const e of sampleEvents()) await u.sink.record(e);
        return await fn(u.reader);
      } finally {
        await u.close();
      }
    }

    it('answers every event, newest first, when nothing filters', async () => {
      const all = await withSample((r) => r.query({}));
      expect(times(all)).toEqual(times(sampleEvents()).reverse());
    });

    it('filters by crew, agent, tool, code and type, and a filter on a field the type lacks excludes it', async () => {
      await withSample(async (r) => {
        expect((await r.query({ crew: 'desk' })).map((e) => e.type)).toEqual(['ReadGuardBlocked', 'PlanningHoldBlocked', 'PlanRequiredBlocked']);
        expect((await r.query({ agent: '0xWORKER' })).map((e) => e.type)).toEqual(['HoldReleased', 'HoldPlanSubmitted', 'PlanningHoldBlocked', 'PlanRequiredBlocked', 'HoldPlaced']);
        expect(times(await r.query({ tool: 'payments.send' }))).toEqual([at(6)]);
        expect(times(await r.query({ code: 'plan_required:wallet.propose_spend:stale' }))).toEqual([at(2)]);
        expect(times(await r.query({ type: ['HoldPlaced', 'HoldReleased'] }))).toEqual([at(7), at(0)]);
        expect(await r.query({ crew: 'nowhere' })).toEqual([]);
      });
    });

    it('filters by check, shadow and an inclusive time range', async () => {
      await withSample(async (r) => {
        expect(times(await r.query({ check: 'plan_required' }))).toEqual([at(6), at(2), at(1)]);
        expect(times(await r.query({ check: 'read_guard' }))).toEqual([at(4)]);
        expect(times(await r.query({ check: 'plan_required', shadow: true }))).toEqual([at(6), at(2)]);
        expect(times(await r.query({ check: 'plan_required', shadow: false }))).toEqual([at(1)]);
        expect(times(await r.query({ since: Date.parse(at(2)), until: Date.parse(at(4)) }))).toEqual([at(4), at(3), at(2)]);
      });
    });

    it('keeps the newest `limit` matches', async () => {
      await withSample(async (r) => {
        expect(times(await r.query({ limit: 2 }))).toEqual([at(7), at(6)]);
        expect(await r.query({ limit: 0 })).toEqual([]);
        expect(times(await r.query({ crew: 'trading', limit: 1 }))).toEqual([at(6)]);
      });
    });

    it('refuses a bad query with every problem named', async () => {
      await withSample(async (r) => {
        const err = await r.query({ limit: 5000, check: 'nope', type: 'Bogus' as never, since: 10, until: 5 }).then(() => null, (e: unknown) => e);
        expect(err).toMatchObject({ code: 'invalid_input' });
        const messages = (err as { details: Array<{ message: string }> }).details.map((d) => d.message).join('\n');
        expect(messages).toMatch(/limit must be an integer from 0 to 1000/);
        expect(messages).toMatch(/check must be one of plan_required, planning_hold, read_guard/);
        expect(messages).toMatch(/type must be one or more of/);
        expect(messages).toMatch(/since must not be later than until/);
      });
    });

    it('never answers a field the event type does not declare (a body spread in is dropped)', async () => {
      const u = await open();
      try {
        await u.sink.record({ ...sampleEvents()[1], body: 'SECRET PLAN TEXT' } as unknown as AuditEvent);
        const [e] = await u.reader.query({});
        expect(JSON.stringify(e)).not.toContain('SECRET');
      } finally {
        await u.close();
      }
    });
  });
}
