/**
 * The `plangate` command line. Each command lives in commands/; this file
 * wires them into one program and turns outcomes into exit statuses.
 */
import { Command, CommanderError, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { DEFAULT_PATHS, PATH_ENV } from '../../main/config.js';
import { RULES_OPTIONAL_ENV } from '../../main/rules-location.js';
import { EXIT, exitFor, usageExit } from './exit.js';
import { printError, processIo, type Io } from './io.js';

/** Registers one command module's commands on the program. */
type Register = (program: Command, ctx: CommandContext) => void;

/**
 * The command modules, each loaded only when needed: a run of one command
 * (a hook per tool call, above all) loads that command's module alone, not
 * every command's dependencies. The keys are the modules' top-level
 * command names (a test checks the list against the program's commands).
 */
const MODULES: ReadonlyArray<readonly [readonly string[], () => Promise<Register>]> = [
  [['check'], async () => (await import('./commands/check.js')).registerCheck],
  [['plan-required'], async () => (await import('./commands/plan-required.js')).registerPlanRequired],
  [['org'], async () => (await import('./commands/org.js')).registerOrg],
  [['say'], async () => (await import('./commands/say.js')).registerSay],
  [['decide', 'explain'], async () => (await import('./commands/decide.js')).registerDecide],
  [['hold', 'release', 'unblock', 'holds', 'submit-plan', 'push-back'], async () => (await import('./commands/holds.js')).registerHolds],
  [['approvals'], async () => (await import('./commands/approvals.js')).registerApprovals],
  [['audit'], async () => (await import('./commands/audit.js')).registerAudit],
  [['run', 'delegate'], async () => (await import('./commands/runs.js')).registerRuns],
  [['prune'], async () => (await import('./commands/prune.js')).registerPrune],
  [['compile'], async () => (await import('./commands/compile.js')).registerCompile],
  [['blueprint'], async () => (await import('./commands/blueprint.js')).registerBlueprint],
  [['serve'], async () => (await import('./commands/serve.js')).registerServe],
  [['test'], async () => (await import('./commands/test.js')).registerTest],
  [['diff'], async () => (await import('./commands/diff.js')).registerDiff],
  [['mcp'], async () => (await import('./commands/mcp.js')).registerMcp],
  [['hook'], async () => (await import('./commands/hook.js')).registerHook],
  [['init'], async () => (await import('./commands/init.js')).registerInit],
  [['status'], async () => (await import('./commands/status.js')).registerStatus],
  [['pin'], async () => (await import('./commands/pin.js')).registerPin],
];

/** Every top-level command name, in the order of `plangate --help`. */
export const COMMAND_NAMES: readonly string[] = MODULES.flatMap(([names]) => names);

/** The global options that take a value (the command is the first word after them). */
const VALUED_GLOBALS = new Set(['--rules', '--store', '--audit', '--policy']);

/**
 * The command `argv` runs, when its first word that is not a global option
 * names one; undefined otherwise (no command, help, a typo): then every
 * command is registered, so commander answers as it always does.
 *
 * @example
 * commandOf(['--rules', 'rules', 'hook', '--agent', '0xW']) // 'hook'
 */
export function commandOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (VALUED_GLOBALS.has(word)) { i++; continue; }
    if (word.startsWith('-')) {
      if ([...VALUED_GLOBALS].some((g) => word.startsWith(`${g}=`)) || word === '--rules-optional') continue;
      return undefined;
    }
    return COMMAND_NAMES.includes(word) ? word : undefined;
  }
  return undefined;
}

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
export async function buildProgram(io: Io, setExit: (status: number) => void, only?: string): Promise<Command> {
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
  const wanted = only === undefined ? MODULES : MODULES.filter(([names]) => names.includes(only));
  for (const register of await Promise.all(wanted.map(([, load]) => load()))) register(program, ctx);

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
 * Runs the CLI and returns the exit status.
 *
 * @example
 * process.exitCode = await main(['decide', '--agent', '0xWORKER', '--tool', 'github.merge_pull_request']);
 */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  let status: number = EXIT.ok;
  const program = await buildProgram(io, (s) => { status = s; }, commandOf(argv));
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
