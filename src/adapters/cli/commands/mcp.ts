/**
 * `plangate mcp`: the MCP gateway. Fronts the upstream MCP servers (a
 * command after `--`, `--upstream URL`, `--upstreams FILE`) and serves one
 * client over stdio (the seat is `--agent`) or many over Streamable HTTP
 * (`--listen HOST:PORT`, the seat from each bearer token). Runs until the
 * stdio client goes away (once what it sent is answered), or SIGTERM/SIGINT.
 */
import { Option, type Command } from 'commander';
import { ALLOWED_HOSTS_ENV, ALLOWED_ORIGINS_ENV, TOKENS_FILE_ENV } from '../../http/token-env.js';
import { MAX_CALLS_IN_FLIGHT, MCP_SESSIONS_PER_SEAT } from '../../mcp/limits.js';
import { MAX_UPSTREAM_MESSAGE_BYTES, MIN_UPSTREAM_MESSAGE_BYTES } from '../../mcp/message-bound.js';
import type { CommandContext } from '../main.js';
import { addOAuthOptions } from './oauth-options.js';
import { collect, integer, reopenAuditOnHup } from '../shared.js';
import type { McpOptions } from './mcp-run.js';

export function registerMcp(program: Command, { io, wrap }: CommandContext): void {
  const command = program
    .command('mcp')
    .description('the MCP gateway: every tool call of an MCP client is decided before it reaches the upstream servers')
    .argument('[command...]', 'an upstream MCP server over stdio, after --: plangate mcp --agent SEAT -- COMMAND ARGS…')
    .addOption(new Option('--agent <seat>', 'the seat of the stdio client (every call acts as it)'))
    .addOption(new Option('--run <id>', 'the run the stdio client works in, as started by whoever launches it'))
    .addOption(new Option('--name <name>', 'the name of the upstream given after -- (default "upstream")'))
    .addOption(new Option('--upstream <[name=]url>', 'a Streamable HTTP upstream (repeatable)').argParser(collect).default([]))
    .addOption(new Option('--upstreams <file>', 'a JSON file naming several upstreams: { "upstreams": { NAME: { "command", "args" } | { "url" } } }'))
    .addOption(new Option('--plangate-tools-only', "no upstream: serve plangate's own tools alone (plangate_say, the reviewer channel), for an agent host that gates its other tools with plangate hook"))
    .addOption(new Option('--listen <host:port>', 'serve clients over Streamable HTTP at /mcp instead of stdio (seats from bearer tokens)'))
    .addOption(new Option('--max-sessions-per-seat <n>', `with --listen: most sessions one seat holds open; past it the least recently used idle one is closed (default ${MCP_SESSIONS_PER_SEAT})`).argParser(integer('--max-sessions-per-seat', 1)))
    .addOption(new Option('--max-calls-per-session <n>', `most requests (tool calls, reads, lists, completions) one session may have in flight at once; past it a request is answered busy (default ${MAX_CALLS_IN_FLIGHT})`).argParser(integer('--max-calls-per-session', 1)))
    .addOption(new Option('--max-upstream-message-bytes <n>', `most bytes of one message from an upstream; an upstream that sends a larger one is reconnected and the calls in flight on it fail (default ${MAX_UPSTREAM_MESSAGE_BYTES})`).argParser(integer('--max-upstream-message-bytes', MIN_UPSTREAM_MESSAGE_BYTES)))
    .addOption(new Option('--read-root <dir>', "a directory the read guard may look in (repeatable; default: the stdio upstreams' directory arguments)").argParser(collect).default([]))
    .addOption(new Option('--status-listen <host:port>', 'with a stdio client: serve /health and /metrics here'))
    .addOption(new Option('--allowed-hosts <list>', 'Host header values clients reach the --listen or --status-listen server by, comma-separated (default: localhost, 127.0.0.1 and [::1] with the port, when bound to loopback; required otherwise)').env(ALLOWED_HOSTS_ENV))
    .addOption(new Option('--allowed-origins <list>', 'Origin header values a browser may call from, comma-separated (default: the loopback origins when bound to loopback, none otherwise)').env(ALLOWED_ORIGINS_ENV))
    .addOption(new Option('--tokens <file>', 'bearer tokens file: agents for --listen, operators and policy for the details of /health (also PLANGATE_TOKENS)').env(TOKENS_FILE_ENV));
  addOAuthOptions(command);
  command
    .action(wrap(async (command: string[], opts: McpOptions, cmd: Command) => {
      // As for plangate serve: SIGHUP reopens the audit file (log rotation) and never kills the gateway, from the
      // start: before the gateway's modules (the MCP SDK) are loaded, which only this command needs.
      const hup = reopenAuditOnHup(io);
      try {
        const { runMcp } = await import('./mcp-run.js');
        return await runMcp(command, opts, cmd, io, hup);
      } finally {
        hup.off();
      }
    }));
}
