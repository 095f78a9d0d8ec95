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

/**
 * Keeps `gate.knownHolds` current from the database's hold changes.
 *
 * @example
 * const watch = await followHoldChanges('postgres://db/plangate', gate, console.error);
 * await watch.close();
 */
export async function followHoldChanges(url: string, gate: Pick<Gate, 'holds' | 'knownHolds'>, log: (line: string) => void): Promise<HoldWatch> {
  const watch = watchHoldChanges(url, (change) => {
    // The change names the agent; reading its active hold now records it (or its end) in gate.knownHolds.
    gate.holds.get(change.agent).catch((error: unknown) => {
      log(`plangate: reading ${change.agent}'s hold after a change failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  }, (error) => log(`plangate: following hold changes: ${error.message}`));
  // Changes may have been missed while the connection was down: read the active holds again,
  // and forget the known ones that ended meanwhile (those learnt since are kept).
  const relist = (): void => {
    const earlier = gate.knownHolds.ids();
    listAllActive(gate.holds)
      .then((active) => gate.knownHolds.forgetEnded(earlier, new Set(active.map((h) => h.agent))))
      .catch((error: unknown) => log(`plangate: reading the active holds after reconnecting failed: ${error instanceof Error ? error.message : String(error)}`));
  };
  watch.onReconnect = relist;
  let timer: NodeJS.Timeout | undefined;
  let ready = false;
  await Promise.race([watch.ready.then(() => { ready = true; }), new Promise<void>((resolve) => { timer = setTimeout(resolve, HOLD_WATCH_READY_MS); })]);
  clearTimeout(timer);
  // Start-up went on without the watch: changes until its first LISTEN were not followed, so read the holds again then.
  if (!ready) void watch.ready.then(relist);
  return watch;
}
