/**
 * Reading a JSONL audit log back, newest first: the file is read backwards
 * in chunks, so a query that wants the newest 100 events reads the end of
 * the file, not all of it. Each line is projected to its declared fields
 * again (a line written by anything else cannot smuggle a body out), and a
 * torn or foreign line is skipped, never fatal.
 */
import { open } from 'node:fs/promises';
import type { AuditEvent, AuditQuery } from './port.js';
import { checkAuditQuery, matchesAudit, type CheckedAuditQuery } from './query.js';
import { toAuditRecord } from './record.js';

/** Bytes read per step, from the end of the file. */
const CHUNK = 64 * 1024;
/** A line longer than this is not an audit event: it is skipped. */
const MAX_LINE = 1024 * 1024;

/** One line as an event, or undefined for a line that is not one. */
function parseLine(line: Buffer): AuditEvent | undefined {
  if (line.length === 0) return undefined;
  try {
    const value: unknown = JSON.parse(line.toString('utf8'));
    if (typeof value !== 'object' || value === null || typeof (value as { time?: unknown }).time !== 'string') return undefined;
    return toAuditRecord(value as AuditEvent);
  } catch {
    return undefined;
  }
}

/**
 * The events of the JSONL file at `path` that match `query`, newest first
 * (the reverse of the order they were written). A missing file has none.
 *
 * @example
 * await queryJsonlAudit('.data/audit.jsonl', { crew: 'desk', check: 'plan_required', limit: 20 })
 */
export async function queryJsonlAudit(path: string, query: AuditQuery = {}): Promise<AuditEvent[]> {
  const q = checkAuditQuery(query);
  if (q.limit === 0) return [];
  let file;
  try {
    file = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  try {
    return await readBackwards(file, q);
  } finally {
    await file.close();
  }
}

async function readBackwards(file: import('node:fs/promises').FileHandle, q: CheckedAuditQuery): Promise<AuditEvent[]> {
  const out: AuditEvent[] = [];
  const take = (line: Buffer): boolean => {
    const event = parseLine(line);
    if (event && matchesAudit(event, q)) out.push(event);
    return out.length >= q.limit;
  };
  let pos = (await file.stat()).size;
  /** The bytes before the newest newline seen so far: the start of a line whose beginning is not read yet. */
  let rest: Buffer = Buffer.alloc(0);
  /** True while the line being read is longer than MAX_LINE: its pieces are dropped. */
  let skipping = false;
  while (pos > 0) {
    const len = Math.min(CHUNK, pos);
    pos -= len;
    const chunk = Buffer.alloc(len);
    await file.read(chunk, 0, len, pos);
    const data = rest.length > 0 ? Buffer.concat([chunk, rest]) : chunk;
    let end = data.length;
    for (let i = data.length - 1; i >= 0; i--) {
      if (data[i] !== 0x0a) continue;
      if (skipping) skipping = false;
      else if (take(data.subarray(i + 1, end))) return out;
      end = i;
    }
    rest = data.subarray(0, end);
    if (rest.length > MAX_LINE) {
      rest = Buffer.alloc(0);
      skipping = true;
    }
  }
  if (!skipping) take(rest);
  return out;
}
