/**
 * The facts the policy is given: messages, lineages, holds, files, runs and
 * delegations, and the policy input built from them. Every fact has a party
 * entitled to assert it (see docs/concepts/trust-model.md).
 */

import type { ApprovalInput } from './approvals.js';
import type { ToolHints } from './call.js';

/** Who wrote a message. */
export type AuthorKind = 'agent' | 'human';

/** A message as posted (`say`). Posting is never an effect. */
export interface NewMessage {
  /** `agent:<id>`, `crew:<id>` or `org`. */
  thread: string;
  author: string;
  authorKind: AuthorKind;
  /** `plan`, `note`, or any other word. Only `plan` can satisfy plan-required. */
  kind: string;
  body: string;
  /** Epoch milliseconds; defaults to now. */
  at?: number;
  runId?: string;
}

/** A stored message. */
export interface StoredMessage extends Omit<NewMessage, 'at'> {
  id: string;
  at: number;
}

/** What the policy sees of a message: never its body. */
export interface MessageFact {
  id: string;
  thread: string;
  author: string;
  authorKind: AuthorKind;
  kind: string;
  at: number;
  runId?: string;
}

/** An agent's place in the org: its crew and every ancestor crew, nearest first. */
export interface Lineage {
  id: string;
  /** False when the org does not know this agent. */
  known: boolean;
  crews: string[];
}

/** What the policy sees of an agent's active planning hold. */
export interface HoldFact {
  id: string;
  kind: HoldKind;
  task: string | null;
  placedBy: string;
  placedAt: number;
  /** Plans sent through the reviewer channel so far, and the reviewer's push-backs. */
  plans: number;
  pushBacks: number;
}

/** Who placed a hold: the reviewer (only where the planning gate is on) or an operator on demand. */
export type HoldKind = 'reviewer' | 'on_demand';

/**
 * What the host found at a path a whole-file read names, resolved inside the
 * read roots with symlinks followed. `path` is the argument as given. A path
 * leading outside every root is `outside` and nothing more (the host did not
 * look); where a path resolved to goes to the audit, never to the policy.
 * `special` is a FIFO, a device, a socket or a file of /proc and its kind (no
 * size: a read of it may never end); `other` anything else that is not a regular file (a directory).
 */
export type FileFact =
  | { path: string; kind: 'file'; size: number; spans?: LineSpan[] }
  | { path: string; kind: 'missing' | 'special' | 'other' | 'outside' };

/**
 * Lines a call asks for: the first (`head`) or last (`tail`) `count` lines
 * of a file; the first after `skip` lines, when an offset skips some.
 */
export interface LineCount {
  from: 'head' | 'tail';
  count: number;
  skip?: number;
}

/**
 * The bytes the lines a call asks for take in a file over the read guard's
 * ceiling, as the host measured them: exact up to the ceiling, one more
 * than the ceiling beyond it; null when the host could not measure them.
 */
export interface LineSpan extends LineCount {
  bytes: number | null;
}

/** What the policy sees of the call's run, as recorded (see {@link Run}). */
export type RunFact = Pick<Run, 'id' | 'seat' | 'delegationId' | 'startedAt' | 'expiresAt' | 'endedAt'>;

/** What the policy sees of a recorded delegation (see {@link Delegation}). */
export type DelegationFact = Pick<Delegation, 'id' | 'manager' | 'worker' | 'runId' | 'createdAt' | 'expiresAt' | 'revokedAt'>;

/** The policy input: the facts gathered for one call. */
/**
 * What the MCP gateway knows of the upstream tool a call goes to: asserted
 * by the gateway alone (never read from a call's body), for the tool's pin
 * and for whether the rules trust that upstream's annotations.
 */
export interface McpToolFact {
  /** The upstream's name, as plangate mcp names it. */
  upstream: string;
  /** The tool's name on that upstream. */
  tool: string;
  /** `sha256:` and the hex digest of the tool's definition now (see adapters/mcp/pins.ts); none for `own`. */
  digest?: string;
  /**
   * The call is to one of the protocol's own entry points (`resources/read`,
   * `prompts/get`, …), whose hints are the gateway's, not an upstream's.
   */
  own?: true;
}

export interface PolicyInput {
  /** Decision time, epoch milliseconds. */
  now: number;
  /** `delegatedBy` is the call's claim; only its recorded prefix counts (see `delegations`). */
  call: { agent: string; tool: string; runId?: string; delegatedBy: string[]; args?: Record<string, unknown>; omittedArgs?: string[]; annotations?: ToolHints; mcp?: McpToolFact };
  agent: Lineage;
  /** The lineages of the claimed managers whose every link down to the agent is on record, nearest first. */
  upstream: Lineage[];
  /**
   * The live recorded delegations for each claimed link (manager →
   * worker, from the agent up); the policy walks them to find how far the
   * claim is backed.
   */
  delegations?: DelegationFact[];
  /** The recorded run of `call.runId`, when one exists. */
  run?: RunFact;
  messages: MessageFact[];
  /** The agent's active planning hold, when it is held. */
  hold?: HoldFact;
  /** The files a whole-file read names, by path, once the decision asked for them (`Decision.needs`). */
  files?: Record<string, FileFact>;
  /** The digest of the call's arguments and the approvals of it on record, once the decision said it needs approval. */
  approval?: ApprovalInput;
}

/**
 * A run: one flow of work by one seat, started and ended by a trusted party
 * (the host in-process, the CLI, an operator or an orchestrator over HTTP),
 * never by the agent it belongs to. A plan tagged with a run counts however
 * old only while the run is open, for the run's own seat (or its recorded
 * delegation chain), and only if it was posted after the run started.
 */
export interface Run {
  id: string;
  /** The seat the run belongs to. */
  seat: string;
  /** The delegation the run was started under, when it is a delegated run. */
  delegationId: string | null;
  /** Epoch milliseconds. */
  startedAt: number;
  /** When the run ends by itself (epoch ms): a run is bounded even when nobody ends it. */
  expiresAt: number;
  /** When it was ended, or null while it has not been. */
  endedAt: number | null;
  /** Who started it (a principal name such as `operator:ci` or `host`). */
  startedBy: string;
  endedBy: string | null;
}

/** A run to start. */
export interface NewRun {
  /** Defaults to a new random id. */
  id?: string;
  seat: string;
  delegationId?: string;
  startedBy: string;
  /** Epoch milliseconds; defaults to now. */
  startedAt?: number;
  expiresAt: number;
}

/**
 * A recorded delegation: `manager` hands work to `worker`, optionally for one
 * run and until an expiry. Recorded by the manager's own credential, the host,
 * the CLI or an operator; a call's claimed `delegatedBy` counts only as far as
 * it matches live delegations.
 */
export interface Delegation {
  id: string;
  manager: string;
  worker: string;
  /** The run the delegation is for, or null for any run. */
  runId: string | null;
  createdAt: number;
  /** Epoch milliseconds, or null for no expiry. */
  expiresAt: number | null;
  revokedAt: number | null;
  createdBy: string;
}

/** A delegation to record. */
export interface NewDelegation {
  id?: string;
  manager: string;
  worker: string;
  runId?: string;
  createdBy: string;
  createdAt?: number;
  expiresAt?: number;
}
