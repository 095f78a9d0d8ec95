/**
 * The SQLite store's rows as the store's facts: message rows (as objects,
 * or as arrays from `.raw()` statements), newest first, each message once.
 */
import type { AuthorKind, MessageFact, StoredMessage } from '../../core/types.js';

interface FactRow {
  id: number;
  thread: string;
  author: string;
  author_kind: AuthorKind;
  kind: string;
  at: number;
  run_id: string | null;
}

export interface MessageRow extends FactRow {
  body: string;
}

/** A fact row as an array (`.raw()` statements, no object per row): the columns of FACT_COLUMNS, in order. */
export type FactTuple = [id: number, thread: string, author: string, authorKind: AuthorKind, kind: string, at: number, runId: string | null];

function tupleFact(r: FactTuple): MessageFact {
  const f: MessageFact = { id: String(r[0]), thread: r[1], author: r[2], authorKind: r[3], kind: r[4], at: r[5] };
  if (r[6] !== null) f.runId = r[6];
  return f;
}

/** Newest first, equal times by id descending (the order of `dedupeNewestFirst`). */
function newestTupleFirst(a: FactTuple, b: FactTuple): number {
  return b[5] - a[5] || b[0] - a[0];
}

/** The facts of `rows`, each message once, newest first. */
export function factsOf(rows: FactTuple[]): MessageFact[] {
  rows.sort(newestTupleFirst);
  const out: MessageFact[] = [];
  let last = -1;
  for (const r of rows) {
    // The same message found twice (a plan that is also context) sorts next to itself.
    if (r[0] !== last) out.push(tupleFact(r));
    last = r[0];
  }
  return out;
}

function toFact(r: FactRow): MessageFact {
  const f: MessageFact = {
    id: String(r.id),
    thread: r.thread,
    author: r.author,
    authorKind: r.author_kind,
    kind: r.kind,
    at: r.at,
  };
  if (r.run_id !== null) f.runId = r.run_id;
  return f;
}

export function toMessage(r: MessageRow): StoredMessage {
  const { id, thread, author, authorKind, kind, at, runId } = toFact(r);
  const m: StoredMessage = { id, thread, author, authorKind, kind, body: r.body, at };
  if (runId !== undefined) m.runId = runId;
  return m;
}
