/**
 * The decision log: one JSON line per decision with the policy input it was
 * decided on, for replaying past decisions under other rules
 * (`plangate diff --replay`). Written only when asked
 * (`plangate serve --decision-log FILE`). The input never holds a message
 * body (the policy sees message facts only); it holds the call's arguments
 * as the policy saw them.
 *
 * Each line is written with one `write(2)` on an O_APPEND descriptor, so a
 * line is whole or absent; lines are not fsynced one by one (the log is for
 * analysis, the audit is the record).
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Decision, PolicyInput } from '../core/types.js';

/** One line of the decision log. */
export interface DecisionRecord {
  /** The format's version. */
  v: 1;
  /** When the call was decided, ISO-8601 (UTC). */
  time: string;
  /** The revision of the rules that decided it, when known. */
  rules?: string;
  input: PolicyInput;
  allowed: boolean;
  check?: string;
  code?: string;
  shadow?: true;
  failOpen?: true;
}

export interface DecisionLog {
  readonly path: string;
  record(input: PolicyInput, decision: Decision, rulesRevision?: string): void;
  close(): Promise<void>;
}

/**
 * Opens (creating it and its folder) a decision log for appending.
 *
 * @example
 * const log = createDecisionLog('.data/decisions.jsonl');
 * log.record(input, decision, 'ab12…');
 */
export function createDecisionLog(path: string): DecisionLog {
  const file = resolve(path);
  mkdirSync(dirname(file), { recursive: true });
  let fd: number | null = openSync(file, 'a');
  return {
    path: file,
    record(input, decision, rulesRevision) {
      if (fd === null) throw new Error('the decision log is closed');
      const record: DecisionRecord = {
        v: 1,
        time: new Date(input.now).toISOString(),
        ...(rulesRevision ? { rules: rulesRevision } : {}),
        input,
        allowed: decision.allowed,
        ...(decision.check ? { check: decision.check } : {}),
        ...(decision.code ? { code: decision.code } : {}),
        ...(decision.shadow === true ? { shadow: true as const } : {}),
        ...(decision.failOpen ? { failOpen: true as const } : {}),
      };
      writeSync(fd, `${JSON.stringify(record)}\n`);
    },
    async close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}
