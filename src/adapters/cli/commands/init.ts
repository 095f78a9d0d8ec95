/**
 * `plangate init --from-mcp [--out FILE] [--namespace NAME] -- COMMAND…`:
 * writes a commented starter rule file from an MCP server's tool list and,
 * beside it, the pins of those tools (`pins-<name>.yaml`, see `plangate pin`).
 * `plangate init --hook NAME --agent SEAT`: sets an agent host up (init-hook.ts).
 */
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Option, type Command } from 'commander';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import { HOST_NAMES } from '../../hook/contract.js';
import { checkUpstreamName } from '../../mcp/names.js';
import { EXIT } from '../exit.js';
import type { CommandContext } from '../main.js';
import { DEFAULT_PLANGATE_SERVER, runInitHook, type InitHookOptions } from './init-hook.js';

export function registerInit(program: Command, { io, wrap }: CommandContext): void {
  program
    .command('init')
    .description('write a starter rule file; --from-mcp -- COMMAND… classifies the tools an MCP server lists; --hook NAME --agent SEAT sets an agent host up to ask plangate before every tool call')
    .argument('[command...]', 'the MCP server to start over stdio, after --')
    .addOption(new Option('--from-mcp', 'list the tools of the MCP server given after --').conflicts('hook'))
    .addOption(new Option('--hook <name>', `the agent host to set up: ${HOST_NAMES.join(', ')}`))
    .addOption(new Option('--agent <seat>', 'with --hook: the seat every call of the host acts as'))
    .addOption(new Option('--project <dir>', "with --hook: the project whose settings get the hook (default: the working directory)"))
    .addOption(new Option('--user', "with --hook: also write user-level files (the MCP server entry of hosts that keep it in the home directory)"))
    .addOption(new Option('--plangate-server <name>', `with --hook: plangate's MCP server name in the host (default ${DEFAULT_PLANGATE_SERVER})`))
    .addOption(new Option('--out <file>', 'write the rule file here (refused if it exists); default: stdout'))
    .addOption(new Option('--namespace <name>', 'prefix tool names as NAME__tool, as plangate mcp does with several upstreams'))
    .action(wrap(async (command: string[], opts: InitHookOptions & { fromMcp?: boolean; hook?: string; out?: string; namespace?: string }, cmd: Command) => {
      if (opts.hook !== undefined) {
        if (command.length > 0 || opts.out !== undefined || opts.namespace !== undefined) throw new PlangateError(ErrorCode.InvalidInput, 'plangate init --hook takes no server command, --out or --namespace');
        return runInitHook(opts, cmd, io);
      }
      if (!opts.fromMcp) throw new PlangateError(ErrorCode.InvalidInput, 'plangate init needs --from-mcp -- COMMAND… or --hook NAME --agent SEAT');
      if (command.length === 0) throw new PlangateError(ErrorCode.InvalidInput, 'plangate init --from-mcp needs the server command after --');
      if (opts.namespace !== undefined) checkUpstreamName(opts.namespace);
      // The MCP SDK is loaded for this command alone.
      const { listUpstreamTools, MAX_LIST_PAGES, starterRules } = await import('../../mcp/init.js');
      const { pinsFileName, pinsFileText } = await import('../../mcp/pins.js');
      let listed;
      try {
        listed = await listUpstreamTools(command);
      } catch (error) {
        throw new PlangateError(ErrorCode.InvalidInput, `could not list the tools of ${command.join(' ')}: ${error instanceof Error ? error.message : String(error)}`);
      }
      const text = starterRules(listed.tools, listed.server, {
        ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}),
        source: `plangate init --from-mcp -- ${command.join(' ')}`,
        partial: listed.partial,
      });
      if (listed.partial) io.err(`plangate: ${command.join(' ')} offered more than ${MAX_LIST_PAGES} pages of tools: only the first ${MAX_LIST_PAGES} (${listed.tools.length} tools) are in the file, which says so`);
      if (opts.out === undefined) {
        io.out(text.trimEnd());
      } else {
        try {
          await writeFile(opts.out, text, { flag: 'wx' });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new PlangateError(ErrorCode.InvalidInput, `${opts.out} exists; plangate init never overwrites a rule file`);
          throw error;
        }
        io.err(`plangate: wrote ${opts.out}: ${listed.tools.length} tools; review it, then plangate check`);
        if (!listed.partial) {
          // The tools as they were reviewed: the upstream's name is the one plangate mcp gives it (--name, else "upstream").
          const upstream = opts.namespace ?? 'upstream';
          const pins = join(dirname(opts.out), pinsFileName(upstream));
          const { writeFileAtomic } = await import('../../../rules/write.js');
          await writeFileAtomic(pins, pinsFileText(upstream, listed.tools, `plangate init --from-mcp, ${new Date().toISOString()}`), null);
          io.err(`plangate: pinned the ${listed.tools.length} tools of ${upstream} in ${pins} (plangate pin records them anew)`);
        }
      }
      return EXIT.ok;
    }));
}
