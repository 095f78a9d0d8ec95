/**
 * The `plangate` command line. Each command lives in commands/; this file
 * lists them and runs the program (program.ts) with the ones a command line needs.
 */
import type { Command } from 'commander';
import { commandWord } from './argv.js';
import { processIo, type Io } from './io.js';
import { buildProgram as buildProgramOf, runProgram, type CommandModules } from './program.js';

export { packageVersion, type CommandContext, type GlobalOptions, type Run } from './program.js';

/**
 * The command modules, each loaded only when needed: a run of one command
 * (a hook per tool call, above all) loads that command's module alone, not
 * every command's dependencies. The keys are the modules' top-level
 * command names (a test checks the list against the program's commands).
 */
const MODULES: CommandModules = [
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

/**
 * The command `argv` runs, when its first word that is not a global option
 * names one; undefined otherwise (no command, help, a typo): then every
 * command is registered, so commander answers as it always does.
 *
 * @example
 * commandOf(['--rules', 'rules', 'hook', '--agent', '0xW']) // 'hook'
 */
export function commandOf(argv: readonly string[]): string | undefined {
  const word = commandWord(argv);
  return word !== undefined && COMMAND_NAMES.includes(word) ? word : undefined;
}

/** The command modules to load: the one of the command `only`, else all. */
function modulesOf(only: string | undefined): CommandModules {
  return only === undefined ? MODULES : MODULES.filter(([names]) => names.includes(only));
}

/** Builds the program with the module of the command `only` (else every command's). `setExit` receives the status of the command that ran. */
export async function buildProgram(io: Io, setExit: (status: number) => void, only?: string): Promise<Command> {
  return buildProgramOf(io, setExit, modulesOf(only));
}

/**
 * Runs the CLI and returns the exit status.
 *
 * @example
 * process.exitCode = await main(['decide', '--agent', '0xWORKER', '--tool', 'github.merge_pull_request']);
 */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  return runProgram(argv, io, modulesOf(commandOf(argv)));
}
