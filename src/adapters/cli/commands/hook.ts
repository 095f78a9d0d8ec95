/**
 * `plangate hook --agent SEAT`: decides one PreToolUse payload read from
 * stdin and answers on stdout (see src/adapters/hook). Always exits 0 with
 * a well-formed answer, so the host never sees a crashed hook.
 */
import { Option, type Command } from 'commander';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import { isValidId } from '../../../core/threads.js';
import { MAX_PAYLOAD_BYTES, runHook, undecidable } from '../../hook/pretooluse.js';
import { EXIT } from '../exit.js';
import type { CommandContext } from '../main.js';
import { openFromOptions } from '../shared.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    // Past the bound nothing more is read: what was read is already too large, and is refused as such.
    if (size > MAX_PAYLOAD_BYTES) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function registerHook(program: Command, { io, wrap }: CommandContext): void {
  program
    .command('hook')
    .description("decide an agent host's PreToolUse hook payload (JSON on stdin); deny with the instruction, or leave the call to the host")
    .addOption(new Option('--agent <seat>', 'the seat the host runs (every call acts as it)').makeOptionMandatory())
    .addOption(new Option('--run <id>', 'the run the calls belong to'))
    .addOption(new Option('--session-run', "use the host's session_id as the run"))
    .addOption(new Option('--grant', 'answer allow for an allowed call (skips the host\'s own permission prompt; off by default)'))
    .action(wrap(async (opts: { agent: string; run?: string; sessionRun?: boolean; grant?: boolean }, cmd: Command) => {
      // Every failure is answered, with exit 0: a host lets the call through a hook that exits with an error.
      let answer: string;
      try {
        if (!isValidId(opts.agent)) throw new PlangateError(ErrorCode.InvalidInput, `--agent: "${opts.agent}" is not a seat id`);
        const text = await readStdin();
        const pg = await openFromOptions(cmd, io);
        try {
          answer = await runHook(pg.gate, text, {
            agent: opts.agent,
            ...(opts.run !== undefined ? { runId: opts.run } : {}),
            ...(opts.sessionRun ? { sessionRun: true } : {}),
            ...(opts.grant ? { grant: true } : {}),
          });
        } finally {
          // The answer stands whatever closing does; a failure is only logged.
          await pg.close().catch((error: unknown) => io.err(`plangate hook: closing failed: ${String(error)}`));
        }
      } catch (error) {
        answer = undecidable(error);
      }
      io.out(answer.trimEnd());
      return EXIT.ok;
    }));
}
