/**
 * Helpers shared by commands: opening plangate from the global options.
 */
import type { Command } from 'commander';
import { ErrorCode, PlangateError } from '../../core/errors.js';
import { resolvePaths } from '../../main/config.js';
import { openPlangate, type OpenOptions, type Plangate } from '../../main/open.js';
import { requireRules, rulesOptional, type LocationSource } from '../../main/rules-location.js';
import type { Io } from './io.js';
import type { GlobalOptions } from './main.js';

/**
 * Where the rules location came from: `--rules`, `PLANGATE_RULES`, or the default.
 *
 * @example
 * rulesSource(cmd, io) // 'default' when neither --rules nor PLANGATE_RULES is given
 */
export function rulesSource(cmd: Command, io: Io): LocationSource {
  const g = cmd.optsWithGlobals<GlobalOptions>();
  if (g.rules) return cmd.getOptionValueSourceWithGlobals('rules') === 'env' ? 'env' : 'option';
  return io.env['PLANGATE_RULES'] ? 'env' : 'default';
}

/**
 * Opens plangate from `--rules/--store/--audit/--policy` (or their
 * environment variables, or the defaults). A rules location that does not
 * exist or holds no rule file is refused (`rules_missing`) unless
 * `--rules-optional`; bad rules or a bad policy do not fail here: plangate
 * fails open, with the banner on stderr.
 */
export async function openFromOptions(cmd: Command, io: Io, extra: Pick<OpenOptions, 'watch' | 'decisionLog' | 'readRoots' | 'rulesCache'> = {}): Promise<Plangate> {
  const g = cmd.optsWithGlobals<GlobalOptions>();
  const rules = resolvePaths(g.rules ? { rules: g.rules } : {}, io.env).rules;
  await requireRules(rules, rulesSource(cmd, io), rulesOptional(g.rulesOptional, io.env));
  return openPlangate({
    ...(g.rules ? { rules: g.rules } : {}),
    ...(g.store ? { store: g.store } : {}),
    ...(g.audit ? { audit: g.audit } : {}),
    ...(g.policy ? { policy: g.policy } : {}),
    env: io.env,
    log: (text) => io.err(text),
    ...extra,
  });
}

/** Runs `fn` with plangate open, closing it afterwards. */
export async function withPlangate<T>(cmd: Command, io: Io, fn: (pg: Plangate) => Promise<T>): Promise<T> {
  const pg = await openFromOptions(cmd, io);
  try {
    return await fn(pg);
  } finally {
    await pg.close();
  }
}

/**
 * A Commander parser of a whole number from `min` to `max` (no bound above
 * when `max` is left out) for the option `name`.
 *
 * @example
 * new Option('--port <port>').argParser(integer('--port', 0, 65535))
 */
export function integer(name: string, min: number, max = Number.POSITIVE_INFINITY): (value: string) => number {
  const range = max === Number.POSITIVE_INFINITY ? `of at least ${min}` : `from ${min} to ${max}`;
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new PlangateError(ErrorCode.InvalidInput, `${name} must be an integer ${range} (got "${value}")`);
    }
    return n;
  };
}

/** Commander collector for repeatable options. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Parses `--at`: epoch milliseconds or an ISO-8601 date-time. */
export function parseAt(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  return /^\d+$/.test(value) ? Number(value) : value;
}

/**
 * Who is acting, when `--by` is not given: $PLANGATE_USER, else $USER, else `fallback`.
 *
 * @example
 * actor(io, undefined, 'operator') // 'ops-alice' with PLANGATE_USER=ops-alice
 */
export function actor(io: Io, by: string | undefined, fallback: string): string {
  return by ?? io.env['PLANGATE_USER'] ?? io.env['USER'] ?? fallback;
}

/**
 * Resolves with the first SIGTERM or SIGINT, then stops listening for both.
 *
 * @example
 * const signal = await untilSignal(); // 'SIGTERM'
 */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (s: NodeJS.Signals): void => {
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
      resolve(s);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
  });
}

/** A long-running command's SIGHUP handler, as reopenAuditOnHup installs it. */
export interface AuditHup {
  attach(pg: Pick<Plangate, 'audit' | 'paths'>): void;
  stopping(): void;
  off(): void;
}

/**
 * SIGHUP reopens the audit file, so a log rotation that moved it away gets a
 * fresh one. The handler is installed when the command starts, before
 * plangate is open: a SIGHUP's default action kills the process, and a log
 * rotation may well come while plangate opens its store or loads its
 * policy. One that comes before `attach(pg)` reopens the audit once plangate
 * is open (the file may have been opened before it was moved). Once
 * `stopping()` is called a SIGHUP is ignored rather than left to its default
 * action, which would kill the process under the requests in flight (the
 * audit log is being closed anyway); `off()` after everything is closed.
 *
 * @example
 * const hup = reopenAuditOnHup(io);
 * const pg = await openFromOptions(cmd, io); hup.attach(pg);
 * await untilSignal(); hup.stopping(); await pg.close(); hup.off();
 */
export function reopenAuditOnHup(io: Io): AuditHup {
  let stopping = false;
  let pg: Pick<Plangate, 'audit' | 'paths'> | undefined;
  let pending = false;
  const reopen = (open: Pick<Plangate, 'audit' | 'paths'>): void => {
    void (open.audit.reopen?.() ?? Promise.resolve()).then(
      () => io.err(`plangate: SIGHUP: audit log ${open.paths.audit} reopened`),
      (error: unknown) => io.err(`plangate: SIGHUP: the audit log ${open.paths.audit} cannot be reopened: ${error instanceof Error ? error.message : String(error)} (retrying by itself)`),
    );
  };
  const onHup = (): void => {
    if (stopping) return;
    if (pg) reopen(pg);
    else pending = true;
  };
  process.on('SIGHUP', onHup);
  return {
    attach: (open) => {
      pg = open;
      if (pending && !stopping) reopen(open);
      pending = false;
    },
    stopping: () => { stopping = true; },
    off: () => void process.off('SIGHUP', onHup),
  };
}
