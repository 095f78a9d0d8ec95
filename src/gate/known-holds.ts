/**
 * The last known active holds, in process: what the gate still knows about
 * holds when the store fails while deciding (a held agent stays held, see
 * core/failclosed.ts). Kept current by every decision (the store's answer
 * for the acting agent) and every hold operation; primed at start from the
 * store's list of active holds.
 */
import type { HoldFact, HoldKind } from '../core/types.js';

/** What is remembered of one active hold. */
export interface KnownHold {
  id: string;
  kind: HoldKind;
  /** The agent's reviewer channel as the policy last said, when known. */
  channel?: string;
}

/**
 * The record. Bounded by the number of held agents.
 *
 * @example
 * const known = new KnownHolds();
 * known.set('0xW', { id: '7', kind: 'on_demand' });
 * known.get('0xW')?.id // '7'
 */
export class KnownHolds {
  private readonly holds = new Map<string, KnownHold>();
  /** When each entry was learnt, in `changes`: a reader's answer older than that changes nothing. */
  private readonly learntAt = new Map<string, number>();
  /** Counts every change to the record. */
  private changes = 0;
  /**
   * True while the active holds are not known at all: a full listing was
   * attempted at start and failed, and none has succeeded since (see
   * core/failclosed.ts, UNREAD_HOLDS_ON_STORE_FAILURE). False for a gate
   * that was never asked to list them.
   */
  unread = false;

  /**
   * A mark to take before reading the store, for {@link set}'s `since`: the
   * answer may be older than what is learnt while it is read.
   */
  mark(): number {
    return this.changes;
  }

  /**
   * Records `agent`'s active hold, or its absence (`undefined`). With
   * `since` (a {@link mark} taken before the store was read), an entry learnt
   * after the mark stands: a decision read before a hold was placed must not
   * forget it. (A hold ended meanwhile may come back from such an answer;
   * that only keeps the agent held until its next decision.)
   */
  set(agent: string, hold: (Pick<HoldFact, 'id' | 'kind'> & { channel?: string }) | undefined, since?: number): void {
    if (since !== undefined && (this.learntAt.get(agent) ?? -1) > since) return;
    this.changes += 1;
    if (!hold) {
      this.holds.delete(agent);
      this.learntAt.delete(agent);
      return;
    }
    this.learntAt.set(agent, this.changes);
    const channel = hold.channel ?? (this.holds.get(agent)?.id === hold.id ? this.holds.get(agent)?.channel : undefined);
    this.holds.set(agent, { id: hold.id, kind: hold.kind, ...(channel !== undefined ? { channel } : {}) });
  }

  get(agent: string): KnownHold | undefined {
    return this.holds.get(agent);
  }

  /** Every agent known to be held, with its hold's id. */
  ids(): Map<string, string> {
    return new Map([...this.holds].map(([agent, hold]) => [agent, hold.id]));
  }

  /**
   * Forgets the holds in `earlier` (agent → hold id, taken before a full
   * listing) whose agent the listing did not find held, unless the agent
   * has been learnt with another hold since.
   */
  forgetEnded(earlier: ReadonlyMap<string, string>, active: ReadonlySet<string>): void {
    for (const [agent, id] of earlier) {
      if (!active.has(agent) && this.holds.get(agent)?.id === id) {
        this.holds.delete(agent);
        this.learntAt.delete(agent);
        this.changes += 1;
      }
    }
  }

  /** How many agents are known to be held. */
  get size(): number {
    return this.holds.size;
  }
}
