/**
 * A live view as server-sent events: the store is polled (so what another
 * process or replica wrote shows up too), one poll loop serves every open
 * stream of a view, and each stream sends the view when it changed. Used by
 * the review queue and the approvals queue.
 */
import type { Reply } from './router.js';

/** A comment line this often keeps the connection open through proxies. */
const KEEPALIVE_MS = 15_000;

/** A poll's outcome for a stream: the view as JSON, or why it could not be read. */
export type Polled = { view: string } | { unavailable: string };

export interface StoreWatch {
  subscribe(listener: (polled: Polled) => void): () => void;
}

/**
 * One poll loop for every open stream: it runs while somebody listens. A
 * store that fails is logged once, when the polls start failing (not every
 * second), and again the next time they start failing after a success.
 *
 * @example
 * const watch = storeWatch(() => reviewQueue(deps), 1000, log);
 */
export function storeWatch(load: () => Promise<unknown>, pollMs: number, log: (error: unknown) => void): StoreWatch {
  const listeners = new Set<(polled: Polled) => void>();
  let timer: NodeJS.Timeout | undefined;
  let polling = false;
  let failing = false;

  async function poll(): Promise<void> {
    if (polling) return;
    polling = true;
    try {
      const view = JSON.stringify(await load());
      failing = false;
      // Every listener is given every poll and drops what it already sent: one that joined after a
      // change was polled (its first read older than that poll) still gets the change.
      for (const l of listeners) l({ view });
    } catch (error) {
      // A failing store is retried at the next tick; the streams stay open and say so, so that a
      // page does not show a view as live that nobody can read.
      if (!failing) log(error);
      failing = true;
      for (const l of listeners) l({ unavailable: 'the store cannot be read; retrying' });
    } finally {
      polling = false;
    }
  }

  return {
    subscribe(listener) {
      listeners.add(listener);
      timer ??= setInterval(() => void poll(), pollMs);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && timer) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
  };
}

/**
 * The reply of one stream: `event: <name>` with `first` at once and with
 * the view on every change; `event: unavailable` while the store fails.
 *
 * @example
 * return watchReply('queue', JSON.stringify(await reviewQueue(deps)), watch);
 */
export function watchReply(name: string, first: string, watch: StoreWatch): Reply {
  return {
    headers: { 'x-accel-buffering': 'no' },
    stream: {
      contentType: 'text/event-stream; charset=utf-8',
      run: (write, signal) => new Promise<void>((done) => {
        let sent = first;
        let down = false;
        const send = (polled: Polled): void => {
          if ('unavailable' in polled) {
            if (!down) write(`event: unavailable\ndata: ${JSON.stringify({ reason: polled.unavailable })}\n\n`);
            down = true;
            return;
          }
          // After an outage the view is sent again even if unchanged: it says the view is live again.
          if (polled.view === sent && !down) return;
          // The client has not taken the last view yet: the first poll after it has sends the view as it is then.
          if (!write.ready()) return;
          sent = polled.view;
          down = false;
          write(`event: ${name}\ndata: ${polled.view}\n\n`);
        };
        write(`retry: 2000\nevent: ${name}\ndata: ${first}\n\n`);
        const unsubscribe = watch.subscribe(send);
        const keepalive = setInterval(() => {
          if (write.ready()) write(': keep-alive\n\n');
        }, KEEPALIVE_MS);
        signal.addEventListener('abort', () => {
          clearInterval(keepalive);
          unsubscribe();
          done();
        }, { once: true });
      }),
    },
  };
}
