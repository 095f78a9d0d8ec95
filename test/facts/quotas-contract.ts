/**
 * The quota counts part of the store contract, registered by storeContract
 * (contract.ts) for every driver: each count stops at its limit, the window
 * and the edge, each kind counted where it belongs, and no seat's count
 * moved by another's rows.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/core/errors.js';
import type { Store } from '../../src/facts/port.js';
import { expectCode } from './contract.js';

const T = 1_000_000;

export function quotasContract(store: () => Store): void {
  describe('quota counts', () => {
    const q = { since: T + 2, rateLimit: 4, standingLimit: 100 };

    it('counts an agent\'s messages in the window and kept, each up to its limit, with the edge', async () => {
      const s = store();
      for (let i = 0; i < 6; i++) await s.postMessage({ thread: 'agent:W', author: 'W', authorKind: 'agent', kind: i % 2 ? 'note' : 'plan', body: 'x', at: T + i });
      // Not W's as an agent: a person named W, and another seat.
      await s.postMessage({ thread: 'agent:W', author: 'W', authorKind: 'human', kind: 'note', body: 'x', at: T + 5 });
      await s.postMessage({ thread: 'agent:V', author: 'V', authorKind: 'agent', kind: 'plan', body: 'x', at: T + 5 });
      // In the window (after T+2): T+3, T+4, T+5. The rate is 3 (limit 4): the edge is the 3rd newest, T+3.
      expect(await s.quotaCounts({ kind: 'messages', seat: 'W', ...q })).toEqual({ recent: 3, standing: 6, edge: T + 3 });
      // Counts stop at their limits.
      expect(await s.quotaCounts({ kind: 'messages', seat: 'W', since: 0, rateLimit: 2, standingLimit: 5 })).toEqual({ recent: 2, standing: 5, edge: T + 5 });
      // Fewer rows in the window than the rate: no edge.
      expect(await s.quotaCounts({ kind: 'messages', seat: 'W', since: T + 4, rateLimit: 4, standingLimit: 100 })).toEqual({ recent: 1, standing: 6 });
      expect(await s.quotaCounts({ kind: 'messages', seat: 'X', ...q })).toEqual({ recent: 0, standing: 0 });
    });

    it('counts delegations by their manager and runs by their seat', async () => {
      const s = store();
      for (let i = 0; i < 3; i++) {
        await s.delegate({ manager: 'M', worker: `W${i}`, createdBy: 'M', createdAt: T + 2 + i });
        await s.startRun({ seat: 'M', startedBy: 'host', startedAt: T + 2 + i, expiresAt: T + 100 });
      }
      await s.delegate({ manager: 'W0', worker: 'M', createdBy: 'W0', createdAt: T + 9 });
      expect(await s.quotaCounts({ kind: 'delegations', seat: 'M', since: T + 2, rateLimit: 3, standingLimit: 100 })).toEqual({ recent: 2, standing: 3, edge: T + 3 });
      expect(await s.quotaCounts({ kind: 'runs', seat: 'M', since: T, rateLimit: 100, standingLimit: 2 })).toEqual({ recent: 3, standing: 2 });
      expect(await s.quotaCounts({ kind: 'delegations', seat: 'W1', since: 0, rateLimit: 100, standingLimit: 100 })).toEqual({ recent: 0, standing: 0 });
    });

    it('counts hold plans: the plans in the seat\'s own thread, and the plans on its active hold', async () => {
      const s = store();
      await s.placeHold({ agent: 'W', kind: 'on_demand', placedBy: 'ops', placedAt: T });
      for (let i = 0; i < 3; i++) {
        await s.postHoldMessage('W', 'plan', { thread: 'agent:W', author: 'W', authorKind: 'agent', kind: 'plan', body: 'p', at: T + 3 + i });
      }
      await s.postMessage({ thread: 'crew:c', author: 'W', authorKind: 'agent', kind: 'plan', body: 'x', at: T + 4 });
      expect(await s.quotaCounts({ kind: 'holdPlans', seat: 'W', since: T, rateLimit: 10, standingLimit: 10 })).toEqual({ recent: 3, standing: 3 });
      expect(await s.quotaCounts({ kind: 'holdPlans', seat: 'W', since: T, rateLimit: 3, standingLimit: 2 })).toEqual({ recent: 3, standing: 2, edge: T + 4 });
      await s.endHold('W', { state: 'released', by: 'rev', at: T + 10 });
      expect((await s.quotaCounts({ kind: 'holdPlans', seat: 'W', since: T, rateLimit: 10, standingLimit: 10 })).standing).toBe(0);
    });

    it('counts approval requests recorded for the seat, not the retries that join one', async () => {
      const s = store();
      const ask = (id: string, seat: string, digest: string, at: number) => s.requestApproval({
        id, seat, tool: 't', runId: null, digest: digest.repeat(64), args: {}, planId: null, requestedAt: at, windowMin: 15, approvers: { roles: [], names: [] },
      });
      for (let i = 0; i < 4; i++) await ask(`A${i}`, 'W', String(i), T + 2 + i);
      // A retry of a pending call joins it: no new row to count.
      expect((await ask('A9', 'W', '0', T + 9)).created).toBe(false);
      await ask('B0', 'V', '0', T + 5);
      // After T+2: T+3, T+4, T+5; the rate is 2 (limit 3): the edge is the 2nd newest, T+4.
      expect(await s.quotaCounts({ kind: 'approvalRequests', seat: 'W', since: T + 2, rateLimit: 3, standingLimit: 100 })).toEqual({ recent: 3, standing: 4, edge: T + 4 });
      expect(await s.quotaCounts({ kind: 'approvalRequests', seat: 'W', since: 0, rateLimit: 100, standingLimit: 3 })).toEqual({ recent: 4, standing: 3 });
      expect(await s.quotaCounts({ kind: 'approvalRequests', seat: 'X', since: 0, rateLimit: 100, standingLimit: 100 })).toEqual({ recent: 0, standing: 0 });
    });

    it('refuses a malformed query with invalid_input', async () => {
      const s = store();
      const ok = { kind: 'messages' as const, seat: 'W', since: 0, rateLimit: 1, standingLimit: 1 };
      await expectCode(s.quotaCounts({ ...ok, kind: 'everything' as 'messages' }), ErrorCode.InvalidInput, /unknown kind/);
      await expectCode(s.quotaCounts({ ...ok, seat: '__proto__' }), ErrorCode.InvalidInput, /seat/);
      await expectCode(s.quotaCounts({ ...ok, rateLimit: 0 }), ErrorCode.InvalidInput, /rateLimit/);
      await expectCode(s.quotaCounts({ ...ok, standingLimit: 1e9 }), ErrorCode.InvalidInput, /standingLimit/);
      await expectCode(s.quotaCounts({ ...ok, since: 1.5 }), ErrorCode.InvalidInput, /since/);
    });
  });
}
