/**
 * The active holds on record when plangate starts: read in full before the
 * first decision, so that a held agent stays held even if the store fails
 * right away (core/failclosed.ts). When they cannot be read, the gate is
 * told that no hold is known (`knownHolds.unread`: no call goes through a
 * failing store meanwhile) and the listing is tried again, with a growing
 * delay, until it succeeds once.
 */
import type { Gate } from '../gate/gate.js';
import { listAllActive } from '../gate/holds.js';

/** The first delay before the listing is tried again, and the longest. */
export const HOLDS_RETRY_MS = { first: 1_000, max: 30_000 } as const;

/** Stops the retries (at close). */
export interface HoldsAtStart {
  stop(): void;
}

/**
 * @example
 * const reading = await readHoldsAtStart(gate, console.error);
 * reading.stop();
 */
export async function readHoldsAtStart(gate: Pick<Gate, 'holds' | 'knownHolds'>, log: (line: string) => void): Promise<HoldsAtStart> {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const attempt = async (delay: number, first: boolean): Promise<void> => {
    try {
      await listAllActive(gate.holds);
      gate.knownHolds.unread = false;
      if (!first) log('plangate: the active holds have been read; a failing store fails open again for agents not held');
    } catch (error) {
      gate.knownHolds.unread = true;
      if (first) {
        log(`plangate: the store failed while reading the active holds at start, so every call FAILS CLOSED while the store fails, until they are read: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (stopped) return;
      timer = setTimeout(() => void attempt(Math.min(delay * 2, HOLDS_RETRY_MS.max), false), delay);
      timer.unref();
    }
  };
  await attempt(HOLDS_RETRY_MS.first, true);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
