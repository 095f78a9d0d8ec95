/** `plangate say`: post a message to a thread. Posting is never an effect. */
import { Option, type Command } from 'commander';
import { toMillis } from '../../../gate/call.js';
import { EXIT } from '../exit.js';
import { json } from '../io.js';
import type { CommandContext } from '../main.js';
import { parseAt, withPlangate } from '../shared.js';

interface SayOptions {
  thread: string;
  as?: string;
  human?: string;
  kind: string;
  run?: string;
  at?: string;
}

export function registerSay(program: Command, { io, wrap }: CommandContext): void {
  program
    .command('say')
    .description('post a message (e.g. a plan) to a thread: agent:<id>, crew:<id> or org')
    .argument('<body>', 'the message text')
    .requiredOption('--thread <thread>', 'agent:<id>, crew:<id> or org')
    .addOption(new Option('--as <agent>', 'post as this agent').conflicts('human'))
    .addOption(new Option('--human <name>', 'post as a person').conflicts('as'))
    .requiredOption('--kind <kind>', 'plan, note, …')
    .option('--run <id>', 'tag the message with a run id')
    .option('--at <time>', 'when it was posted: ISO-8601 or epoch ms (default: now)')
    .action(wrap(async (body: string, opts: SayOptions, cmd: Command) => {
      const author = opts.as ?? opts.human;
      if (author === undefined) {
        io.err('plangate say: give the author with --as AGENT or --human NAME');
        return EXIT.error;
      }
      const at = parseAt(opts.at);
      return withPlangate(cmd, io, async (pg) => {
        const message = await pg.gate.say({
          thread: opts.thread,
          author,
          authorKind: opts.as !== undefined ? 'agent' : 'human',
          kind: opts.kind,
          body,
          ...(at !== undefined ? { at: toMillis(at, '--at') } : {}),
          ...(opts.run !== undefined ? { runId: opts.run } : {}),
        });
        io.out(json({ id: message.id, thread: message.thread, author: message.author, authorKind: message.authorKind, kind: message.kind, at: new Date(message.at).toISOString(), ...(message.runId ? { runId: message.runId } : {}) }));
        return EXIT.ok;
      });
    }));
}
