/**
 * A seat's decision facts kept from one of its decisions to the next, for as
 * long as nothing they were read from can have changed. They are given
 * again only when
 *   - this connection has changed no row since (`total_changes()`), and no
 *     other connection, in this process or another, has committed
 *     (`PRAGMA data_version`): two prepared statements, of which only the
 *     second reads the file (its WAL index), instead of a read transaction
 *     of four to six;
 *   - the decision's time is not before theirs (a plan they hold may be
 *     newer than an earlier time), nor at or past the time of the next plan
 *     recorded after theirs for the same author and thread (a plan written
 *     with a later time than it was read at counts from that time on).
 * A hold, a lineage and a run have no time of their own in these reads: only
 * a write changes them. Only the common query is kept: no claimed managers,
 * no context for an explanation. What a caller gets is its own copy.
 *
 * Neither check moves for a read inside a transaction that is then rolled
 * back, nor for this connection's own schema changes: facts are never kept
 * from, nor given inside, a transaction the read did not open itself, and
 * the schema is changed only when the connection opens, before any facts
 * are kept (code that changes it later must forget them).
 */
import type Database from 'better-sqlite3';
import type { Lineage, MessageFact } from '../../core/types.js';
import type { DecisionFacts, DecisionFactsQuery } from '../port.js';

/** Most queries whose facts are kept; when full, all are forgotten (a new decision reads again). */
const KEPT_QUERIES = 10_000;

interface Kept {
  facts: DecisionFacts;
  changes: number;
  version: number;
  /** The decision time they were read at. */
  from: number;
  /** The time of the next plan they could not see yet (Infinity when none). */
  until: number;
}

/** Keeps and gives back decision facts; see the top of this file. */
export interface KeptFacts {
  /** The facts kept for `q`, as a copy, when they still hold; else undefined. */
  get(q: DecisionFactsQuery): DecisionFacts | undefined;
  /**
   * Keeps `facts`, just read for `q` inside a read transaction (call it in
   * the same transaction, and only in one the read opened itself: what is
   * read in a caller's transaction goes if it is rolled back), when `q` is
   * one that is kept. They hold the plans of `author` in `threads`, and
   * were read at the file's `data_version` `version`.
   */
  keep(q: DecisionFactsQuery, facts: DecisionFacts, read: { author: string; threads: readonly string[]; version: number }): void;
}

/** Whether `q` is a query whose facts are kept. */
function keepable(q: DecisionFactsQuery): boolean {
  return q.delegatedBy.length === 0 && !q.context;
}

/** One text per (agent, run) pair, whatever characters either holds. */
function keyOf(q: DecisionFactsQuery): string {
  return JSON.stringify([q.agent, q.runId ?? null]);
}

function copyLineage(l: Lineage): Lineage {
  return { id: l.id, known: l.known, crews: l.crews.slice() };
}

function copyMessage(m: MessageFact): MessageFact {
  return { ...m };
}

/** A copy no caller can change what is kept through. */
function copy(f: DecisionFacts): DecisionFacts {
  const out: DecisionFacts = { agent: copyLineage(f.agent), upstream: f.upstream.map(copyLineage), messages: f.messages.map(copyMessage) };
  if (f.hold) out.hold = { ...f.hold };
  if (f.run !== undefined) out.run = f.run === null ? null : { ...f.run };
  return out;
}

/**
 * The kept facts of one connection; `dataVersion` is its prepared
 * `PRAGMA data_version` (the store's own).
 *
 * @example
 * const kept = keptFacts(db, db.prepare('PRAGMA data_version').pluck());
 * const facts = kept.get(q) ?? readInTransaction(q); // which calls kept.keep(q, facts, …)
 */
export function keptFacts(db: Database.Database, dataVersion: Database.Statement<[], number>): KeptFacts {
  // Prepared once (the table-valued pragma_data_version() would prepare its pragma on every read).
  const totalChanges = db.prepare<[], number>('SELECT total_changes()').pluck();
  const nextPlan = db.prepare<[string, string, number], number | null>(
    `SELECT min(at) FROM messages WHERE author = ? AND thread = ? AND kind = 'plan' AND author_kind = 'agent' AND at > ?`,
  ).pluck();
  const kept = new Map<string, Kept>();

  return {
    get(q) {
      if (!keepable(q) || kept.size === 0 || db.inTransaction) return undefined;
      const k = kept.get(keyOf(q));
      if (!k || q.now < k.from || q.now >= k.until) return undefined;
      if (totalChanges.get() !== k.changes || dataVersion.get() !== k.version) {
        kept.clear();
        return undefined;
      }
      return copy(k.facts);
    },

    keep(q, facts, { author, threads, version }) {
      if (!keepable(q)) return;
      let until = Infinity;
      for (const thread of threads) {
        const next = nextPlan.get(author, thread, q.now);
        if (typeof next === 'number' && next < until) until = next;
      }
      if (kept.size >= KEPT_QUERIES) kept.clear();
      kept.set(keyOf(q), { facts: copy(facts), changes: totalChanges.get() as number, version, from: q.now, until });
    },
  };
}
