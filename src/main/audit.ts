/**
 * The audit reader for a configured audit location: the one place that
 * picks the reader's driver (today the JSONL file; a database sink adds its
 * reader here), so `plangate audit` reads where `plangate serve` writes.
 */
import { queryJsonlAudit } from '../audit/jsonl-reader.js';
import type { AuditReader } from '../audit/port.js';
import { ErrorCode, PlangateError } from '../core/errors.js';

/**
 * A reader of the audit trail at `location` (a JSONL file path). Reading
 * never creates or changes the file.
 *
 * @example
 * const events = await openAuditReader('.data/audit.jsonl').query({ crew: 'desk', since: Date.now() - 86_400_000 });
 */
export function openAuditReader(location: string): AuditReader {
  // A database location needs that database's reader; never read it as a file name.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) {
    throw new PlangateError(ErrorCode.InvalidInput, `no audit reader for ${location.split('://')[0]}:// locations yet: read the audit through GET /v1/audit`);
  }
  return { query: (query) => queryJsonlAudit(location, query) };
}
