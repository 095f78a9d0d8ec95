/**
 * The entry of the hook's bundle (scripts/build-hook-bundle.mjs): the
 * program with the `hook` command alone. bin/plangate.js runs it for a
 * `plangate hook` command line when the bundle is current (hook-bundle.ts);
 * a process per tool call then loads one file instead of some 150 modules.
 */
import { registerHook } from './commands/hook.js';
import { syncIo, type Io } from './io.js';
import { runProgram } from './program.js';

/**
 * Runs a `plangate hook` command line and returns the exit status.
 *
 * @example
 * process.exitCode = await main(['hook', '--agent', '0xWORKER', '--format', 'claude-code']);
 */
export async function main(argv: string[], io: Io = syncIo): Promise<number> {
  return runProgram(argv, io, [[['hook'], async () => registerHook]]);
}
