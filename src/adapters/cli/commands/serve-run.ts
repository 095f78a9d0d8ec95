/**
 * What `plangate serve` runs (commands/serve.ts registers the command and
 * loads this module only when it runs, so no other command loads the HTTP
 * service, its metrics or the console): the tokens and rules it may start,
 * plangate opened with hot reload, and the service until SIGTERM/SIGINT.
 */
import { existsSync } from 'node:fs';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import { describeLocation, resolvePaths } from '../../../main/config.js';
import { consoleRoutes } from '../../console/serve.js';
import { createHttpApp } from '../../http/app.js';
import { issueTokens, loadTokens } from '../../http/auth.js';
import { logLine } from '../../http/errors.js';
import { loadExecutors, type Executors } from '../../http/executors.js';
import { httpOptionsFrom } from '../../http/plangate.js';
import { listen } from '../../http/server.js';
import { allowedOptions } from '../../http/rebinding.js';
import { EXIT } from '../exit.js';
import type { Io } from '../io.js';
import type { GlobalOptions } from '../main.js';
import { openFromOptions, untilSignal, type AuditHup } from '../shared.js';
import { pruneEveryMs, retentionFromEnv, schedulePrune } from '../../../main/retention.js';
import { DEMO_SEATS } from './serve.js';
import { oauthFrom, type OAuthFlags } from './oauth-options.js';
import { withOAuth } from '../../http/oauth.js';

export interface ServeOptions extends OAuthFlags {
  host: string;
  port: number;
  tokens?: string;
  initTokens?: string | boolean;
  initRules?: string;
  executors?: string;
  bodyLimit?: number;
  decisionLog?: string;
  allowedHosts?: string;
  allowedOrigins?: string;
}

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

/**
 * Serves with the command's options until a signal stops it; `hup` is the
 * SIGHUP handler the command installed first.
 */
export async function runServe(opts: ServeOptions, cmd: Command, io: Io, hup: AuditHup): Promise<number> {
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
  // Read before anything opens: a bad retention variable stops the start with its name.
  const retention = retentionFromEnv(io.env);
  const pruneEvery = pruneEveryMs(io.env);
  const oauth = oauthFrom(opts);
  const statics = await loadTokens({ ...(opts.tokens ? { file: opts.tokens } : {}), env: io.env, optional: oauth !== undefined });
  const tokens = oauth ? withOAuth(statics, oauth) : statics;
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
    running = await listen(app, { host: opts.host, port: opts.port, ...allowedOptions(opts) });
    io.err(`plangate: the console is at ${running.url}/console`);
  } catch (error) {
    hup.stopping();
    executors?.close();
    await pg.close();
    throw error;
  }
  const pruning = schedulePrune(pg, retention, pruneEvery, Date.now, (text) => io.err(text));
  io.err(`plangate: serving ${running.url} — rules ${pg.paths.rules}, store ${describeLocation(pg.paths.store)}, audit ${describeLocation(pg.paths.audit)}; ${tokens.size} token(s)${oauth ? `, JWTs from ${oauth.issuer} for ${oauth.resource}` : ''}; ${executors ? `executors from ${opts.executors}` : 'no executors (POST /mcp/call answers 404 no_executor for allowed calls)'}`);

  const signal = await untilSignal();
  hup.stopping();
  io.err(`plangate: ${signal}: stopping (finishing the requests in flight)`);
  pruning.stop();
  await running.close();
  executors?.close();
  await pg.close();
  io.err('plangate: stopped');
  return EXIT.ok;
}
