/**
 * `plangate pin [--name NAME] [--upstream URL…] [--upstreams FILE] [-- COMMAND…]`:
 * reads each upstream's tools, as `plangate mcp` would, and writes their
 * definition digests to `pins-<upstream>.yaml` in the rules directory (the
 * operator's review of what each tool is). A running gateway reloads it with
 * the rules: a tool refused as `tool_changed` goes through again once pinned
 * anew. Pinning replaces the upstream's earlier pins.
 */
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import { resolvePaths } from '../../../main/config.js';
import { EXIT } from '../exit.js';
import type { CommandContext, GlobalOptions } from '../main.js';
import { collect } from '../shared.js';

export function registerPin(program: Command, { io, wrap }: CommandContext): void {
  program
    .command('pin')
    .description('record the definition digest of every tool of the upstream MCP servers in the rules directory (pins-<upstream>.yaml): a pinned tool that changes is refused as tool_changed until pinned again')
    .argument('[command...]', 'an upstream MCP server over stdio, after --')
    .addOption(new Option('--name <name>', 'the name of the upstream given after -- (default "upstream", as plangate mcp names it)'))
    .addOption(new Option('--upstream <[name=]url>', 'a Streamable HTTP upstream (repeatable)').argParser(collect).default([]))
    .addOption(new Option('--upstreams <file>', 'the JSON file of upstreams plangate mcp reads'))
    .action(wrap(async (command: string[], opts: { name?: string; upstream: string[]; upstreams?: string }, cmd: Command) => {
      // The MCP SDK is loaded for this command alone.
      const { upstreamsFrom } = await import('../../mcp/config.js');
      const { listToolsOf } = await import('../../mcp/init.js');
      const { pinsFileName, pinsFileText } = await import('../../mcp/pins.js');
      const { writeFileAtomic } = await import('../../../rules/write.js');
      const upstreams = await upstreamsFrom({
        command,
        ...(opts.name !== undefined ? { name: opts.name } : {}),
        urls: opts.upstream,
        ...(opts.upstreams !== undefined ? { file: opts.upstreams } : {}),
      });
      if (upstreams.length === 0) throw new PlangateError(ErrorCode.InvalidInput, 'plangate pin needs the upstreams: -- COMMAND…, --upstream URL or --upstreams FILE');
      const rules = resolvePaths(cmd.optsWithGlobals<GlobalOptions>().rules ? { rules: cmd.optsWithGlobals<GlobalOptions>().rules as string } : {}, io.env).rules;
      for (const spec of upstreams) {
        let listed;
        try {
          listed = await listToolsOf(spec);
        } catch (error) {
          throw new PlangateError(ErrorCode.InvalidInput, `could not list the tools of the upstream ${spec.name}: ${error instanceof Error ? error.message : String(error)}`);
        }
        if (listed.partial) throw new PlangateError(ErrorCode.InvalidInput, `the upstream ${spec.name} offered more pages of tools than plangate reads: nothing was pinned for it`);
        const file = join(rules, pinsFileName(spec.name));
        const before = await readFile(file).catch(() => null);
        await writeFileAtomic(file, pinsFileText(spec.name, listed.tools, `plangate pin, ${new Date().toISOString()}`), before);
        io.err(`plangate: pinned ${listed.tools.length} tools of ${spec.name} in ${file}`);
      }
      return EXIT.ok;
    }));
}
