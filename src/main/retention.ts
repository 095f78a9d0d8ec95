/**
 * Retention as a deployment runs it: the settings from the environment, one
 * prune now (`plangate prune`, `--dry-run`), or one every so often
 * (`plangate serve`). What may go is decided in facts/retention.ts; the
 * store deletes it (facts/sqlite/prune.ts, facts/postgres/prune.ts).
 *
 * The settings live in the environment, not in the rule files: they are
 * the deployment's storage and privacy choice, the same for every replica
 * of a store, and a rule edit (which the API allows an operator token, and
 * which any replica may load on its own) must never be able to delete
 * data. The rules still count: the longest window and run in force keep
 * every message a decision may need, whatever the floor.
 */
import { ErrorCode, PlangateError } from '../core/errors.js';
import { MAX_WINDOW_MIN } from '../core/rules.js';
import { cutoffs, DEFAULT_RETENTION, type PruneCounts, type RetentionSettings } from '../facts/retention.js';
import type { Plangate } from './open.js';

/** The variable behind each setting. */
export const RETENTION_ENV: Readonly<Record<keyof RetentionSettings, string>> = {
  messagesDays: 'PLANGATE_RETAIN_MESSAGES_DAYS',
  runsDays: 'PLANGATE_RETAIN_RUNS_DAYS',
  delegationsDays: 'PLANGATE_RETAIN_DELEGATIONS_DAYS',
  holdsDays: 'PLANGATE_RETAIN_HOLDS_DAYS',
  approvalsDays: 'PLANGATE_RETAIN_APPROVALS_DAYS',
  auditDays: 'PLANGATE_RETAIN_AUDIT_DAYS',
  maxRows: 'PLANGATE_PRUNE_MAX_ROWS',
  batch: 'PLANGATE_PRUNE_BATCH',
};

/** How often `plangate serve` prunes, in minutes (0: never). */
export const PRUNE_EVERY_ENV = 'PLANGATE_PRUNE_EVERY_MIN';
export const DEFAULT_PRUNE_EVERY_MIN = 60;

/** Whole numbers each setting takes: days from 0 (keep only what can still count), rows from 1. */
const LEAST: Record<keyof RetentionSettings, number> = { messagesDays: 0, runsDays: 0, delegationsDays: 0, holdsDays: 0, approvalsDays: 0, auditDays: 0, maxRows: 1, batch: 1 };

function wholeFrom(env: NodeJS.ProcessEnv, name: string, least: number, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < least || !Number.isSafeInteger(Number(raw))) {
    throw new PlangateError(ErrorCode.InvalidInput, `env:${name}: expected a whole number of at least ${least}, got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

/**
 * The retention settings from the environment, the defaults where unset;
 * throws `invalid_input` naming the variable for a bad value.
 *
 * @example
 * retentionFromEnv({ PLANGATE_RETAIN_MESSAGES_DAYS: '7' }).messagesDays // 7
 */
export function retentionFromEnv(env: NodeJS.ProcessEnv): RetentionSettings {
  const out = { ...DEFAULT_RETENTION };
  for (const key of Object.keys(RETENTION_ENV) as Array<keyof RetentionSettings>) {
    out[key] = wholeFrom(env, RETENTION_ENV[key], LEAST[key], DEFAULT_RETENTION[key]);
  }
  return out;
}

/** How often `serve` prunes, in milliseconds; 0 for never. */
export function pruneEveryMs(env: NodeJS.ProcessEnv): number {
  return wholeFrom(env, PRUNE_EVERY_ENV, 0, DEFAULT_PRUNE_EVERY_MIN) * 60_000;
}

/** One prune's outcome: the counts, the cutoffs it used, and whether it was dry. */
export interface PruneResult extends PruneCounts {
  dryRun: boolean;
  /** Another replica was pruning: nothing was done. */
  skipped?: true;
  /** Messages before this went (or would go), except those a kept hold links to. */
  messagesBefore: number;
  runsBefore: number;
  delegationsBefore: number;
  holdsBefore: number;
  approvalsBefore: number;
  auditBefore: number;
}

/**
 * Prunes `pg`'s store once at `now`, by the rules in force. Without rules in
 * force (plangate failing open) the longest window a rule may set, a week,
 * and the default longest run are assumed, whichever is longer.
 */
export async function pruneOnce(pg: Plangate, settings: RetentionSettings, o: { dryRun?: boolean; now: number }): Promise<PruneResult> {
  if (typeof pg.store.prune !== 'function') {
    throw new PlangateError(ErrorCode.InvalidInput, 'this store does not prune (the memory store keeps nothing past its process)');
  }
  const c = cutoffs(o.now, settings, pg.rules?.data, { windowMin: MAX_WINDOW_MIN, runMin: MAX_WINDOW_MIN });
  const r = await pg.store.prune(c, { dryRun: o.dryRun === true, maxRows: settings.maxRows, batch: settings.batch });
  // A message may also be kept for the oldest open run: say the cutoff that was used.
  return {
    messages: r.messages, runs: r.runs, delegations: r.delegations, holds: r.holds, approvals: r.approvals,
    ...(r.audit !== undefined ? { audit: r.audit } : {}),
    ...(r.skipped ? { skipped: true as const } : {}),
    dryRun: o.dryRun === true,
    messagesBefore: Math.min(c.messagesBefore, r.keptFrom),
    runsBefore: c.runsBefore,
    delegationsBefore: c.delegationsBefore,
    holdsBefore: c.holdsBefore,
    approvalsBefore: c.approvalsBefore,
    auditBefore: c.auditBefore,
  };
}

/**
 * Prunes every `everyMs` (the first one after one period) until stopped; a
 * prune that fails is logged and the next one tries again.
 */
export function schedulePrune(pg: Plangate, settings: RetentionSettings, everyMs: number, clock: () => number, log: (text: string) => void): { stop(): void } {
  if (everyMs <= 0 || typeof pg.store.prune !== 'function') return { stop() {} };
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    pruneOnce(pg, settings, { now: clock() })
      .then((r) => {
        if (!r.skipped && r.messages + r.runs + r.delegations + r.holds + r.approvals + (r.audit ?? 0) > 0) log(`plangate: pruned ${pruneLine(r)}`);
      })
      .catch((error: unknown) => log(`plangate: prune failed: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        running = false;
      });
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** One line: `12 messages (before 2026-…), 3 runs, 0 delegations, 1 hold, 0 approval requests, 0 audit events`. */
export function pruneLine(r: PruneResult): string {
  const iso = (ms: number): string => new Date(ms).toISOString();
  return [
    `${r.messages} messages (posted before ${iso(r.messagesBefore)})`,
    `${r.runs} runs (over before ${iso(r.runsBefore)})`,
    `${r.delegations} delegations (over before ${iso(r.delegationsBefore)})`,
    `${r.holds} holds (over before ${iso(r.holdsBefore)})`,
    `${r.approvals} approval requests (over before ${iso(r.approvalsBefore)})`,
    ...(r.audit !== undefined ? [`${r.audit} audit events (before ${iso(r.auditBefore)})`] : []),
  ].join(', ');
}
