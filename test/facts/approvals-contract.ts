/**
 * The approvals part of the store contract, registered by storeContract
 * (contract.ts) for every driver.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/core/errors.js';
import type { NewApproval } from '../../src/core/approvals.js';
import type { Store } from '../../src/facts/port.js';
import { MAX_APPROVAL_RECORDS } from '../../src/facts/approvals.js';
import { expectCode } from './contract.js';

const D = 'a'.repeat(64);
const E = 'b'.repeat(64);

function request(id: string, fields: Partial<NewApproval> = {}): NewApproval {
  return {
    id, seat: 'W', tool: 'github.merge', runId: null, digest: D, args: { pr: 1, nested: { a: [1, 'x'] } }, planId: '7',
    requestedAt: 1000, windowMin: 15, approvers: { roles: ['approver'], names: [] }, ...fields,
  };
}

export function approvalsContract(store: () => Store): void {
  describe('approvals', () => {
    it('records a request as pending, with its arguments, and finds it by id and by call', async () => {
      const { approval, created } = await store().requestApproval(request('A1'));
      expect(created).toBe(true);
      expect(approval).toMatchObject({ id: 'A1', status: 'pending', args: { pr: 1, nested: { a: [1, 'x'] } }, expiresAt: null, usedAt: null, decidedBy: null });
      expect(await store().getApproval('A1')).toEqual(approval);
      expect(await store().getApproval('nope')).toBeUndefined();
      expect((await store().approvalsOf('W', 'github.merge', D)).map((a) => a.id)).toEqual(['A1']);
      expect(await store().approvalsOf('W', 'github.merge', E)).toEqual([]);
      expect(await store().approvalsOf('OTHER', 'github.merge', D)).toEqual([]);
    });

    it('keeps the arguments as recorded: neither the caller’s object nor a read changes them', async () => {
      const args = { pr: 1, nested: { a: [1, 'x'] as unknown[] } };
      await store().requestApproval(request('A1', { args }));
      args.nested.a.push('later');
      const [read] = await store().approvalsOf('W', 'github.merge', D);
      expect(read?.args).toEqual({ pr: 1, nested: { a: [1, 'x'] } });
      // A reader that tries to change what it read (the memory store shares a frozen copy: the change throws) changes nothing.
      try {
        ((read?.args['nested'] as { a: unknown[] }).a).push('mine');
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError);
      }
      expect((await store().getApproval('A1'))?.args).toEqual({ pr: 1, nested: { a: [1, 'x'] } });
      expect((await store().listApprovals())[0]?.args).toEqual({ pr: 1, nested: { a: [1, 'x'] } });
    });

    it('joins a pending request of the same call (seat, tool, run, digest) instead of recording another', async () => {
      await store().requestApproval(request('A1'));
      const joined = await store().requestApproval(request('A2', { requestedAt: 2000 }));
      expect(joined).toMatchObject({ created: false, approval: { id: 'A1' } });
      // Another run is another call.
      expect((await store().requestApproval(request('A3', { runId: 'r1' }))).created).toBe(true);
      const racing = await Promise.all([1, 2, 3, 4].map((n) => store().requestApproval(request(`B${n}`, { digest: E }))));
      expect(new Set(racing.map((r) => r.approval.id)).size).toBe(1);
      expect(racing.filter((r) => r.created)).toHaveLength(1);
    });

    it('grants with an expiry from the window, uses once, and never twice', async () => {
      await store().requestApproval(request('A1'));
      const granted = await store().answerApproval('A1', { status: 'granted', by: 'ops', at: 5000 });
      expect(granted).toMatchObject({ status: 'granted', decidedBy: 'ops', decidedAt: 5000, expiresAt: 5000 + 15 * 60_000 });
      await expectCode(store().answerApproval('A1', { status: 'denied', by: 'ops', at: 6000, reason: 'no' }), ErrorCode.Conflict, /granted/);
      expect(await store().useApproval('A1', 5000 + 15 * 60_000)).toBe(false); // expired at that instant
      const uses = await Promise.all([1, 2, 3, 4, 5].map(() => store().useApproval('A1', 6000)));
      expect(uses.filter(Boolean)).toHaveLength(1);
      expect(await store().getApproval('A1')).toMatchObject({ status: 'used', usedAt: 6000 });
      expect(await store().useApproval('nope', 6000)).toBe(false);
      // Once used, the call may be asked again.
      expect((await store().requestApproval(request('A9'))).created).toBe(true);
    });

    it('denies only with a reason; a pending or denied approval is never used', async () => {
      await store().requestApproval(request('A1'));
      expect(await store().useApproval('A1', 2000)).toBe(false);
      await expectCode(store().answerApproval('A1', { status: 'denied', by: 'ops', at: 2000 }), ErrorCode.InvalidInput, /reason/);
      await expectCode(store().answerApproval('A1', { status: 'denied', by: 'ops', at: 2000, reason: '   ' }), ErrorCode.InvalidInput, /reason/);
      const denied = await store().answerApproval('A1', { status: 'denied', by: 'ops', at: 2000, reason: ' not now ' });
      expect(denied).toMatchObject({ status: 'denied', reason: 'not now', expiresAt: null });
      expect(await store().useApproval('A1', 2001)).toBe(false);
      await expectCode(store().answerApproval('missing', { status: 'granted', by: 'ops', at: 1 }), ErrorCode.NotFound);
    });

    it('lists newest first, by status and seat, bounded; reads at most a few records of one call', async () => {
      for (let i = 0; i < MAX_APPROVAL_RECORDS + 3; i++) {
        await store().requestApproval(request(`A${i}`, { requestedAt: 1000 + i }));
        await store().answerApproval(`A${i}`, { status: 'denied', by: 'ops', at: 1000 + i, reason: 'no' });
      }
      await store().requestApproval(request('X', { seat: 'V', requestedAt: 9999 }));
      const of = await store().approvalsOf('W', 'github.merge', D);
      expect(of).toHaveLength(MAX_APPROVAL_RECORDS);
      expect(of[0]!.id).toBe(`A${MAX_APPROVAL_RECORDS + 2}`);
      expect((await store().listApprovals())[0]!.id).toBe('X');
      expect((await store().listApprovals({ status: 'pending' })).map((a) => a.id)).toEqual(['X']);
      expect(await store().listApprovals({ seat: 'W', limit: 2 })).toHaveLength(2);
      await expectCode(store().listApprovals({ limit: 0 }), ErrorCode.InvalidInput);
      await expectCode(store().listApprovals({ status: 'expired' as never }), ErrorCode.InvalidInput);
    });

    it('refuses a malformed request and stores nothing', async () => {
      await expectCode(store().requestApproval(request('A1', { digest: 'zz' })), ErrorCode.InvalidInput, /digest/);
      await expectCode(store().requestApproval(request('A1', { windowMin: 0 })), ErrorCode.InvalidInput, /windowMin/);
      await expectCode(store().requestApproval(request('', {})), ErrorCode.InvalidInput, /id/);
      expect(await store().listApprovals()).toEqual([]);
    });
  });
}
