/**
 * An in-memory audit sink, for tests and for hosts that ship events
 * themselves.
 */
import type { AuditEvent, AuditQuery, AuditReader, AuditSink } from './port.js';
import { checkAuditQuery, matchesAudit } from './query.js';
import { toAuditRecord } from './record.js';

export interface MemoryAuditSink extends AuditSink, AuditReader {
  /** Every event recorded so far, oldest first (copies holding only declared fields). */
  readonly events: readonly AuditEvent[];
  /** Forgets every event. */
  clear(): void;
  close(): Promise<void>;
}

/**
 * Creates an empty in-memory sink.
 *
 * @example
 * const audit = createMemoryAuditSink();
 * const gate = createGate({ engine, store, audit });
 * // … after a refusal:
 * audit.events[0]?.type // 'PlanRequiredBlocked'
 */
export function createMemoryAuditSink(): MemoryAuditSink {
  const events: AuditEvent[] = [];
  let closed = false;
  return {
    get events(): readonly AuditEvent[] {
      return events;
    },
    async record(event: AuditEvent): Promise<void> {
      if (closed) throw new Error('audit sink is closed');
      events.push(toAuditRecord(event));
    },
    async query(query: AuditQuery = {}): Promise<AuditEvent[]> {
      const q = checkAuditQuery(query);
      const out: AuditEvent[] = [];
      for (let i = events.length - 1; i >= 0 && out.length < q.limit; i--) {
        const e = events[i] as AuditEvent;
        if (matchesAudit(e, q)) out.push(toAuditRecord(e));
      }
      return out;
    },
    clear(): void {
      events.length = 0;
    },
    async close(): Promise<void> {
      closed = true;
    },
  };
}
