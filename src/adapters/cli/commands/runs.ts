/**
 * Runs and delegations from the command line: the CLI is a trusted party
 * (whoever runs it has the store), like the host and an operator.
 *
 *   plangate run start --seat 0xWORKER [--id R] [--delegation D] [--ttl-minutes N]
 *   plangate run end <id>
 *   plangate run list [--seat S] [--limit N]
 *   plangate delegate --manager 0xMGR --worker 0xWORKER [--run R] [--ttl-minutes N]
 *   plangate delegate revoke <id>
 */
import type { Command } from 'commander';
import type { Delegation, Run } from '../../../core/types.js';
import { EXIT } from '../exit.js';
import { json } from '../io.js';
import type { CommandContext } from '../main.js';
import { actor, withPlangate } from '../shared.js';

const MINUTE = 60_000;


const iso = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString());

/** One line per run, e.g. `run R1  0xWORKER  open  started 2026-… by ci  expires 2026-…`. */
export function runLine(r: Run, now: number): string {
  const state = r.endedAt !== null && r.endedAt <= now ? `ended ${iso(r.endedAt)} by ${r.endedBy}` : r.expiresAt <= now ? 'expired' : 'open';
  return `run ${r.id}  ${r.seat}  ${state}  started ${iso(r.startedAt)} by ${r.startedBy}  expires ${iso(r.expiresAt)}${r.delegationId ? `  delegation ${r.delegationId}` : ''}`;
}

/** One line per delegation, e.g. `delegation d1  0xMGR → 0xWORKER  any run  no expiry  by ci`. */
export function delegationLine(d: Delegation): string {
  const run = d.runId === null ? 'any run' : `run ${d.runId}`;
  const until = d.expiresAt === null ? 'no expiry' : `until ${iso(d.expiresAt)}`;
  return `delegation ${d.id}  ${d.manager} → ${d.worker}  ${run}  ${until}  by ${d.createdBy}${d.revokedAt !== null ? `  revoked ${iso(d.revokedAt)}` : ''}`;
}

function minutes(v: string): number {
  if (!/^\d+$/.test(v)) throw new Error(`--ttl-minutes takes a whole number of minutes, got ${v}`);
  return Number(v);
}

export function registerRuns(program: Command, { io, wrap }: CommandContext): void {
  const run = program.command('run').description('runs: start, end and list them (a plan tagged with a run counts however old only while the run is open)');
  run
    .command('start')
    .description('start a run for a seat; it expires after --ttl-minutes (default 1440) or the rules\' runs.maxMinutes, whichever is first')
    .requiredOption('--seat <agent>', 'the seat the run belongs to')
    .option('--id <id>', 'the run id (default: a fresh random one)')
    .option('--delegation <id>', 'the recorded delegation to this seat the run is started under')
    .option('--ttl-minutes <n>', 'how long the run stays open at most', minutes)
    .option('--by <name>', 'who starts it (default: $PLANGATE_USER, $USER or "cli")')
    .option('--json', 'print the run as JSON')
    .action(wrap(async (opts: { seat: string; id?: string; delegation?: string; ttlMinutes?: number; by?: string; json?: boolean }, cmd: Command) =>
      withPlangate(cmd, io, async (pg) => {
        const r = await pg.gate.runs.start({
          seat: opts.seat, by: actor(io, opts.by, 'cli'),
          ...(opts.id !== undefined ? { id: opts.id } : {}),
          ...(opts.delegation !== undefined ? { delegationId: opts.delegation } : {}),
          ...(opts.ttlMinutes !== undefined ? { ttlMs: opts.ttlMinutes * MINUTE } : {}),
        });
        io.out(opts.json ? json(r) : runLine(r, Date.now()));
        return EXIT.ok;
      })));
  run
    .command('end')
    .description('end a run (ending an ended run changes nothing)')
    .argument('<id>', 'the run id')
    .option('--by <name>', 'who ends it (default: $PLANGATE_USER, $USER or "cli")')
    .option('--json', 'print the run as JSON')
    .action(wrap(async (id: string, opts: { by?: string; json?: boolean }, cmd: Command) =>
      withPlangate(cmd, io, async (pg) => {
        const r = await pg.gate.runs.end(id, { by: actor(io, opts.by, 'cli') });
        io.out(opts.json ? json(r) : runLine(r, Date.now()));
        return EXIT.ok;
      })));
  run
    .command('list')
    .description('list runs, newest first')
    .option('--seat <agent>', 'only this seat\'s runs')
    .option('--limit <n>', 'at most this many (default 100)', (v) => Number(v))
    .option('--json', 'print as JSON')
    .action(wrap(async (opts: { seat?: string; limit?: number; json?: boolean }, cmd: Command) =>
      withPlangate(cmd, io, async (pg) => {
        const runs = await pg.gate.runs.list({ ...(opts.seat !== undefined ? { seat: opts.seat } : {}), ...(opts.limit !== undefined ? { limit: opts.limit } : {}) });
        if (opts.json) io.out(json(runs));
        else if (runs.length === 0) io.out('no runs');
        else for (const r of runs) io.out(runLine(r, Date.now()));
        return EXIT.ok;
      })));

  const delegate = program
    .command('delegate')
    .description('record that a manager delegates to a worker (its plans then count for the worker where acceptUpstream is on)')
    .option('--manager <agent>', 'the delegating seat')
    .option('--worker <agent>', 'the seat working on its behalf')
    .option('--run <id>', 'only for this run (default: any run)')
    .option('--ttl-minutes <n>', 'how long it stays live (default: until revoked)', minutes)
    .option('--by <name>', 'who records it (default: $PLANGATE_USER, $USER or "cli")')
    .option('--json', 'print the delegation as JSON')
    .action(wrap(async (opts: { manager?: string; worker?: string; run?: string; ttlMinutes?: number; by?: string; json?: boolean }, cmd: Command) => {
      if (opts.manager === undefined || opts.worker === undefined) {
        io.err('plangate delegate: --manager and --worker are required');
        return EXIT.error;
      }
      const { manager, worker } = opts;
      return withPlangate(cmd, io, async (pg) => {
        const d = await pg.gate.delegations.record({
          manager, worker, by: actor(io, opts.by, 'cli'),
          ...(opts.run !== undefined ? { runId: opts.run } : {}),
          ...(opts.ttlMinutes !== undefined ? { ttlMs: opts.ttlMinutes * MINUTE } : {}),
        });
        io.out(opts.json ? json(d) : delegationLine(d));
        return EXIT.ok;
      });
    }));
  delegate
    .command('revoke')
    .description('revoke a delegation from now on')
    .argument('<id>', 'the delegation id')
    .option('--json', 'print the delegation as JSON')
    .action(wrap(async (id: string, opts: { json?: boolean }, cmd: Command) =>
      withPlangate(cmd, io, async (pg) => {
        const d = await pg.gate.delegations.revoke(id);
        io.out(opts.json ? json(d) : delegationLine(d));
        return EXIT.ok;
      })));
}
