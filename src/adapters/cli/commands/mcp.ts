/**
 * `plangate mcp`: the MCP gateway. Fronts the upstream MCP servers (a
 * command after `--`, `--upstream URL`, `--upstreams FILE`) and serves one
 * client over stdio (the seat is `--agent`) or many over Streamable HTTP
 * (`--listen HOST:PORT`, the seat from each bearer token). Runs until the
 * stdio client goes away (once what it sent is answered), or SIGTERM/SIGINT.
 */
import { Option, type Command } from 'commander';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import { isValidId } from '../../../core/threads.js';
import { loadTokens, TOKENS_ENV, TOKENS_FILE_ENV } from '../../http/auth.js';
import { trackAnswers } from '../../mcp/answers.js';
import { MAX_CALLS_IN_FLIGHT } from '../../mcp/guards.js';
import { MAX_UPSTREAM_MESSAGE_BYTES, MIN_UPSTREAM_MESSAGE_BYTES } from '../../mcp/message-bound.js';
import { readRootsOf, upstreamsFrom } from '../../mcp/config.js';
import { createMcpGateway } from '../../mcp/gateway.js';
import { listenMcp, MCP_SESSIONS_PER_SEAT } from '../../mcp/http.js';
import { listenStatus } from '../../mcp/status.js';
import { EXIT } from '../exit.js';
import type { CommandContext } from '../main.js';
import { collect, integer, openFromOptions, reopenAuditOnHup, untilSignal } from '../shared.js';

interface McpOptions {
  agent?: string;
  run?: string;
  name?: string;
  upstream: string[];
  upstreams?: string;
  listen?: string;
  tokens?: string;
  readRoot: string[];
  statusListen?: string;
  maxSessionsPerSeat?: number;
  maxCallsPerSession?: number;
  maxUpstreamMessageBytes?: number;
}

function hostPort(value: string, option = '--listen'): { host: string; port: number } {
  const m = /^(.*):(\d{1,5})$/.exec(value);
  if (!m || Number(m[2]) > 65535) throw new PlangateError(ErrorCode.InvalidInput, `${option} takes HOST:PORT (got "${value}")`);
  return { host: (m[1] as string).replace(/^\[|\]$/g, '') || '127.0.0.1', port: Number(m[2]) };
}

export function registerMcp(program: Command, { io, wrap }: CommandContext): void {
  program
    .command('mcp')
    .description('the MCP gateway: every tool call of an MCP client is decided before it reaches the upstream servers')
    .argument('[command...]', 'an upstream MCP server over stdio, after --: plangate mcp --agent SEAT -- COMMAND ARGS…')
    .addOption(new Option('--agent <seat>', 'the seat of the stdio client (every call acts as it)'))
    .addOption(new Option('--run <id>', 'the run the stdio client works in, as started by whoever launches it'))
    .addOption(new Option('--name <name>', 'the name of the upstream given after -- (default "upstream")'))
    .addOption(new Option('--upstream <[name=]url>', 'a Streamable HTTP upstream (repeatable)').argParser(collect).default([]))
    .addOption(new Option('--upstreams <file>', 'a JSON file naming several upstreams: { "upstreams": { NAME: { "command", "args" } | { "url" } } }'))
    .addOption(new Option('--listen <host:port>', 'serve clients over Streamable HTTP at /mcp instead of stdio (seats from bearer tokens)'))
    .addOption(new Option('--max-sessions-per-seat <n>', `with --listen: most sessions one seat holds open; past it the least recently used idle one is closed (default ${MCP_SESSIONS_PER_SEAT})`).argParser(integer('--max-sessions-per-seat', 1)))
    .addOption(new Option('--max-calls-per-session <n>', `most requests (tool calls, reads, lists, completions) one session may have in flight at once; past it a request is answered busy (default ${MAX_CALLS_IN_FLIGHT})`).argParser(integer('--max-calls-per-session', 1)))
    .addOption(new Option('--max-upstream-message-bytes <n>', `most bytes of one message from an upstream; an upstream that sends a larger one is reconnected and the calls in flight on it fail (default ${MAX_UPSTREAM_MESSAGE_BYTES})`).argParser(integer('--max-upstream-message-bytes', MIN_UPSTREAM_MESSAGE_BYTES)))
    .addOption(new Option('--read-root <dir>', "a directory the read guard may look in (repeatable; default: the stdio upstreams' directory arguments)").argParser(collect).default([]))
    .addOption(new Option('--status-listen <host:port>', 'with a stdio client: serve /health and /metrics here'))
    .addOption(new Option('--tokens <file>', 'bearer tokens file: agents for --listen, operators and policy for the details of /health (also PLANGATE_TOKENS)').env(TOKENS_FILE_ENV))
    .action(wrap(async (command: string[], opts: McpOptions, cmd: Command) => {
      // As for plangate serve: SIGHUP reopens the audit file (log rotation) and never kills the gateway, from the start.
      const hup = reopenAuditOnHup(io);
      try {
        if (!opts.listen && (opts.agent === undefined || !isValidId(opts.agent))) {
          throw new PlangateError(ErrorCode.InvalidInput, 'plangate mcp over stdio needs --agent SEAT: the seat every call acts as (never taken from a tool argument)');
        }
        if (opts.listen && (opts.agent !== undefined || opts.run !== undefined)) {
          throw new PlangateError(ErrorCode.InvalidInput, '--agent and --run are for a stdio client; over --listen the seat comes from each bearer token and the run from the call');
        }
        const upstreams = await upstreamsFrom({
          command,
          ...(opts.name !== undefined ? { name: opts.name } : {}),
          urls: opts.upstream,
          ...(opts.upstreams !== undefined ? { file: opts.upstreams } : {}),
        });
        const tokens = opts.listen || opts.tokens || io.env[TOKENS_ENV] ? await loadTokens({ ...(opts.tokens ? { file: opts.tokens } : {}), env: io.env }) : undefined;
        const roots = opts.readRoot.length ? opts.readRoot : readRootsOf(upstreams);
        const pg = await openFromOptions(cmd, io, { watch: true, ...(roots.length ? { readRoots: roots } : {}) });
        hup.attach(pg);
        let gateway;
        try {
          // Named read roots hold for every upstream; else each stdio upstream's own directories do for its tools.
          gateway = createMcpGateway({
            plangate: pg,
            upstreams,
            readRoots: opts.readRoot.length ? 'gate' : 'upstream',
            log: (line) => io.err(line),
            ...(opts.maxCallsPerSession !== undefined ? { maxCallsPerSession: opts.maxCallsPerSession } : {}),
            ...(opts.maxUpstreamMessageBytes !== undefined ? { maxUpstreamMessageBytes: opts.maxUpstreamMessageBytes } : {}),
          });
        } catch (error) {
          hup.stopping();
          await pg.close();
          throw error;
        }
        try {
          if (opts.listen && tokens) {
            const listener = await listenMcp(gateway, {
              ...hostPort(opts.listen),
              tokens,
              log: (t) => io.err(t),
              ...(opts.maxSessionsPerSeat !== undefined ? { maxSessionsPerSeat: opts.maxSessionsPerSeat } : {}),
            });
            io.err(`plangate mcp: serving ${listener.url} in front of ${upstreams.map((u) => u.name).join(', ')}; ${tokens.size} token(s)`);
            const signal = await untilSignal();
            io.err(`plangate mcp: ${signal}: stopping`);
            await listener.close();
          } else {
            const status = opts.statusListen ? await listenStatus(gateway, { ...hostPort(opts.statusListen, '--status-listen'), ...(tokens ? { tokens } : {}), log: (t) => io.err(t) }) : undefined;
            if (status) io.err(`plangate mcp: /health and /metrics at ${status.url}`);
            const session = gateway.open({ seat: opts.agent as string, ...(opts.run !== undefined ? { runId: opts.run } : {}) });
            const transport = new StdioServerTransport();
            const signal = untilSignal();
            const stdinEnded = new Promise<void>((resolve) => process.stdin.once('end', resolve));
            const closed = new Promise<void>((resolve) => {
              const onclose = session.server.onclose;
              session.server.onclose = () => {
                onclose?.();
                resolve();
              };
            });
            await session.connect(transport);
            const answers = trackAnswers(transport);
            const ended = Promise.race([
              closed.then(() => 'the client closed the connection'),
              // The client may close stdin right after its last request: answer what it sent first (a signal still stops at once).
              stdinEnded.then(async () => {
                await Promise.race([answers.idle(), signal]);
                return 'the client closed stdin';
              }),
              signal,
            ]);
            io.err(`plangate mcp: ${opts.agent} over stdio, in front of ${upstreams.map((u) => u.name).join(', ')}`);
            io.err(`plangate mcp: stopping: ${await ended}`);
            await status?.close();
          }
        } finally {
          hup.stopping();
          await gateway.close();
          await pg.close();
        }
        return EXIT.ok;
      } finally {
        hup.off();
      }
    }));
}
