/**
 * Planning holds for the SQLite store driver. Every write is one immediate
 * transaction; the unique partial index `holds_active` makes "one active
 * hold per agent" hold even across processes sharing the file.
 */
import type Database from 'better-sqlite3';
import type { AuthorKind, NewMessage, StoredMessage } from '../../core/types.js';
import { alreadyHeld, checkHoldEnd, checkHoldCondition, checkHoldMessage, checkHoldQuery, checkLimit, checkNewHold, heldAs, type HoldCondition } from '../holds.js';
import type { Hold, HoldMessageRole, HoldStore } from '../port.js';
import { toHold, toLinked, type HoldRow, type LinkRow } from '../rows.js';
import { checkNewMessage } from '../validate.js';
import { guard } from './guard.js';
import { HOLD_SQL, SQL } from './schema.js';

/**
 * The hold half of an SQLite store, on an open connection whose schema is
 * up to date.
 */
export function createSqliteHolds(db: Database.Database): HoldStore & { readActiveHold(agent: string): Hold | undefined } {
  const st = guard('preparing hold statements', () => ({
    activeHold: db.prepare<[string], HoldRow>(HOLD_SQL.activeHold),
    insertHold: db.prepare<[string, string, string | null, string, number]>(HOLD_SQL.insertHold),
    getHold: db.prepare<[number | bigint], HoldRow>(HOLD_SQL.getHold),
    release: db.prepare<[string, number, number]>(HOLD_SQL.release),
    clear: db.prepare<[string, number, number]>(HOLD_SQL.clear),
    countPlan: db.prepare<[number | bigint, number]>(HOLD_SQL.countPlan),
    countPushBack: db.prepare<[number]>(HOLD_SQL.countPushBack),
    link: db.prepare<[number, number | bigint, HoldMessageRole]>(HOLD_SQL.link),
    listActive: db.prepare<[number, number], HoldRow>(HOLD_SQL.listActive),
    listAll: db.prepare<[number, number], HoldRow>(HOLD_SQL.listAll),
    listAgentAll: db.prepare<[string, number, number], HoldRow>(HOLD_SQL.listAgentAll),
    holdMessages: db.prepare<[number, number], LinkRow>(HOLD_SQL.holdMessages),
    insertMessage: db.prepare<[string, string, AuthorKind, string, string, number, string | null]>(SQL.insertMessage),
  }));

  /** The active hold, synchronously, so a decision's facts can be read in one transaction. */
  function readActiveHold(agent: string): Hold | undefined {
    const row = st.activeHold.get(agent);
    return row ? toHold(row) : undefined;
  }

  const place = db.transaction((hold: Parameters<HoldStore['placeHold']>[0]): Hold => {
    const h = checkNewHold(hold);
    const existing = st.activeHold.get(h.agent);
    if (existing) throw alreadyHeld(h.agent, { id: String(existing.id), placedBy: existing.placed_by });
    const info = st.insertHold.run(h.agent, h.kind, h.task, h.placedBy, h.placedAt);
    return toHold(st.getHold.get(info.lastInsertRowid) as HoldRow);
  });

  const post = db.transaction((agent: string, role: HoldMessageRole, message: NewMessage, only: HoldCondition | undefined) => {
    checkHoldMessage(agent, role);
    const row = st.activeHold.get(agent);
    heldAs(agent, row && toHold(row), checkHoldCondition(only));
    const h = row as HoldRow;
    const m = checkNewMessage(message);
    const info = st.insertMessage.run(m.thread, m.author, m.authorKind, m.kind, m.body, m.at, m.runId ?? null);
    st.link.run(h.id, info.lastInsertRowid, role);
    if (role === 'plan') st.countPlan.run(info.lastInsertRowid, h.id);
    else st.countPushBack.run(h.id);
    const stored: StoredMessage = { ...m, id: String(info.lastInsertRowid) };
    return { hold: toHold(st.getHold.get(h.id) as HoldRow), message: stored };
  });

  const end = db.transaction((agent: string, e: Parameters<HoldStore['endHold']>[1]): Hold => {
    const x = checkHoldEnd(agent, e);
    const row = st.activeHold.get(x.agent);
    heldAs(x.agent, row && toHold(row), x.only);
    const h = row as HoldRow;
    (x.state === 'released' ? st.release : st.clear).run(x.by, x.at, h.id);
    return toHold(st.getHold.get(h.id) as HoldRow);
  });

  return {
    async placeHold(hold) {
      return guard('placeHold', () => place.immediate(hold));
    },
    async activeHold(agent) {
      return guard('activeHold', () => readActiveHold(agent));
    },
    readActiveHold,
    async postHoldMessage(agent, role, message, only) {
      return guard('postHoldMessage', () => post.immediate(agent, role, message, only));
    },
    async endHold(agent, e) {
      return guard('endHold', () => end.immediate(agent, e));
    },
    async listHolds(query) {
      return guard('listHolds', () => {
        const q = checkHoldQuery(query);
        const below = q.before ?? Number.MAX_SAFE_INTEGER;
        const rows = q.agent !== undefined
          ? q.all ? st.listAgentAll.all(q.agent, below, q.limit) : st.activeHold.all(q.agent).filter((h) => Number(h.id) < below).slice(0, q.limit)
          : q.all ? st.listAll.all(below, q.limit) : st.listActive.all(below, q.limit);
        return rows.map(toHold);
      });
    },
    async holdMessages(holdId, limit) {
      return guard('holdMessages', () => {
        const n = checkLimit(limit);
        const id = Number(holdId);
        if (!Number.isSafeInteger(id)) return [];
        return st.holdMessages.all(id, n).map(toLinked);
      });
    },
  };
}
