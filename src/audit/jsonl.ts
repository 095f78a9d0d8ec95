/**
 * The JSONL audit sink: one JSON object per line, appended to a file.
 *
 * Durability, in two steps:
 * 1. `record()` writes the whole line with one synchronous `write(2)` on a
 *    descriptor opened with O_APPEND before it returns. From then on the
 *    line is in the kernel: a crash of this process cannot lose it, lines
 *    keep call order, and lines from several processes never interleave.
 *    The write is synchronous because a line is small and the write only
 *    copies it into the page cache; the caller is never left holding a line
 *    that exists only in this process's memory.
 * 2. The promise `record()` returns resolves after `fdatasync(2)` (run off
 *    the main thread), so a resolved record also survives an OS crash or
 *    power loss. Concurrent records share one fdatasync (group commit).
 *    Set `fsync: false` to resolve right after step 1.
 *
 * A failed fdatasync leaves the sink failed: the kernel may have dropped
 * the dirty pages, and a later fdatasync could report success without them,
 * so every later record rejects until the sink is reopened.
 */
import { closeSync, fdatasync, fstatSync, fsyncSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { AuditEvent, AuditSink } from './port.js';
import { toAuditRecord } from './record.js';
import { queryJsonlAudit } from './jsonl-reader.js';
import type { AuditQuery, AuditReader } from './port.js';

export interface JsonlAuditSinkOptions {
  /** Wait for fdatasync before `record()` resolves. Default true. */
  fsync?: boolean;
}

export interface JsonlAuditSink extends AuditSink, AuditReader {
  /** The absolute path of the log file. */
  readonly path: string;
  record(event: AuditEvent): Promise<void>;
  /** Waits for pending fdatasyncs, then closes the file. Idempotent. */
  close(): Promise<void>;
  /** Reads the file back, newest first (see jsonl-reader.ts); works after close too. */
  query(query?: AuditQuery): Promise<AuditEvent[]>;
}

/** Whether a non-empty file's last byte is not a newline (a line torn by an earlier crash). */
function endsTorn(fd: number): boolean {
  const { size } = fstatSync(fd);
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] !== 0x0a;
}

/** Makes a new directory entry durable; best effort (not every platform can fsync a directory). */
function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // The file's own data is still synced on every record.
  }
}

/**
 * Opens (creating it and its folder when missing) an append-only JSONL
 * audit log. Each event becomes one line holding only its declared fields.
 *
 * @example
 * const audit = createJsonlAuditSink('.data/audit.jsonl');
 * await audit.record(event); // on disk when this resolves
 * await audit.close();
 */
export function createJsonlAuditSink(path: string, options: JsonlAuditSinkOptions = {}): JsonlAuditSink {
  if (typeof path !== 'string' || path === '') throw new Error('audit log path must be a non-empty string');
  const file = resolve(path);
  const fsync = options.fsync ?? true;

  const dir = dirname(file);
  mkdirSync(dir, { recursive: true });
  // 'a+': O_APPEND for writing, readable so that a torn last line can be detected.
  const fd = openSync(file, 'a+');
  let failed: Error | null = null;
  let closed = false;
  /** Set when a line could not be written whole: the next line starts on a fresh line. */
  let torn: boolean;
  try {
    torn = endsTorn(fd);
    if (fstatSync(fd).size === 0) syncDir(dir);
  } catch (err) {
    closeSync(fd);
    throw err;
  }

  type Waiter = { resolve: () => void; reject: (err: Error) => void };
  let waiting: Waiter[] = [];
  let syncing = false;
  let drained: Array<() => void> = [];

  /** One fdatasync for every line written before it starts. */
  function startSync(): void {
    const batch = waiting;
    waiting = [];
    syncing = true;
    fdatasync(fd, (err) => {
      syncing = false;
      if (err && !failed) failed = new Error(`audit log ${file}: fdatasync failed: ${err.message}`, { cause: err });
      for (const w of batch) {
        if (failed) w.reject(failed);
        else w.resolve();
      }
      if (waiting.length > 0) {
        startSync();
      } else {
        const done = drained;
        drained = [];
        for (const d of done) d();
      }
    });
  }

  function synced(): Promise<void> {
    return new Promise((resolve, reject) => {
      waiting.push({ resolve, reject });
      if (!syncing) startSync();
    });
  }

  return {
    path: file,
    query: (query?: AuditQuery) => queryJsonlAudit(file, query),

    record(event: AuditEvent): Promise<void> {
      if (closed) return Promise.reject(new Error(`audit log ${file} is closed`));
      if (failed) return Promise.reject(failed);
      let buf: Buffer;
      try {
        buf = Buffer.from(`${torn ? '\n' : ''}${JSON.stringify(toAuditRecord(event))}\n`, 'utf8');
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
      let written = 0;
      try {
        while (written < buf.length) written += writeSync(fd, buf, written, buf.length - written);
        torn = false;
      } catch (err) {
        if (written > 0) torn = true;
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
      return fsync ? synced() : Promise.resolve();
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (syncing || waiting.length > 0) await new Promise<void>((r) => drained.push(r));
      closeSync(fd);
    },
  };
}
