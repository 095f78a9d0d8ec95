/**
 * What a running plangate reports about itself: whether it enforces, which
 * rules and policy are in force, and the last reload error. /health,
 * /metrics and the boot banner read this.
 */
import type { AuditSinkState } from '../audit/port.js';
import type { ClockState } from './clock-watch.js';
import type { Problem } from '../core/errors.js';

/** How long after the last call that failed open on a store outage /health still says degraded (ms). */
export const STORE_FAIL_OPEN_DEGRADED_MS = 60_000;

export interface RuntimeStatus {
  /** `degraded` while failing open, after a failed reload, while the audit sink is failed, or while the clock is off the database's. */
  state: 'ok' | 'degraded';
  /** False while failing open (plan-required is NOT enforced). */
  enforcing: boolean;
  failOpen?: { reason: string; since: string };
  /**
   * While calls fail open because the store fails (an outage): since when,
   * the last such call, and its reason. Degraded until none has failed open
   * for {@link STORE_FAIL_OPEN_DEGRADED_MS}.
   */
  storeFailingOpen?: { since: string; last: string; reason: string };
  rules: { dir: string; revision: string | null; loadedAt: string | null; files: string[] };
  policy: { sha256: string | null; loadedAt: string | null };
  lastReloadError?: { message: string; problems: Problem[]; at: string };
  /** Successful reloads since start. */
  reloads: number;
  /** Failed reloads since start. */
  reloadErrors: number;
  /** Decisions since start (added with hot reload; optional for older sources). */
  decisions?: {
    total: number;
    /** Refused calls (the effect was not started). */
    refused: number;
    /** Shadow mode: would-be refusals that went through (`enforce: false`). */
    shadowRefused: number;
    /** Calls let through because there was no policy or no facts to decide them. */
    failOpen: number;
    /** A held agent's calls decided by the host's fail-closed hold rule (no policy or no store). */
    failClosed?: number;
  };
  /** Settings pinned by the environment: each `PLANGATE_WORKSPACE_*` variable set, with its value. */
  env?: { pinned: Record<string, string> };
  /** Whether the rules directory and the policy are watched for changes (hot reload). */
  watching?: boolean;
  /** Whether the audit sink writes (a failed sink reopens by itself); absent when the sink does not say. */
  audit?: AuditSinkState;
  /** With a PostgreSQL store: this process's clock against the database's (degraded when off). */
  clock?: ClockState;
}

/**
 * The status with the audit sink's state: degraded while the sink is failed.
 *
 * @example
 * withAudit(runtime.status(), sink.state?.()).state // 'degraded' while the audit log cannot be written
 */
export function withAudit(status: RuntimeStatus, audit: AuditSinkState | undefined): RuntimeStatus {
  if (!audit) return status;
  return { ...status, audit, ...(audit.ok ? {} : { state: 'degraded' as const }) };
}

/**
 * The status with the clock's last measure: degraded while this process's
 * clock is off the database's.
 *
 * @example
 * withClock(status, { skewMs: -5000, rttMs: 1, checkedAt, ok: false }).state // 'degraded'
 */
export function withClock(status: RuntimeStatus, clock: ClockState | undefined): RuntimeStatus {
  if (!clock) return status;
  return { ...status, clock, ...(clock.ok ? {} : { state: 'degraded' as const }) };
}

/** Anything that can report a RuntimeStatus. */
export interface StatusSource {
  status(): RuntimeStatus;
}
