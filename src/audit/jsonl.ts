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
 * so every later record rejects until the sink is reopened. It reopens by
 * itself: after a failure (a failed sync or write) it tries to open the file
 * afresh, after 100 ms and then backing off up to {@link MAX_REOPEN_DELAY_MS},
 * until it can; `state()` says whether it is failed, since when and why.
 * `reopen()` opens the file afresh on demand, e.g. on SIGHUP after a log
 * rotation moved it away: later lines go to the new file.
 */
import { closeSync, fdatasync, fstatSync, fsyncSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { AuditEvent, AuditSink, AuditSinkState } from './port.js';
import { toAuditRecord } from './record.js';
import type { AuditQuery, AuditReader } from './port.js';

/** The longest wait between two attempts to reopen a failed sink. */
export const MAX_REOPEN_DELAY_MS = 30_000;
const FIRST_REOPEN_DELAY_MS = 100;

export interface JsonlAuditSinkOptions {
  /** Wait for fdatasync before `record()` resolves. Default true. */
  fsync?: boolean;
}

export interface JsonlAuditSink extends AuditSink, AuditReader {
  /** The absolute path of the log file. */
  readonly path: string;
  record(event: AuditEvent): Promise<void>;
  /** Opens the file afresh (after a log rotation, or to recover now); the lines already written stay synced. */
  reopen(): Promise<void>;
  state(): AuditSinkState;
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

  /** Opens the file for appending, creating it and its folder; says whether its last line is torn. */
  function open(): { fd: number; torn: boolean } {
    mkdirSync(dir, { recursive: true });
    // 'a+': O_APPEND for writing, readable so that a torn last line can be detected.
    const opened = openSync(file, 'a+');
    try {
      const isTorn = endsTorn(opened);
      if (fstatSync(opened).size === 0) syncDir(dir);
      return { fd: opened, torn: isTorn };
    } catch (err) {
      closeSync(opened);
      throw err;
    }
  }

  const first = open();
  let fd = first.fd;
  /** Set when a line could not be written whole: the next line starts on a fresh line. */
  let torn = first.torn;
  let failed: Error | null = null;
  let failedAt: Date | null = null;
  let failures = 0;
  let reopens = 0;
  let retryDelay = FIRST_REOPEN_DELAY_MS;
  let retryTimer: NodeJS.Timeout | undefined;
  let closed = false;

  type Waiter = { resolve: () => void; reject: (err: Error) => void };
  let waiting: Waiter[] = [];
  let syncing = false;
  let drained: Array<() => void> = [];

  function fail(err: Error): void {
    failures += 1;
    if (!failed) {
      failed = err;
      failedAt = new Date();
    }
    scheduleRecovery();
  }

  /** Tries to reopen after a failure, backing off, until it works or the sink is closed. */
  function scheduleRecovery(): void {
    if (retryTimer || closed) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      reopenNow().catch(() => {
        retryDelay = Math.min(retryDelay * 2, MAX_REOPEN_DELAY_MS);
        scheduleRecovery();
      });
    }, retryDelay);
    retryTimer.unref();
  }

  /** One fdatasync for every line written before it starts. */
  function startSync(): void {
    const batch = waiting;
    waiting = [];
    syncing = true;
    fdatasync(fd, (err) => {
      syncing = false;
      if (err) fail(new Error(`audit log ${file}: fdatasync failed: ${err.message}`, { cause: err }));
      for (const w of batch) {
        if (err && failed) w.reject(failed);
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

  /** Resolves once no fdatasync is running or waiting. */
  async function drain(): Promise<void> {
    if (syncing || waiting.length > 0) await new Promise<void>((r) => drained.push(r));
  }

  /** Waits for pending syncs, then swaps in a fresh descriptor. Throws when the file cannot be opened. */
  async function reopenNow(): Promise<void> {
    await drain();
    if (closed) return;
    const next = open(); // throws: the sink stays as it was
    const old = fd;
    fd = next.fd;
    torn = next.torn;
    reopens += 1;
    failed = null;
    failedAt = null;
    retryDelay = FIRST_REOPEN_DELAY_MS;
    try {
      closeSync(old);
    } catch {
      // The old descriptor is gone either way.
    }
  }

  return {
    path: file,
    // The reader loads when the log is read: a process that only appends (a hook) never loads it.
    query: async (query?: AuditQuery) => (await import('./jsonl-reader.js')).queryJsonlAudit(file, query),

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
        const error = err instanceof Error ? err : new Error(String(err));
        fail(new Error(`audit log ${file}: write failed: ${error.message}`, { cause: error }));
        return Promise.reject(error);
      }
      return fsync ? synced() : Promise.resolve();
    },

    async reopen(): Promise<void> {
      if (closed) throw new Error(`audit log ${file} is closed`);
      try {
        await reopenNow();
      } catch (err) {
        fail(err instanceof Error ? err : new Error(String(err)));
        throw err;
      }
    },

    state(): AuditSinkState {
      return {
        ok: failed === null,
        ...(failed ? { error: failed.message, since: (failedAt ?? new Date()).toISOString() } : {}),
        failures,
        reopens,
      };
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      await drain();
      closeSync(fd);
    },
  };
}
