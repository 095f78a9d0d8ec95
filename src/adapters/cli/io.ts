/**
 * Output for CLI commands, injectable so commands are testable in-process.
 */
import { formatProblem, PlangateError } from '../../core/errors.js';

export interface Io {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
}

export const processIo: Io = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  env: process.env,
};

/** Prints an error: each located problem as `file:line:col: message`, else the message. */
export function printError(io: Io, error: unknown): void {
  if (error instanceof PlangateError && error.details.length > 0) {
    for (const problem of error.details) io.err(formatProblem(problem));
    if (error.details.length > 1) io.err(`${error.details.length} problems`);
    return;
  }
  io.err(`plangate: ${error instanceof Error ? error.message : String(error)}`);
}

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
