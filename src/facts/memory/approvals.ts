/**
 * Approvals for the in-memory store driver: by id, and by (seat, tool,
 * digest) for a decision's lookup. Every step is synchronous between
 * awaits, so "use once" holds within the process.
 */
import type { Approval } from '../../core/approvals.js';
import { SeatTimes } from './quotas.js';
import { answered, checkAnswer, checkApprovalQuery, checkNewApproval, MAX_APPROVAL_RECORDS, sameCall, unknownApproval, type ApprovalStore } from '../approvals.js';

/** A stored request's arguments never change: kept as a frozen copy, they are shared by every read instead of cloned for each. */
function frozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) frozen(v);
    Object.freeze(value);
  }
  return value;
}

const copy = (a: Approval): Approval => ({ ...a, approvers: { roles: [...a.approvers.roles], names: [...a.approvers.names] } });

/** The approvals half of a memory store. `assertOpen` throws once the store is closed. */
export function createMemoryApprovals(assertOpen: () => void): ApprovalStore & { approvalTimes: SeatTimes } {
  /** Each seat's requests' times, for its approvalRequests quota. */
  const approvalTimes = new SeatTimes();
  const byId = new Map<string, Approval>();
  /** seat \0 tool \0 digest → its requests, oldest first. */
  const byCall = new Map<string, Approval[]>();
  const order: Approval[] = [];
  const key = (seat: string, tool: string, digest: string): string => `${seat}\0${tool}\0${digest}`;

  return {
    approvalTimes,
    async approvalsOf(seat, tool, digest) {
      assertOpen();
      return (byCall.get(key(seat, tool, digest)) ?? []).slice(-MAX_APPROVAL_RECORDS).reverse().map(copy);
    },
    async requestApproval(request) {
      assertOpen();
      const a = checkNewApproval(request);
      const list = byCall.get(key(a.seat, a.tool, a.digest)) ?? [];
      const pending = list.find((x) => x.status === 'pending' && sameCall(x, a));
      if (pending) return { approval: copy(pending), created: false };
      if (byId.has(a.id)) throw new Error(`approval ${a.id} already exists`);
      const stored = { ...a, args: frozen(structuredClone(a.args)) };
      byId.set(a.id, stored);
      list.push(stored);
      byCall.set(key(a.seat, a.tool, a.digest), list);
      order.push(stored);
      approvalTimes.add(a.seat, a.requestedAt);
      return { approval: copy(stored), created: true };
    },
    async answerApproval(id, answer) {
      assertOpen();
      const a = byId.get(id);
      if (!a) throw unknownApproval(id);
      Object.assign(a, answered(a, checkAnswer(answer)));
      return copy(a);
    },
    async useApproval(id, at) {
      assertOpen();
      const a = byId.get(id);
      if (!a || a.status !== 'granted' || a.expiresAt === null || at >= a.expiresAt) return false;
      a.status = 'used';
      a.usedAt = at;
      return true;
    },
    async getApproval(id) {
      assertOpen();
      const a = byId.get(id);
      return a ? copy(a) : undefined;
    },
    async listApprovals(query) {
      assertOpen();
      const q = checkApprovalQuery(query);
      const out: Approval[] = [];
      for (let i = order.length - 1; i >= 0 && out.length < q.limit; i--) {
        const a = order[i] as Approval;
        if ((q.status === undefined || a.status === q.status) && (q.seat === undefined || a.seat === q.seat)) out.push(copy(a));
      }
      return out;
    },
  };
}
