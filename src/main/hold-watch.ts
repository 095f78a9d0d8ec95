/**
 * Several replicas on one PostgreSQL: a hold placed, released or unblocked
 * through another replica reaches this replica's record of known holds at
 * once (the store announces every hold change with NOTIFY). So a held agent
 * stays held here even when the database fails before this replica has
 * decided a call of that agent (core/failclosed.ts).
 */
import type { Gate } from '../gate/gate.js';
import { watchHoldChanges, type HoldWatch } from '../facts/postgres/listen.js';
import { listAllActive } from '../gate/holds.js';

/** How long start-up waits for the first LISTEN before it goes on without it (it keeps trying). */
export const HOLD_WATCH_READY_MS = 5_000;

/** The first wait before a read that failed after a hold change is tried again; it doubles up to {@link HOLD_RETRY_MAX_MS}. */
export const HOLD_RETRY_FIRST_MS = 500;
export const HOLD_RETRY_MAX_MS = 30_000;

/**
 * Keeps `gate.knownHolds` current from the database's hold changes. A read
 * that fails after a change (the database blipped just then) is tried again
 * until it succeeds, so a missed read never leaves this replica without a
 * hold another one placed: the hold it learns is what keeps the agent held
 * should the database fail later.
 *
 * @example
 * const watch = await followHoldChanges('postgres://db/plangate', gate, console.error);
 * await watch.close();
 */
export async function followHoldChanges(url: string, gate: Pick<Gate, 'holds' | 'knownHolds'>, log: (line: string) => void, retry = { firstMs: HOLD_RETRY_FIRST_MS, maxMs: HOLD_RETRY_MAX_MS }): Promise<HoldWatch> {
  let closed = false;
  // Agents whose hold must be read again, and whether the whole list must be.
  const unread = new Set<string>();
  let relistDue = false;
  let wait = retry.firstMs;
  let retryTimer: NodeJS.Timeout | undefined;
  const again = (): void => {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      wait = Math.min(wait * 2, retry.maxMs);
      if (relistDue) relist();
      for (const agent of [...unread]) read(agent);
    }, wait);
    retryTimer.unref();
  };
  const read = (agent: string): void => {
    unread.delete(agent);
    // Reading the agent's active hold records it (or its end) in gate.knownHolds.
    gate.holds.get(agent).then(() => {
      if (unread.size === 0 && !relistDue) wait = retry.firstMs;
    }, (error: unknown) => {
      log(`plangate: reading ${agent}'s hold after a change failed (trying again): ${error instanceof Error ? error.message : String(error)}`);
      unread.add(agent);
      again();
    });
  };
  // Changes may have been missed while the connection was down: read the active holds again,
  // and forget the known ones that ended meanwhile (those learnt since are kept).
  const relist = (): void => {
    relistDue = false;
    const earlier = gate.knownHolds.ids();
    listAllActive(gate.holds)
      .then((active) => gate.knownHolds.forgetEnded(earlier, new Set(active.map((h) => h.agent))))
      .catch((error: unknown) => {
        log(`plangate: reading the active holds after reconnecting failed (trying again): ${error instanceof Error ? error.message : String(error)}`);
        relistDue = true;
        again();
      });
  };
  const watch = watchHoldChanges(url, (change) => read(change.agent), (error) => log(`plangate: following hold changes: ${error.message}`));
  watch.onReconnect = relist;
  let timer: NodeJS.Timeout | undefined;
  let ready = false;
  await Promise.race([watch.ready.then(() => { ready = true; }), new Promise<void>((resolve) => { timer = setTimeout(resolve, HOLD_WATCH_READY_MS); })]);
  clearTimeout(timer);
  // Start-up went on without the watch: changes until its first LISTEN were not followed, so read the holds again then.
  if (!ready) void watch.ready.then(relist);
  const close = watch.close.bind(watch);
  watch.close = async () => {
    closed = true;
    clearTimeout(retryTimer);
    await close();
  };
  return watch;
}
