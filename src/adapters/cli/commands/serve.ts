/**
 * `plangate serve`: the decision service over HTTP (see src/adapters/http).
 * SIGHUP reopens the audit file (log rotation).
 * Runs until SIGTERM or SIGINT, then stops gracefully: stop accepting, let
 * the requests in flight finish, close the store and the audit log.
 */
import { Option, type Command } from 'commander';
import { ALLOWED_HOSTS_ENV, ALLOWED_ORIGINS_ENV, TOKENS_ENV, TOKENS_FILE_ENV } from '../../http/token-env.js';
import { DEFAULT_HOST, DEFAULT_PORT } from '../../http/server.js';
import type { CommandContext } from '../main.js';
import { addOAuthOptions } from './oauth-options.js';
import { integer, reopenAuditOnHup } from '../shared.js';
import type { ServeOptions } from './serve-run.js';

/** Seats the demo token set is issued for. */
export const DEMO_SEATS = ['0xWORKER', '0xMGR'];

export function registerServe(program: Command, { io, wrap }: CommandContext): void {
  const command = program
    .command('serve')
    .description('serve the gate over HTTP: decisions, POST /mcp/call, say, org, rules, the OPA-compatible data API, /health, /metrics')
    .addOption(new Option('--host <host>', 'address to listen on').env('PLANGATE_HOST').default(DEFAULT_HOST))
    .addOption(new Option('--port <port>', 'port to listen on (0: any free port)').env('PLANGATE_PORT').default(DEFAULT_PORT).argParser(integer('--port', 0, 65535)))
    .addOption(new Option('--allowed-hosts <list>', 'Host header values clients reach this server by, comma-separated (default: localhost, 127.0.0.1 and [::1] with the port, when bound to loopback; required otherwise)').env(ALLOWED_HOSTS_ENV))
    .addOption(new Option('--allowed-origins <list>', 'Origin header values a browser may call from, comma-separated (default: the loopback origins when bound to loopback, none otherwise)').env(ALLOWED_ORIGINS_ENV))
    .addOption(new Option('--tokens <file>', `bearer tokens file (also ${TOKENS_ENV}="operator=… agent:SEAT=…")`).env(TOKENS_FILE_ENV))
    .addOption(new Option('--init-tokens [seats]', `when the tokens file does not exist, generate a demo set for these seats (comma-separated, default ${DEMO_SEATS.join(',')}) plus an operator, a reviewer, an orchestrator and a policy token, and print them once`))
    .addOption(new Option('--init-rules <dir>', 'when the rules directory does not exist, start it as a copy of this one (so edits never touch the source)'))
    .addOption(new Option('--executors <file>', 'executors file: tool or tool prefix → upstream URL, for POST /mcp/call').env('PLANGATE_EXECUTORS'))
    .addOption(new Option('--body-limit <bytes>', 'largest request body (default 131072)').env('PLANGATE_BODY_LIMIT').argParser(integer('--body-limit', 1024, 64 * 2 ** 20)))
    .addOption(new Option('--decision-log <file>', 'append every decision\'s policy input (never a message body) to this JSONL file, for plangate diff --replay').env('PLANGATE_DECISION_LOG'));
  addOAuthOptions(command);
  command
    .action(wrap(async (opts: ServeOptions, cmd: Command) => {
      // Installed first, before the service's modules load: a log rotation's SIGHUP while plangate opens must
      // not kill it (see reopenAuditOnHup).
      const hup = reopenAuditOnHup(io);
      try {
        const { runServe } = await import('./serve-run.js');
        return await runServe(opts, cmd, io, hup);
      } finally {
        hup.off();
      }
    }));
}
