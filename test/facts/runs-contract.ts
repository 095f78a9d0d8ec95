/**
 * The runs and delegations part of the store contract, registered by
 * storeContract (contract.ts) for every driver.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/core/errors.js';
import type { Store } from '../../src/facts/port.js';
import { MAX_DELEGATIONS_TO, MAX_RUN_LIMIT } from '../../src/facts/runs.js';
import { expectCode } from './contract.js';

const H = 3_600_000;

export function runsContract(store: () => Store): void {
  describe('runs', () => {
    it('starts a run with the given fields and finds it by id', async () => {
      const run = await store().startRun({ id: 'R1', seat: 'W', startedBy: 'operator:ci', startedAt: 1000, expiresAt: 1000 + H });
      expect(run).toEqual({ id: 'R1', seat: 'W', delegationId: null, startedAt: 1000, expiresAt: 1000 + H, endedAt: null, startedBy: 'operator:ci', endedBy: null });
      expect(await store().getRun('R1')).toEqual(run);
      expect(await store().getRun('R2')).toBeUndefined();
    });

    it('gives a run a fresh id and the current time when none is given', async () => {
      const before = Date.now();
      const a = await store().startRun({ seat: 'W', startedBy: 'host', expiresAt: Date.now() + H });
      const b = await store().startRun({ seat: 'W', startedBy: 'host', expiresAt: Date.now() + H });
      expect(a.id).not.toBe(b.id);
      expect(a.id).toMatch(/^[A-Za-z0-9][A-Za-z0-9._:@/-]*$/);
      expect(a.startedAt).toBeGreaterThanOrEqual(before);
      expect(await store().getRun(a.id)).toEqual(a);
    });

    it('refuses a second run with the same id (conflict) and keeps the first', async () => {
      await store().startRun({ id: 'R1', seat: 'W', startedBy: 'host', startedAt: 1, expiresAt: H });
      await expectCode(store().startRun({ id: 'R1', seat: 'OTHER', startedBy: 'host', startedAt: 2, expiresAt: H }), ErrorCode.Conflict, /R1/);
      expect((await store().getRun('R1'))?.seat).toBe('W');
    });

    it('keeps the delegation a run was started under', async () => {
      const r = await store().startRun({ id: 'R1', seat: 'W', delegationId: 'd-1', startedBy: 'host', startedAt: 1, expiresAt: H });
      expect(r.delegationId).toBe('d-1');
      expect((await store().getRun('R1'))?.delegationId).toBe('d-1');
    });

    it('ends a run once: who and when are recorded, ending again changes nothing', async () => {
      await store().startRun({ id: 'R1', seat: 'W', startedBy: 'host', startedAt: 1000, expiresAt: 1000 + H });
      const ended = await store().endRun('R1', { by: 'operator:ci', at: 5000 });
      expect(ended).toMatchObject({ id: 'R1', endedAt: 5000, endedBy: 'operator:ci' });
      expect(await store().getRun('R1')).toEqual(ended);
      expect(await store().endRun('R1', { by: 'someone-else', at: 9000 })).toEqual(ended);
      expect(await store().getRun('R1')).toEqual(ended);
    });

    it('refuses to end an unknown run (not_found) or to end one before it started', async () => {
      await expectCode(store().endRun('nope', { by: 'host' }), ErrorCode.NotFound, /nope/);
      await store().startRun({ id: 'R1', seat: 'W', startedBy: 'host', startedAt: 1000, expiresAt: 1000 + H });
      await expectCode(store().endRun('R1', { by: 'host', at: 999 }), ErrorCode.InvalidInput, /before it started/);
      expect((await store().getRun('R1'))?.endedAt).toBeNull();
    });

    it('lists runs newest first, by seat, within the limit', async () => {
      await store().startRun({ id: 'a', seat: 'W', startedBy: 'host', startedAt: 1, expiresAt: H });
      await store().startRun({ id: 'b', seat: 'M', startedBy: 'host', startedAt: 3, expiresAt: H });
      await store().startRun({ id: 'c', seat: 'W', startedBy: 'host', startedAt: 2, expiresAt: H });
      await store().startRun({ id: 'd', seat: 'W', startedBy: 'host', startedAt: 2, expiresAt: H });
      expect((await store().listRuns()).map((r) => r.id)).toEqual(['b', 'd', 'c', 'a']);
      expect((await store().listRuns({ seat: 'W' })).map((r) => r.id)).toEqual(['d', 'c', 'a']);
      expect((await store().listRuns({ seat: 'W', limit: 2 })).map((r) => r.id)).toEqual(['d', 'c']);
      expect(await store().listRuns({ seat: 'NOBODY' })).toEqual([]);
    });

    it('refuses malformed runs and queries with invalid_input, storing nothing', async () => {
      const ok = { seat: 'W', startedBy: 'host', startedAt: 10, expiresAt: 10 + H };
      await expectCode(store().startRun({ ...ok, seat: 'not a seat' }), ErrorCode.InvalidInput, /seat/);
      await expectCode(store().startRun({ ...ok, seat: '__proto__' }), ErrorCode.InvalidInput, /seat/);
      await expectCode(store().startRun({ ...ok, id: 'has space' }), ErrorCode.InvalidInput, /run\.id/);
      await expectCode(store().startRun({ ...ok, id: 'x'.repeat(129) }), ErrorCode.InvalidInput, /run\.id/);
      await expectCode(store().startRun({ ...ok, expiresAt: 10 }), ErrorCode.InvalidInput, /expiresAt/);
      await expectCode(store().startRun({ ...ok, startedAt: 1.5 }), ErrorCode.InvalidInput, /startedAt/);
      await expectCode(store().startRun({ ...ok, startedBy: '' }), ErrorCode.InvalidInput, /startedBy/);
      await expectCode(store().startRun({ ...ok, startedBy: 'a\ud800b' }), ErrorCode.InvalidInput, /startedBy/);
      await expectCode(store().startRun({ ...ok, startedBy: 'a\u0000b' }), ErrorCode.InvalidInput, /startedBy/);
      await expectCode(store().listRuns({ limit: 0 }), ErrorCode.InvalidInput, /limit/);
      await expectCode(store().listRuns({ limit: MAX_RUN_LIMIT + 1 }), ErrorCode.InvalidInput, /limit/);
      expect(await store().listRuns()).toEqual([]);
    });
  });

  describe('delegations', () => {
    const base = { manager: 'M', worker: 'W', createdBy: 'agent:M' };

    it('records a delegation and finds it by id and by worker', async () => {
      const d = await store().delegate({ ...base, id: 'd1', createdAt: 100 });
      expect(d).toEqual({ id: 'd1', manager: 'M', worker: 'W', runId: null, createdAt: 100, expiresAt: null, revokedAt: null, createdBy: 'agent:M' });
      expect(await store().getDelegation('d1')).toEqual(d);
      expect(await store().delegationsTo('W', 200)).toEqual([d]);
      expect(await store().delegationsTo('M', 200)).toEqual([]);
      expect(await store().getDelegation('d2')).toBeUndefined();
    });

    it('returns only live delegations: created by now, not expired, not revoked, for the run or any run', async () => {
      await store().delegate({ ...base, id: 'any', createdAt: 100 });
      await store().delegate({ ...base, id: 'later', createdAt: 500 });
      await store().delegate({ ...base, id: 'expiring', createdAt: 100, expiresAt: 300 });
      await store().delegate({ ...base, id: 'run7', createdAt: 100, runId: 'R7' });
      await store().delegate({ ...base, id: 'revoked', createdAt: 100 });
      await store().revokeDelegation('revoked', 150);
      const ids = async (now: number, run?: string) => (await store().delegationsTo('W', now, run)).map((d) => d.id).sort();
      expect(await ids(200)).toEqual(['any', 'expiring']);
      expect(await ids(299, 'R7')).toEqual(['any', 'expiring', 'run7']);
      expect(await ids(300, 'R7')).toEqual(['any', 'run7']);
      expect(await ids(600, 'R8')).toEqual(['any', 'later']);
      expect(await ids(50)).toEqual([]);
    });

    it('lists live delegations newest first', async () => {
      await store().delegate({ ...base, id: 'old', createdAt: 100 });
      await store().delegate({ ...base, manager: 'M2', id: 'new', createdAt: 200 });
      expect((await store().delegationsTo('W', 300)).map((d) => d.id)).toEqual(['new', 'old']);
    });

    it('finds one manager\'s live delegations however many newer ones other managers made', async () => {
      await store().delegate({ ...base, id: 'mine', createdAt: 100 });
      for (let i = 0; i <= MAX_DELEGATIONS_TO; i++) await store().delegate({ ...base, manager: 'X', id: `x${i}`, createdAt: 200 + i });
      expect((await store().delegationsTo('W', 1000, undefined, 'M')).map((d) => d.id)).toEqual(['mine']);
      expect((await store().delegationsTo('W', 1000, 'R1', 'M')).map((d) => d.id)).toEqual(['mine']);
      expect(await store().delegationsTo('W', 1000, undefined, 'Y')).toEqual([]);
      expect(await store().delegationsTo('W', 1000)).toHaveLength(MAX_DELEGATIONS_TO);
    });

    it('revokes once: the first time stands', async () => {
      await store().delegate({ ...base, id: 'd1', createdAt: 100 });
      expect((await store().revokeDelegation('d1', 200)).revokedAt).toBe(200);
      expect((await store().revokeDelegation('d1', 900)).revokedAt).toBe(200);
      expect((await store().getDelegation('d1'))?.revokedAt).toBe(200);
      await expectCode(store().revokeDelegation('nope'), ErrorCode.NotFound, /nope/);
    });

    it('refuses a seat delegating to itself, a duplicate id and malformed fields', async () => {
      await expectCode(store().delegate({ ...base, worker: 'M' }), ErrorCode.InvalidInput, /itself/);
      await store().delegate({ ...base, id: 'd1', createdAt: 1 });
      await expectCode(store().delegate({ ...base, id: 'd1', createdAt: 2 }), ErrorCode.Conflict, /d1/);
      await expectCode(store().delegate({ ...base, manager: 'a b' }), ErrorCode.InvalidInput, /manager/);
      await expectCode(store().delegate({ ...base, worker: '' }), ErrorCode.InvalidInput, /worker/);
      await expectCode(store().delegate({ ...base, createdAt: 10, expiresAt: 10 }), ErrorCode.InvalidInput, /expiresAt/);
      await expectCode(store().delegate({ ...base, runId: 'bad run' }), ErrorCode.InvalidInput, /runId/);
      await expectCode(store().delegate({ ...base, createdBy: '' }), ErrorCode.InvalidInput, /createdBy/);
      await expectCode(store().delegate({ ...base, createdBy: 'a\u0000b' }), ErrorCode.InvalidInput, /createdBy/);
      await expectCode(store().delegationsTo('not a seat', 1), ErrorCode.InvalidInput);
      expect((await store().delegationsTo('W', Date.now() + H)).map((d) => d.id)).toEqual(['d1']);
    });
  });
}
