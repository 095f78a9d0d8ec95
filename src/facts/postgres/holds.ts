/**
 * Planning holds for the PostgreSQL driver. "At most one active hold per
 * agent" is the partial unique index `holds_active`: two replicas racing to
 * place a hold on one agent give one hold, and the other gets `already_held`.
 */
import type pg from 'pg';
import type { StoredMessage } from '../../core/types.js';
import { alreadyHeld, checkHoldEnd, checkHoldCondition, checkHoldMessage, checkHoldQuery, checkLimit, checkNewHold, heldAs } from '../holds.js';
import type { HoldStore } from '../port.js';
import { toHold, toLinked, type HoldRow, type LinkRow } from '../rows.js';
import { checkNewMessage } from '../validate.js';
import { inTransaction, type Runner } from './pool.js';
import { HOLD_SQL, SQL } from './schema.js';

/** How often a placement retries when the hold it collided with ended in between. */
const PLACE_ATTEMPTS = 3;

/** The hold half of a PostgreSQL store. */
export function createPostgresHolds(pool: pg.Pool, run: Runner): HoldStore {
  return {
    placeHold: (hold) =>
      run('placeHold', async () => {
        const h = checkNewHold(hold);
        for (let i = 0; i < PLACE_ATTEMPTS; i++) {
          const { rows } = await pool.query<HoldRow>(HOLD_SQL.insertHold, [h.agent, h.kind, h.task, h.placedBy, h.placedAt]);
          if (rows[0]) return toHold(rows[0]);
          const existing = (await pool.query<HoldRow>(HOLD_SQL.activeHold, [h.agent])).rows[0];
          if (existing) throw alreadyHeld(h.agent, { id: String(existing.id), placedBy: existing.placed_by });
        }
        throw new Error(`placing a hold on ${h.agent} collided ${PLACE_ATTEMPTS} times with holds that ended at once`);
      }),

    activeHold: (agent) =>
      run('activeHold', async () => {
        const row = (await pool.query<HoldRow>({ name: 'plangate_active_hold', text: HOLD_SQL.activeHold, values: [agent] })).rows[0];
        return row ? toHold(row) : undefined;
      }),

    postHoldMessage: (agent, role, message, only) =>
      run('postHoldMessage', () =>
        inTransaction(pool, async (c) => {
          checkHoldMessage(agent, role);
          const row = (await c.query<HoldRow>(HOLD_SQL.activeHoldForUpdate, [agent])).rows[0];
          heldAs(agent, row && toHold(row), checkHoldCondition(only));
          const h = row as HoldRow;
          const m = checkNewMessage(message);
          const ins = await c.query<{ id: number }>(SQL.insertMessage, [m.thread, m.author, m.authorKind, m.kind, m.body, m.at, m.runId ?? null]);
          const id = ins.rows[0]?.id as number;
          await c.query(HOLD_SQL.link, [h.id, id, role]);
          const counted = role === 'plan'
            ? await c.query<HoldRow>(HOLD_SQL.countPlan, [id, h.id])
            : await c.query<HoldRow>(HOLD_SQL.countPushBack, [h.id]);
          const stored: StoredMessage = { ...m, id: String(id) };
          return { hold: toHold(counted.rows[0] as HoldRow), message: stored };
        }),
      ),

    endHold: (agent, e) =>
      run('endHold', async () => {
        const x = checkHoldEnd(agent, e);
        // The active hold locked, checked against what the caller saw (if it says), then ended, in one transaction.
        return inTransaction(pool, async (c) => {
          const active = (await c.query<HoldRow>(HOLD_SQL.activeHoldForUpdate, [x.agent])).rows[0];
          heldAs(x.agent, active && toHold(active), x.only);
          return toHold((await c.query<HoldRow>(HOLD_SQL.end, [x.agent, x.state, x.by, x.at])).rows[0] as HoldRow);
        });
      }),

    listHolds: (query) =>
      run('listHolds', async () => {
        const q = checkHoldQuery(query);
        const below = q.before ?? Number.MAX_SAFE_INTEGER;
        const { rows } = q.agent !== undefined
          ? await pool.query<HoldRow>(q.all ? HOLD_SQL.listAgentAll : HOLD_SQL.listAgentActive, [q.agent, q.limit, below])
          : await pool.query<HoldRow>(q.all ? HOLD_SQL.listAll : HOLD_SQL.listActive, [q.limit, below]);
        return rows.map(toHold);
      }),

    holdMessages: (holdId, limit) =>
      run('holdMessages', async () => {
        const n = checkLimit(limit);
        if (typeof holdId !== 'string' || !/^\d{1,15}$/.test(holdId)) return [];
        const { rows } = await pool.query<LinkRow>(HOLD_SQL.holdMessages, [Number(holdId), n]);
        return rows.map(toLinked);
      }),
  };
}
