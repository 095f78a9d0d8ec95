/**
 * Output for CLI commands, injectable so commands are testable in-process.
 */
import { writeSync } from 'node:fs';
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

/**
 * Writes all of `text` to `fd` synchronously; what the fd cannot take now
 * (EAGAIN on a non-blocking pipe, or any other failure) goes to
 * process.stdout or process.stderr, whose streams wait for it (and are made
 * only then).
 */
function writeFd(fd: 1 | 2, text: string): void {
  const bytes = Buffer.from(text.endsWith('\n') ? text : `${text}\n`, 'utf8');
  let at = 0;
  try {
    while (at < bytes.length) at += writeSync(fd, bytes, at);
  } catch {
    (fd === 1 ? process.stdout : process.stderr).write(bytes.subarray(at));
  }
}

/**
 * {@link processIo} for a process that answers once and exits (`plangate
 * hook`, once per tool call): written straight to fds 1 and 2, because
 * setting up process.stdout's stream for a pipe costs such a process a few
 * ms, and nothing is left unflushed at exit.
 */
export const syncIo: Io = {
  out: (text) => writeFd(1, text),
  err: (text) => writeFd(2, text),
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
