/**
 * `plangate prune [--dry-run] [--json]`: deletes once what retention allows
 * (see main/retention.ts for the settings and why they are environment
 * variables); `--dry-run` counts what would go and deletes nothing.
 */
import type { Command } from 'commander';
import { EXIT } from '../exit.js';
import { json } from '../io.js';
import type { CommandContext } from '../main.js';
import { withPlangate } from '../shared.js';
import { pruneLine, pruneOnce, retentionFromEnv } from '../../../main/retention.js';

export function registerPrune(program: Command, { io, wrap }: CommandContext): void {
  program
    .command('prune')
    .description('delete messages, runs, delegations, holds, approval requests and PostgreSQL audit events that retention no longer keeps (PLANGATE_RETAIN_*_DAYS); never one that can still count')
    .option('--dry-run', 'say what would go, delete nothing')
    .option('--json', 'print the counts as JSON')
    .action(wrap(async (opts: { dryRun?: boolean; json?: boolean }, cmd: Command) => {
      const settings = retentionFromEnv(io.env);
      return withPlangate(cmd, io, async (pg) => {
        const r = await pruneOnce(pg, settings, { dryRun: opts.dryRun === true, now: Date.now() });
        if (opts.json) io.out(json(r));
        else if (r.skipped) io.out('another replica is pruning this store now: nothing done');
        else io.out(`${r.dryRun ? 'would delete' : 'deleted'} ${pruneLine(r)}`);
        return EXIT.ok;
      });
    }));
}
