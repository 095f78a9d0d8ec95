/** `plangate org`: crews and agents in the store. */
import type { Command } from 'commander';
import { openStore } from '../../../main/open.js';
import { resolvePaths } from '../../../main/config.js';
import type { Store } from '../../../facts/port.js';
import { EXIT } from '../exit.js';
import { json, type Io } from '../io.js';
import type { CommandContext, GlobalOptions } from '../main.js';

async function withStore<T>(cmd: Command, io: Io, fn: (store: Store) => Promise<T>): Promise<T> {
  const g = cmd.optsWithGlobals<GlobalOptions>();
  const store = await openStore(resolvePaths(g.store ? { store: g.store } : {}, io.env).store);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

export function registerOrg(program: Command, { io, wrap }: CommandContext): void {
  const org = program.command('org').description('manage the org: crews (with an optional parent) and agents');
  org
    .command('crew')
    .description('create a crew, or change its parent')
    .argument('<id>', 'crew id')
    .option('--parent <id>', 'parent crew (omit for a top-level crew)')
    .action(wrap(async (id: string, opts: { parent?: string }, cmd: Command) =>
      withStore(cmd, io, async (store) => {
        await store.putCrew({ id, parent: opts.parent ?? null });
        io.out(`crew ${id}${opts.parent ? ` (parent ${opts.parent})` : ''}`);
        return EXIT.ok;
      })));
  org
    .command('agent')
    .description('create an agent in a crew, or move it')
    .argument('<id>', 'agent id')
    .requiredOption('--crew <id>', 'the crew it belongs to')
    .action(wrap(async (id: string, opts: { crew: string }, cmd: Command) =>
      withStore(cmd, io, async (store) => {
        await store.putAgent({ id, crew: opts.crew });
        io.out(`agent ${id} in crew ${opts.crew}`);
        return EXIT.ok;
      })));
  org
    .command('list')
    .description('list crews and agents')
    .option('--json', 'print as JSON')
    .action(wrap(async (opts: { json?: boolean }, cmd: Command) =>
      withStore(cmd, io, async (store) => {
        const crews = await store.listCrews();
        const agents = await store.listAgents();
        if (opts.json) {
          io.out(json({ crews, agents }));
        } else {
          for (const c of crews) io.out(`crew  ${c.id}${c.parent ? `  parent ${c.parent}` : ''}`);
          for (const a of agents) io.out(`agent ${a.id}  crew ${a.crew}`);
        }
        return EXIT.ok;
      })));
}
