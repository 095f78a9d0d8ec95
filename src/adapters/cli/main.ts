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
import { registerAudit } from './commands/audit.js';
import { registerApprovals } from './commands/approvals.js';
import { registerBlueprint } from './commands/blueprint.js';
import { registerCheck } from './commands/check.js';
import { registerCompile } from './commands/compile.js';
import { registerDecide } from './commands/decide.js';
import { registerHolds } from './commands/holds.js';
import { misconfiguredHook, registerHook, writeReply } from './commands/hook.js';
import { registerInit } from './commands/init.js';
import { registerPin } from './commands/pin.js';
import { registerMcp } from './commands/mcp.js';
import { registerOrg } from './commands/org.js';
import { registerPlanRequired } from './commands/plan-required.js';
import { registerRuns } from './commands/runs.js';
import { registerPrune } from './commands/prune.js';
import { registerSay } from './commands/say.js';
import { registerServe } from './commands/serve.js';
import { registerTest } from './commands/test.js';
import { registerDiff } from './commands/diff.js';
import { registerStatus } from './commands/status.js';

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
export function buildProgram(io: Io, setExit: (status: number) => void): Command {
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
  registerCheck(program, ctx);
  registerPlanRequired(program, ctx);
  registerOrg(program, ctx);
  registerSay(program, ctx);
  registerDecide(program, ctx);
  registerHolds(program, ctx);
  registerApprovals(program, ctx);
  registerAudit(program, ctx);
  registerRuns(program, ctx);
  registerPrune(program, ctx);
  registerCompile(program, ctx);
  registerBlueprint(program, ctx);
  registerServe(program, ctx);
  registerTest(program, ctx);
  registerDiff(program, ctx);
  registerMcp(program, ctx);
  registerHook(program, ctx);
  registerInit(program, ctx);
  registerStatus(program, ctx);
  registerPin(program, ctx);

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
  const program = buildProgram(io, (s) => { status = s; });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return EXIT.ok;
      const command = argv.find((a) => program.commands.some((c) => c.name() === a));
      // A host lets the call through a hook that exits with an error: a misconfigured hook denies.
      if (command === 'hook') {
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
