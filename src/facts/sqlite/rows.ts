/**
 * The SQLite store's candidate rows as arrays (`.raw()` statements, no
 * object per row) and as the store's facts: newest first, each message once.
 */
import type { AuthorKind, MessageFact } from '../../core/types.js';

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
