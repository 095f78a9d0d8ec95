/**
 * Audit events of the trust checks: a claim beyond the caller's own seat
 * that the record does not back, refused. Never a message body.
 */

/** What kind of claim was refused. */
export type ClaimKind = 'delegation' | 'thread' | 'kind';

/**
 * A claim refused: a delegation chain with a link not on record, a post into
 * a thread the seat does not speak in, or a kind only the reviewer's or the
 * system's routes write. One event per refused request.
 *
 * @example
 * const e: ClaimRefused = {
 *   type: 'ClaimRefused', time: '2026-11-29T12:00:00.000Z', agent: '0xWORKER', claim: 'delegation',
 *   claimed: ['0xMGR'], refused: '0xMGR', tool: 'github.merge_pull_request', runId: null,
 * };
 */
export interface ClaimRefused {
  type: 'ClaimRefused';
  time: string;
  /** The seat the credential vouches for. */
  agent: string;
  claim: ClaimKind;
  /** The claim as made: the delegation chain, or the one thread or kind. */
  claimed: string[];
  /** The first part of the claim the record does not back. */
  refused: string;
  /** The tool of a refused call, null for a post. */
  tool: string | null;
  runId: string | null;
}

/**
 * A fresh copy of the event holding only its declared fields.
 *
 * @example
 * toTrustRecord({ ...event, body: 'secret' } as ClaimRefused) // no `body` key
 */
export function toTrustRecord(e: ClaimRefused): ClaimRefused {
  return {
    type: e.type, time: e.time, agent: e.agent, claim: e.claim, claimed: [...e.claimed], refused: e.refused, tool: e.tool, runId: e.runId,
  };
}
