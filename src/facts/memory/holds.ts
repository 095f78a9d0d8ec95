/**
 * Planning holds for the in-memory store driver. Every operation runs
 * without awaiting in between, so it is atomic within the process.
 */
import type { NewMessage, StoredMessage } from '../../core/types.js';
import { alreadyHeld, checkHoldEnd, checkHoldCondition, checkHoldMessage, checkHoldQuery, checkLimit, checkNewHold, heldAs } from '../holds.js';
import type { Hold, HoldMessageRole, HoldStore } from '../port.js';

/**
 * The hold half of a memory store. `assertOpen` throws once the store is
 * closed; `insert` posts a message synchronously (validating it).
 */
export function createMemoryHolds(assertOpen: () => void, insert: (m: NewMessage) => StoredMessage): HoldStore & { readActiveHold(agent: string): Hold | undefined } {
  let nextId = 1;
  /** Every hold, oldest first. */
  const holds: Hold[] = [];
  const active = new Map<string, Hold>();
  const links = new Map<string, Array<{ role: HoldMessageRole; message: StoredMessage }>>();

  const copy = (h: Hold): Hold => ({ ...h });
  /** The active hold, synchronously, so a decision's facts are one snapshot. */
  const readActiveHold = (agent: string): Hold | undefined => {
    const h = active.get(agent);
    return h ? copy(h) : undefined;
  };

  return {
    async placeHold(hold) {
      assertOpen();
      const h = checkNewHold(hold);
      const existing = active.get(h.agent);
      if (existing) throw alreadyHeld(h.agent, existing);
      const row: Hold = {
        id: String(nextId++),
        ...h,
        state: 'active',
        releasedBy: null,
        releasedAt: null,
        clearedBy: null,
        clearedAt: null,
        plans: 0,
        pushBacks: 0,
        lastPlanId: null,
      };
      holds.push(row);
      active.set(row.agent, row);
      return copy(row);
    },

    async activeHold(agent) {
      assertOpen();
      return readActiveHold(agent);
    },
    readActiveHold,

    async postHoldMessage(agent, role, message, only) {
      assertOpen();
      checkHoldMessage(agent, role);
      const h = heldAs(agent, active.get(agent), checkHoldCondition(only));
      const stored = insert(message);
      let list = links.get(h.id);
      if (!list) links.set(h.id, (list = []));
      list.push({ role, message: stored });
      if (role === 'plan') {
        h.plans += 1;
        h.lastPlanId = stored.id;
      } else {
        h.pushBacks += 1;
      }
      return { hold: copy(h), message: { ...stored } };
    },

    async endHold(agent, end) {
      assertOpen();
      const e = checkHoldEnd(agent, end);
      const h = heldAs(e.agent, active.get(e.agent), e.only);
      h.state = e.state;
      if (e.state === 'released') {
        h.releasedBy = e.by;
        h.releasedAt = e.at;
      } else {
        h.clearedBy = e.by;
        h.clearedAt = e.at;
      }
      active.delete(e.agent);
      return copy(h);
    },

    async listHolds(query) {
      assertOpen();
      const q = checkHoldQuery(query);
      const out: Hold[] = [];
      // Hold n is holds[n - 1]: a page below `before` starts there, not at the newest.
      const from = q.before === undefined ? holds.length : Math.min(holds.length, q.before - 1);
      for (let i = from - 1; i >= 0 && out.length < q.limit; i--) {
        const h = holds[i] as Hold;
        if (q.agent !== undefined && h.agent !== q.agent) continue;
        if (!q.all && h.state !== 'active') continue;
        out.push(copy(h));
      }
      return out;
    },

    async holdMessages(holdId, limit) {
      assertOpen();
      const n = checkLimit(limit);
      // The newest n, oldest of them first.
      return (n === 0 ? [] : (links.get(holdId) ?? []).slice(-n)).map((l) => ({ role: l.role, message: { ...l.message } }));
    },
  };
}
