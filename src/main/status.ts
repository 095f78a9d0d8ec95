/**
 * What a running plangate reports about itself: whether it enforces, which
 * rules and policy are in force, and the last reload error. /health,
 * /metrics and the boot banner read this.
 */
import type { Problem } from '../core/errors.js';

export interface RuntimeStatus {
  /** `degraded` while failing open or after a failed reload. */
  state: 'ok' | 'degraded';
  /** False while failing open (plan-required is NOT enforced). */
  enforcing: boolean;
  failOpen?: { reason: string; since: string };
  rules: { dir: string; revision: string | null; loadedAt: string | null; files: string[] };
  policy: { sha256: string | null; loadedAt: string | null };
  lastReloadError?: { message: string; problems: Problem[]; at: string };
  /** Successful reloads since start. */
  reloads: number;
  /** Failed reloads since start. */
  reloadErrors: number;
}

/** Anything that can report a RuntimeStatus. */
export interface StatusSource {
  status(): RuntimeStatus;
}
