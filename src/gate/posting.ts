/**
 * Who may post where: an agent posts only into the threads it speaks in
 * (its own, its crew chain's, the org's), and never a kind that belongs to
 * the reviewer or the system. Those are written only through the holds
 * (the reviewer's and the operator's routes). A refused post is a
 * `ClaimRefused` audit event, never silently stored.
 */
import { ErrorCode, PlangateError } from '../core/errors.js';
import { threadsToFetch } from '../core/threads.js';
import type { Lineage } from '../core/types.js';
import type { ClaimRefused } from '../audit/port.js';

/**
 * Message kinds only the reviewer's or the system's routes write: the
 * reviewer's push-back on a hold (`gate.holds.pushBack`), and the words a
 * release or a hold would be recorded under.
 */
export const RESERVED_KINDS: ReadonlySet<string> = new Set(['pushback', 'release', 'hold', 'unblock']);

/** Why an agent's post is refused, or undefined when it may post. */
export function postRefusal(seat: Lineage, thread: string, kind: string): { claim: 'thread' | 'kind'; refused: string; message: string } | undefined {
  if (RESERVED_KINDS.has(kind)) {
    return {
      claim: 'kind', refused: kind,
      message: `a message of kind "${kind}" is the reviewer's or the system's: it is written through the holds routes, not posted by an agent`,
    };
  }
  if (!threadsToFetch(seat).includes(thread)) {
    return {
      claim: 'thread', refused: thread,
      message: `${seat.id} does not speak in ${thread}: an agent posts only in its own thread, its crews' threads (up the chain) and the org thread`,
    };
  }
  return undefined;
}

/**
 * Throws `claim_refused` for a post an agent may not make, after recording it.
 *
 * @example
 * await checkAgentPost(lineage, 'crew:sports', 'plan', now, audit); // throws when 0xWORKER is not in sports
 */
export async function checkAgentPost(
  seat: Lineage, thread: string, kind: string, now: number, runId: string | undefined,
  audit: (event: ClaimRefused) => Promise<void>,
): Promise<void> {
  const refusal = postRefusal(seat, thread, kind);
  if (!refusal) return;
  await audit({
    type: 'ClaimRefused', time: new Date(now).toISOString(), agent: seat.id, claim: refusal.claim,
    claimed: [refusal.refused], refused: refusal.refused, tool: null, runId: runId ?? null,
  });
  throw new PlangateError(ErrorCode.ClaimRefused, refusal.message);
}
