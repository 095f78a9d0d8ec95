/**
 * Retention: what a store may delete, and when. Message bodies name
 * counterparties, repositories and amounts (the audit keeps no bodies for
 * that reason), so nothing is kept longer than something still needs it.
 *
 * A message can count for a decision at `now` or later only when it is
 * younger than the plan's freshness window, or tagged with a run that is
 * still open and posted since that run started (policies/plangate/plans.rego
 * and trust.rego). So the messages older than both the longest window in
 * force and the start of the oldest open run can never count again; the
 * store also keeps every message linked to a hold it keeps (the review
 * queue) and, for the console, every message younger than the floor.
 *
 * Runs, delegations and holds are deleted once they have been over
 * (ended or expired, revoked or expired, released or cleared) for longer
 * than their own setting: an open run, a live delegation and an active hold
 * are never deleted. Approval requests (whose stored arguments may hold
 * secrets) go the same way once answered and over: denied, used, or granted
 * and expired, for longer than their own setting; a pending request and a
 * grant still usable are never deleted.
 */
import { DEFAULT_MAX_RUN_MIN, DEFAULT_WINDOW_MIN, type RulesData } from '../core/rules.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** How long each kind of record is kept at least, in days, and how much one prune deletes at most. */
export interface RetentionSettings {
  /** Messages: the floor (e.g. what the console shows); the decision's needs may keep them longer. */
  messagesDays: number;
  /** Runs, from their end (or expiry). */
  runsDays: number;
  /** Delegations, from their revocation (or expiry). */
  delegationsDays: number;
  /** Holds, from their release or clearing, with the messages linked to them. */
  holdsDays: number;
  /** Approval requests, from their denial, use or expiry. */
  approvalsDays: number;
  /** Audit events in the PostgreSQL audit table (JSONL files are the operator's to rotate). */
  auditDays: number;
  /** Most rows one prune deletes of each kind (the cap); the next prune goes on. */
  maxRows: number;
  /** Rows per delete statement: each is its own short transaction. */
  batch: number;
}

export const DEFAULT_RETENTION: Readonly<RetentionSettings> = Object.freeze({
  messagesDays: 30,
  runsDays: 30,
  delegationsDays: 30,
  holdsDays: 90,
  approvalsDays: 30,
  auditDays: 365,
  maxRows: 100_000,
  batch: 1_000,
});

/** The instants before which each kind may go (epoch ms). */
export interface PruneCutoffs {
  /** The decision time of the prune: open runs and active holds are judged at it. */
  now: number;
  /** Messages posted before this may go, unless linked to a kept hold or tagged with… (the store checks open runs itself). */
  messagesBefore: number;
  runsBefore: number;
  delegationsBefore: number;
  holdsBefore: number;
  approvalsBefore: number;
  auditBefore: number;
}

/** What one prune deleted (or, dry, would delete), per kind. */
export interface PruneCounts {
  messages: number;
  runs: number;
  delegations: number;
  holds: number;
  approvals: number;
  audit?: number;
}

export interface PruneOptions {
  dryRun?: boolean;
  maxRows: number;
  batch: number;
}

/** A store that can prune itself. `skipped` when another replica is pruning the same database now. */
export interface Pruning {
  prune(cutoffs: PruneCutoffs, options: PruneOptions): Promise<PruneCounts & { skipped?: true; keptFrom: number }>;
}

/** The longest freshness window any rule in force sets, in minutes. */
export function longestWindowMin(rules: RulesData | undefined): number {
  let most = DEFAULT_WINDOW_MIN;
  if (!rules) return most;
  const all = [rules.planRequired.workspace, ...Object.values(rules.planRequired.crews), ...Object.values(rules.planRequired.agents)];
  for (const r of all) if (r?.windowMin !== undefined && r.windowMin > most) most = r.windowMin;
  return most;
}

/** The longest a run may stay open under the rules in force, in minutes. */
export function longestRunMin(rules: RulesData | undefined): number {
  return rules?.runs?.maxMinutes ?? DEFAULT_MAX_RUN_MIN;
}

/**
 * The cutoffs at `now`. Messages: the older of the floor and of what a
 * decision may still need (the longest window in force, and the longest
 * run: a run-tagged message counts only while its run is open, never longer
 * than the longest run; the store also keeps every message since the oldest
 * run still open). Without rules in force (plangate failing open), the
 * longest window and run the rules could set are assumed.
 *
 * @example
 * cutoffs(Date.now(), DEFAULT_RETENTION, rules).messagesBefore // 30 days ago, or earlier
 */
export function cutoffs(now: number, s: RetentionSettings, rules: RulesData | undefined, unknownRules: { windowMin: number; runMin: number }): PruneCutoffs {
  const windowMin = rules ? longestWindowMin(rules) : unknownRules.windowMin;
  const runMin = rules ? longestRunMin(rules) : unknownRules.runMin;
  const needed = Math.max(windowMin, runMin) * 60_000;
  return {
    now,
    messagesBefore: now - Math.max(needed, s.messagesDays * DAY_MS),
    runsBefore: now - s.runsDays * DAY_MS,
    delegationsBefore: now - s.delegationsDays * DAY_MS,
    holdsBefore: now - s.holdsDays * DAY_MS,
    approvalsBefore: now - s.approvalsDays * DAY_MS,
    auditBefore: now - s.auditDays * DAY_MS,
  };
}
