/**
 * `plangate init --hook NAME --agent SEAT [--project DIR] [--user]
 * [--plangate-server NAME]`: sets an agent host up to ask plangate before
 * every tool call. Puts the classification of the host's own tools in the
 * rules directory, the hook (`plangate hook --format NAME --agent SEAT`,
 * failing closed where the host allows) and plangate's MCP server entry in
 * the host's settings, merged with what is there; prints every file it
 * touched, then puts the seat under plan-required mode `side_effects` where
 * no rule sets a mode for it (init-hook-mode.ts). The host's files are
 * worked out before any of them is written, so a file
 * it refuses (not JSON, another server under plangate's name) leaves every
 * file as it was; run twice, it changes nothing the second time.
 */
import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import { isValidId } from '../../../core/threads.js';
import { resolvePaths } from '../../../main/config.js';
import { HOST_NAMES, type HostName } from '../../hook/contract.js';
import { DEFAULT_PLANGATE_SERVER } from '../../hook/options.js';
import { hostRulesFile } from '../../hook/setup/host-rules.js';
import { applyChanges, setupHost, shellWord } from '../../hook/setup/host-setup.js';
import { EXIT } from '../exit.js';
import { ensureSeatGated } from './init-hook-mode.js';
import type { Io } from '../io.js';
import type { GlobalOptions } from '../main.js';

export interface InitHookOptions {
  hook: string;
  agent?: string;
  project?: string;
  user?: boolean;
  plangateServer?: string;
}

/** The name plangate's MCP server has in a host's configuration unless told otherwise: the hook's own default. */
export { DEFAULT_PLANGATE_SERVER };

/** The global options the hook and the MCP server need to find the same rules and store: the rules always, the rest when given on the command line (a database URL never: it may hold a password). */
function globalArgs(cmd: Command, env: NodeJS.ProcessEnv): string[] {
  const g = cmd.optsWithGlobals<GlobalOptions>();
  const paths = resolvePaths({ ...(g.rules ? { rules: g.rules } : {}) }, env);
  const args = ['--rules', paths.rules];
  for (const key of ['store', 'audit', 'policy'] as const) {
    const value = g[key];
    if (value === undefined || cmd.getOptionValueSourceWithGlobals(key) !== 'cli') continue;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || value === ':memory:') continue;
    args.push(`--${key}`, resolve(value));
  }
  return args;
}

/**
 * Runs `plangate init --hook`.
 *
 * @example
 * await runInitHook({ hook: 'cursor', agent: '0xDEV' }, cmd, io) // prints "created .cursor/hooks.json: the hook" …
 */
export async function runInitHook(opts: InitHookOptions, cmd: Command, io: Io): Promise<number> {
  if (!(HOST_NAMES as readonly string[]).includes(opts.hook)) {
    throw new PlangateError(ErrorCode.InvalidInput, `--hook: "${opts.hook}" is not a host plangate knows; one of ${HOST_NAMES.join(', ')}`);
  }
  const host = opts.hook as HostName;
  if (opts.agent === undefined) throw new PlangateError(ErrorCode.InvalidInput, 'plangate init --hook needs --agent SEAT: the seat every call of this host acts as');
  if (!isValidId(opts.agent)) throw new PlangateError(ErrorCode.InvalidInput, `--agent: "${opts.agent}" is not a seat id`);
  const server = opts.plangateServer ?? DEFAULT_PLANGATE_SERVER;
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(server)) throw new PlangateError(ErrorCode.InvalidInput, `--plangate-server: "${server}" is not a server name (letters, digits, _ and -, at most 64)`);

  const globals = globalArgs(cmd, io.env);
  const launcher = plangateLauncher(io.env);
  if (launcher.length > 1) io.out(`note: no plangate on PATH; the host runs it as ${launcher.map(shellWord).join(' ')} (a command the host cannot find would leave its calls ungated)`);
  const hookArgs = [...launcher, ...globals, 'hook', '--format', host, '--agent', opts.agent, ...(server !== DEFAULT_PLANGATE_SERVER ? ['--plangate-server', server] : [])];
  const project = resolve(opts.project ?? process.cwd());
  const rulesDir = resolvePaths({ rules: globals[1]! }, io.env).rules;

  // Everything is worked out first: a refused file stops the command before anything is written.
  const rules = await hostRulesFile(host, rulesDir);
  const pending = [
    rules.pending,
    ...setupHost({
      host,
      project,
      home: io.env['HOME'] || homedir(),
      user: Boolean(opts.user),
      hookCommand: hookArgs.map(shellWord).join(' '),
      mcp: { name: server, command: launcher[0]!, args: [...launcher.slice(1), ...globals, 'mcp', '--agent', opts.agent, '--plangate-tools-only'] },
    }),
  ];
  const shown = (file: string) => {
    const rel = relative(process.cwd(), file);
    return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? file : rel;
  };
  for (const change of applyChanges(pending)) {
    io.out(`${change.outcome} ${shown(change.file)}: ${change.what}`);
    if (change.outcome === 'not written') {
      io.out(`  a user-level file${opts.user || host === 'cline' ? '' : ' (run again with --user to write it)'}; the entry to add:`);
      io.out((change.text ?? '').replace(/^/gm, '  '));
    }
  }
  for (const note of rules.notes) io.out(`note: ${note}`);
  // A hook in front of a seat no mode gates would ask plangate and let everything through.
  return (await ensureSeatGated(opts.agent, rulesDir, cmd, io, shown)) ? EXIT.ok : EXIT.error;
}

/** This installation's entry point (bin/plangate.js), from src/ and dist/ alike. */
const BIN = fileURLToPath(new URL('../../../../bin/plangate.js', import.meta.url));

/**
 * How the host should start plangate: `plangate` when an executable of that
 * name is on the PATH, else this installation's Node and entry point by
 * absolute path. A hook whose command the host cannot find is an error most
 * hosts let the call through on, so init never writes a command that would
 * not run.
 *
 * @example
 * plangateLauncher({ PATH: '/usr/local/bin' }) // ['plangate'] when /usr/local/bin/plangate exists
 */
export function plangateLauncher(env: NodeJS.ProcessEnv): string[] {
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(join(dir, 'plangate'), constants.X_OK);
      return ['plangate'];
    } catch {
      // not in this directory
    }
  }
  return [process.execPath, BIN];
}
