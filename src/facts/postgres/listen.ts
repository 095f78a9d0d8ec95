/**
 * Hold changes as they happen, on every replica: PostgreSQL announces each
 * insert or update of a hold at commit (`NOTIFY plangate_holds`, from a
 * trigger, so every writer is covered), and a listener gets them through a
 * dedicated connection that reconnects by itself.
 */
import pg from 'pg';

/** One hold change: the agent, the hold, and its state after the change. */
export interface HoldChange {
  agent: string;
  holdId: string;
  state: 'active' | 'released' | 'cleared';
}

export const HOLD_CHANNEL = 'plangate_holds';

export interface HoldWatch {
  /** Resolves once the first LISTEN is in place (changes committed after it are delivered). */
  readonly ready: Promise<void>;
  /** Called after each reconnect: changes may have been missed while the connection was down. */
  onReconnect?: () => void;
  close(): Promise<void>;
}

/**
 * Listens for hold changes on `url`.
 *
 * @example
 * const watch = watchHoldChanges(url, (c) => cache.delete(c.agent), (e) => log(e.message));
 * await watch.ready;
 * await watch.close();
 */
export function watchHoldChanges(url: string, onChange: (change: HoldChange) => void, onError: (error: Error) => void = () => {}, retryMs = 1000): HoldWatch {
  let closed = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let first = true;
  let resolveReady!: () => void;
  const ready = new Promise<void>((r) => { resolveReady = r; });

  const watch: HoldWatch = {
    ready,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await client?.end().catch(() => {});
    },
  };

  async function connect(): Promise<void> {
    if (closed) return;
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000, application_name: 'plangate-listen' });
    client = c;
    c.on('notification', (n) => {
      if (n.channel !== HOLD_CHANNEL || !n.payload) return;
      try {
        onChange(JSON.parse(n.payload) as HoldChange);
      } catch (err) {
        onError(err instanceof Error ? err : new Error(String(err)));
      }
    });
    c.on('error', (err) => {
      onError(err);
      retry(c);
    });
    c.on('end', () => retry(c));
    try {
      await c.connect();
      await c.query(`LISTEN ${HOLD_CHANNEL}`);
      if (first) {
        first = false;
        resolveReady();
      } else {
        watch.onReconnect?.();
      }
    } catch (err) {
      onError(err instanceof Error ? err : new Error(String(err)));
      retry(c);
    }
  }

  function retry(c: pg.Client): void {
    if (closed || client !== c || timer) return;
    client = undefined;
    c.end().catch(() => {});
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, retryMs);
  }

  void connect();
  return watch;
}
