/**
 * The `plangate` command line. Each command lives in commands/; this file
 * wires them into one program and turns outcomes into exit statuses.
 */
import { Command, CommanderError, Option } from 'commander';
import { ErrorCode, PlangateError } from '../../core/errors.js';
import { undecidable } from '../hook/pretooluse.js';
import { EXIT, exitFor, usageExit } from './exit.js';
import { printError, processIo, type Io } from './io.js';
import { registerAudit } from './commands/audit.js';
import { registerApprovals } from './commands/approvals.js';
import { registerBlueprint } from './commands/blueprint.js';
import { registerCheck } from './commands/check.js';
import { registerCompile } from './commands/compile.js';
import { registerDecide } from './commands/decide.js';
import { registerHolds } from './commands/holds.js';
import { registerHook } from './commands/hook.js';
import { registerInit } from './commands/init.js';
import { registerMcp } from './commands/mcp.js';
import { registerOrg } from './commands/org.js';
import { registerPlanRequired } from './commands/plan-required.js';
import { registerRuns } from './commands/runs.js';
import { registerSay } from './commands/say.js';
import { registerServe } from './commands/serve.js';
import { registerTest } from './commands/test.js';
import { registerDiff } from './commands/diff.js';


/** What a command returns: its exit status. */
export type Run = Promise<number>;

/** The global options every command can read with `optsWithGlobals()`. */
export interface GlobalOptions {
  rules?: string;
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
    .addOption(new Option('--rules <dir>', 'rules directory').env('PLANGATE_RULES'))
    .addOption(new Option('--store <path>', 'SQLite store file, :memory:, or a postgres:// URL (one database for several replicas)').env('PLANGATE_STORE'))
    .addOption(new Option('--audit <path>', 'JSONL audit file, or a postgres:// URL (default with a PostgreSQL store: its database)').env('PLANGATE_AUDIT'))
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
  registerCompile(program, ctx);
  registerBlueprint(program, ctx);
  registerServe(program, ctx);
  registerTest(program, ctx);
  registerDiff(program, ctx);
  registerMcp(program, ctx);
  registerHook(program, ctx);
  registerInit(program, ctx);

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
        io.out(undecidable(new PlangateError(ErrorCode.InvalidInput, `plangate hook is misconfigured: ${error.message.replace(/^error: /, '')}`)).trimEnd());
        return EXIT.ok;
      }
      return usageExit(command);
    }
    printError(io, error);
    return EXIT.error;
  }
  return status;
}
