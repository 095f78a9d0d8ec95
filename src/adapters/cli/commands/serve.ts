/**
 * `plangate serve`: the decision service over HTTP (see src/adapters/http).
 * SIGHUP reopens the audit file (log rotation).
 * Runs until SIGTERM or SIGINT, then stops gracefully: stop accepting, let
 * the requests in flight finish, close the store and the audit log.
 */
import { existsSync } from 'node:fs';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describeLocation, resolvePaths } from '../../../main/config.js';
import type { GlobalOptions } from '../main.js';
import { Option, type Command } from 'commander';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import { consoleRoutes } from '../../console/serve.js';
import { createHttpApp } from '../../http/app.js';
import { issueTokens, loadTokens, TOKENS_ENV, TOKENS_FILE_ENV } from '../../http/auth.js';
import { logLine } from '../../http/errors.js';
import { loadExecutors, type Executors } from '../../http/executors.js';
import { httpOptionsFrom } from '../../http/plangate.js';
import { DEFAULT_HOST, DEFAULT_PORT, listen } from '../../http/server.js';
import { EXIT } from '../exit.js';
import type { Io } from '../io.js';
import type { CommandContext } from '../main.js';
import { integer, openFromOptions, reopenAuditOnHup, untilSignal } from '../shared.js';

interface ServeOptions {
  host: string;
  port: number;
  tokens?: string;
  initTokens?: string | boolean;
  initRules?: string;
  executors?: string;
  bodyLimit?: number;
  decisionLog?: string;
}

/** Seats the demo token set is issued for. */
export const DEMO_SEATS = ['0xWORKER', '0xMGR'];

/** Writes a new token set (digests only) and prints the tokens, this once. */
async function initTokens(file: string, seats: string[], io: Io): Promise<void> {
  const { issued, file: content } = issueTokens(seats);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  const width = Math.max(...issued.map((t) => t.name.length));
  io.out([
    `plangate: generated a demo token set in ${file} (it stores only their sha256).`,
    'These tokens are shown this once; keep them, or delete the file to get new ones:',
    ...issued.map((t) => `  ${t.name.padEnd(width)}  ${t.token}`),
  ].join('\n'));
}

export function registerServe(program: Command, { io, wrap }: CommandContext): void {
  program
    .command('serve')
    .description('serve the gate over HTTP: decisions, POST /mcp/call, say, org, rules, the OPA-compatible data API, /health, /metrics')
    .addOption(new Option('--host <host>', 'address to listen on').env('PLANGATE_HOST').default(DEFAULT_HOST))
    .addOption(new Option('--port <port>', 'port to listen on (0: any free port)').env('PLANGATE_PORT').default(DEFAULT_PORT).argParser(integer('--port', 0, 65535)))
    .addOption(new Option('--tokens <file>', `bearer tokens file (also ${TOKENS_ENV}="operator=… agent:SEAT=…")`).env(TOKENS_FILE_ENV))
    .addOption(new Option('--init-tokens [seats]', `when the tokens file does not exist, generate a demo set for these seats (comma-separated, default ${DEMO_SEATS.join(',')}) plus an operator, a reviewer, an orchestrator and a policy token, and print them once`))
    .addOption(new Option('--init-rules <dir>', 'when the rules directory does not exist, start it as a copy of this one (so edits never touch the source)'))
    .addOption(new Option('--executors <file>', 'executors file: tool or tool prefix → upstream URL, for POST /mcp/call').env('PLANGATE_EXECUTORS'))
    .addOption(new Option('--body-limit <bytes>', 'largest request body (default 131072)').env('PLANGATE_BODY_LIMIT').argParser(integer('--body-limit', 1024, 64 * 2 ** 20)))
    .addOption(new Option('--decision-log <file>', 'append every decision\'s policy input (never a message body) to this JSONL file, for plangate diff --replay').env('PLANGATE_DECISION_LOG'))
    .action(wrap(async (opts: ServeOptions, cmd: Command) => {
      // Installed first: a log rotation's SIGHUP while plangate opens must not kill it (see reopenAuditOnHup).
      const hup = reopenAuditOnHup(io);
      try {
        if (opts.initTokens !== undefined) {
          if (!opts.tokens) throw new PlangateError(ErrorCode.InvalidInput, '--init-tokens needs --tokens FILE (where to keep the digests)');
          if (!existsSync(opts.tokens)) {
            const seats = typeof opts.initTokens === 'string' ? opts.initTokens.split(',').map((s) => s.trim()).filter(Boolean) : DEMO_SEATS;
            await initTokens(opts.tokens, seats, io);
          }
        }
        if (opts.initRules !== undefined) {
          const g = cmd.optsWithGlobals<GlobalOptions>();
          const rulesDir = resolvePaths(g.rules ? { rules: g.rules } : {}, io.env).rules;
          if (!existsSync(rulesDir)) {
            await cp(opts.initRules, rulesDir, { recursive: true, errorOnExist: true, force: false });
            io.err(`plangate: started the rules directory ${rulesDir} as a copy of ${opts.initRules}`);
          }
        }
        const tokens = await loadTokens({ ...(opts.tokens ? { file: opts.tokens } : {}), env: io.env });
        const executors: Executors | undefined = opts.executors ? await loadExecutors(opts.executors) : undefined;
        const pg = await openFromOptions(cmd, io, { watch: true, ...(opts.decisionLog ? { decisionLog: opts.decisionLog } : {}) });
        hup.attach(pg);
        let running;
        try {
          const app = createHttpApp({
            ...httpOptionsFrom(pg),
            tokens,
            ...(executors ? { executors } : {}),
            ...(opts.bodyLimit !== undefined ? { bodyLimit: opts.bodyLimit } : {}),
            routes: [consoleRoutes()],
            onError: (error, where) => io.err(logLine(error, where)),
          });
          running = await listen(app, { host: opts.host, port: opts.port });
          io.err(`plangate: the console is at ${running.url}/console`);
        } catch (error) {
          hup.stopping();
          executors?.close();
          await pg.close();
          throw error;
        }
        io.err(`plangate: serving ${running.url} — rules ${pg.paths.rules}, store ${describeLocation(pg.paths.store)}, audit ${describeLocation(pg.paths.audit)}; ${tokens.size} token(s); ${executors ? `executors from ${opts.executors}` : 'no executors (POST /mcp/call answers 404 no_executor for allowed calls)'}`);

        const signal = await untilSignal();
        hup.stopping();
        io.err(`plangate: ${signal}: stopping (finishing the requests in flight)`);
        await running.close();
        executors?.close();
        await pg.close();
        io.err('plangate: stopped');
        return EXIT.ok;
      } finally {
        hup.off();
      }
    }));
}
