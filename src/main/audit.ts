/**
 * The audit reader for a configured audit location: the one place that
 * picks the reader's driver (today the JSONL file; a database sink adds its
 * reader here), so `plangate audit` reads where `plangate serve` writes.
 */
import { queryJsonlAudit } from '../audit/jsonl-reader.js';
import type { AuditReader } from '../audit/port.js';

/**
 * A reader of the audit trail at `location` (a JSONL file path). Reading
 * never creates or changes the file.
 *
 * @example
 * const events = await openAuditReader('.data/audit.jsonl').query({ crew: 'desk', since: Date.now() - 86_400_000 });
 */
export function openAuditReader(location: string): AuditReader {
  return { query: (query) => queryJsonlAudit(location, query) };
}
