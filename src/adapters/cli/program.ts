/**
 * The `plangate` program over a given set of command modules: commander's
 * options, each command's exit status, and the hook's refusal of a command
 * line it cannot parse. main.ts gives it every command; the hook's bundle
 * (hook-main.ts) the hook alone.
 */
import { Command, CommanderError, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { DEFAULT_PATHS, PATH_ENV } from '../../main/config.js';
import { RULES_OPTIONAL_ENV } from '../../main/rules-location.js';
import { EXIT, exitFor, usageExit } from './exit.js';
import { printError, type Io } from './io.js';

/** Registers one command module's commands on the program. */
export type Register = (program: Command, ctx: CommandContext) => void;

/** Command modules, each with its top-level command names, loaded when wanted. */
export type CommandModules = ReadonlyArray<readonly [readonly string[], () => Promise<Register>]>;

/** The package's version, from its package.json (two levels above src/ and dist/). */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** What a command returns: its exit status. */
export type Run = Promise<number>;

/** The global options every command can read with `optsWithGlobals()`. */
export interface GlobalOptions {
  rules?: string;
  /** Start without rules on purpose (plan-required fails open); also PLANGATE_RULES_OPTIONAL=true. */
  rulesOptional?: boolean;
  store?: string;
  audit?: string;
  policy?: string;
}

/**
 * Builds the program. `setExit` receives the status of the command that ran.
 */
export async function buildProgram(io: Io, setExit: (status: number) => void, modules: CommandModules): Promise<Command> {
  const program = new Command('plangate')
    .description('No plan, no side effect: a policy decision point for AI agents.')
    .version(packageVersion(), '--version', 'print the version')
    .addOption(new Option('--rules <dir>', `rules directory for every command (default: ./${DEFAULT_PATHS.rules}; diff reads the same path inside a Git revision)`).env(PATH_ENV.rules))
    .addOption(new Option('--rules-optional', `start even when the rules directory does not exist or holds no rule file (plan-required fails open; also ${RULES_OPTIONAL_ENV}=true)`))
    .addOption(new Option('--store <path>', `SQLite store file, :memory:, or a postgres:// URL (one database for several replicas) (default: ${DEFAULT_PATHS.store})`).env('PLANGATE_STORE'))
    .addOption(new Option('--audit <path>', `JSONL audit file, or a postgres:// URL (default: ${DEFAULT_PATHS.audit}; with a PostgreSQL store, its database)`).env('PLANGATE_AUDIT'))
    .addOption(new Option('--policy <path>', 'compiled policy: a policy.wasm or an OPA bundle (.tar.gz) (default: the packaged one)').env('PLANGATE_POLICY'))
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.replace(/\n$/, '')), writeErr: (s) => io.err(s.replace(/\n$/, '')) });
  const wrap: CommandContext['wrap'] = (run) => async (...args) => {
    try {
      setExit(await run(...args));
    } catch (error) {
      printError(io, error);
      setExit(exitFor(error));
    }
  };
  const ctx = { io, wrap };
  for (const register of await Promise.all(modules.map(([, load]) => load()))) register(program, ctx);

  return program;
}

/** What command modules receive. */
export interface CommandContext {
  io: Io;
  // Commander passes each action its own argument list.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  wrap: (run: (...args: any[]) => Run) => (...args: any[]) => Promise<void>;
}

/**
 * Runs `argv` on a program of `modules` and returns the exit status.
 *
 * @example
 * process.exitCode = await runProgram(['hook', '--agent', '0xW'], processIo, [[['hook'], loadHook]]);
 */
export async function runProgram(argv: string[], io: Io, modules: CommandModules): Promise<number> {
  let status: number = EXIT.ok;
  const program = await buildProgram(io, (s) => { status = s; }, modules);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return EXIT.ok;
      const command = argv.find((a) => program.commands.some((c) => c.name() === a));
      // A host lets the call through a hook that exits with an error: a misconfigured hook denies.
      if (command === 'hook') {
        const { misconfiguredHook, writeReply } = await import('./commands/hook.js');
        const { reply, log } = await misconfiguredHook(argv, error.message.replace(/^error: /, ''));
        return writeReply(io, reply, log);
      }
      return usageExit(command);
    }
    printError(io, error);
    return EXIT.error;
  }
  return status;
}
