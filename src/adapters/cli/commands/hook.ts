/**
 * `plangate hook --agent SEAT [--format HOST]`: decides one pre-tool hook
 * payload read from stdin and answers as that host's contract says
 * (src/adapters/hook): stdout, stderr and the exit code all come from the
 * host's reply, so a refusal blocks in that host. A payload, a store or a
 * command line plangate cannot use is refused, never allowed.
 */
import { Option, type Command } from 'commander';
import { readSync } from 'node:fs';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import { isValidId } from '../../../core/threads.js';
import { privateCacheDir } from '../../../main/cache-dir.js';
import { reviewerChannels } from '../../../main/channel.js';
import type { HookReply } from '../../hook/contract.js';
import { checkMcpVia, checkServerEndpoint, checkServerName, DEFAULT_PLANGATE_SERVER, MCP_VIA_EVENT } from '../../hook/options.js';
import { MAX_PAYLOAD_BYTES, readHookPayload } from '../../hook/payload.js';
import { decideHook, undecidable } from '../../hook/pretooluse.js';
import type { CommandContext } from '../main.js';
import type { Io } from '../io.js';
import { openFromOptions } from '../shared.js';

/**
 * Reads stdin up to one byte past the bound: what is over it is refused for
 * its size, not as the JSON its cut would make. Reads fd 0 synchronously
 * (a host's pipe): `process.stdin`'s stream machinery costs a process that
 * reads one payload and exits a few ms. Where that cannot go on (a
 * non-blocking pipe with nothing in it yet, a stdin of another kind), the
 * rest is read through `process.stdin`, as before.
 */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  const full = () => size > MAX_PAYLOAD_BYTES;
  try {
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const n = readSync(0, chunk, 0, chunk.length, null);
      if (n === 0) return Buffer.concat(chunks).toString('utf8');
      chunks.push(chunk.subarray(0, n));
      size += n;
      if (full()) return Buffer.concat(chunks).toString('utf8');
    }
  } catch {
    // EAGAIN and the like: the stream below waits for the rest.
  }
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (full()) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes a reply as the host reads it and returns its exit code; the operator's log line goes to stderr only where the model does not read stderr (exit 0). */
export function writeReply(io: Io, reply: HookReply, log?: string): number {
  if (reply.stdout !== '') io.out(reply.stdout.trimEnd());
  if (reply.stderr !== '') io.err(reply.stderr.trimEnd());
  if (log !== undefined && reply.exitCode === 0) io.err(log);
  return reply.exitCode;
}

/**
 * The reply to a `plangate hook` command line commander could not parse:
 * the payload is still read, so that the refusal is in its host's shape
 * (`--format` as written, else the payload's).
 */
export async function misconfiguredHook(argv: string[], message: string): Promise<{ reply: HookReply; log?: string }> {
  const at = argv.findIndex((a) => a === '--format' || a.startsWith('--format='));
  const format = at < 0 ? undefined : argv[at]!.includes('=') ? argv[at]!.slice('--format='.length) : argv[at + 1];
  const payload = readHookPayload(await readStdin().catch(() => ''), format);
  const error = new PlangateError(ErrorCode.InvalidInput, `plangate hook is misconfigured: ${message}`);
  return 'exitCode' in payload ? undecidable(error) : undecidable(error, payload.contract, payload.doc);
}

interface HookFlags { agent: string; format?: string; run?: string; sessionRun?: boolean; grant?: boolean; plangateServer: string; plangateServerUrl?: string; plangateServerCommand?: string; mcpVia?: string }

export function registerHook(program: Command, { io, wrap }: CommandContext): void {
  program
    .command('hook')
    .description("decide an agent host's pre-tool hook payload (JSON on stdin) and answer in that host's contract: refuse with the instruction, or leave the call to the host")
    .addOption(new Option('--agent <seat>', 'the seat the host runs (every call acts as it)').makeOptionMandatory())
    .addOption(new Option('--format <host>', "the host's contract (claude-code, …); without it the payload's shape says, or the call is refused"))
    .addOption(new Option('--plangate-server <name>', "the MCP server name under which the host reaches plangate's own tools").default(DEFAULT_PLANGATE_SERVER))
    .addOption(new Option('--plangate-server-url <url>', "for a host that names an MCP server by its URL (Cursor): plangate's server's URL, exactly as the host reports it"))
    .addOption(new Option('--plangate-server-command <command>', "for a host that names an MCP server by its launch command (Cursor): plangate's server's command, exactly as the host reports it"))
    .addOption(new Option('--mcp-via <event>', `for Cursor's preToolUse hook: leave MCP calls to plangate's hook on that event (${MCP_VIA_EVENT}) where it is configured for the seat; elsewhere they are decided here`))
    .addOption(new Option('--run <id>', 'the run the calls belong to'))
    .addOption(new Option('--session-run', "use the host's session id as the run"))
    .addOption(new Option('--grant', 'answer allow for an allowed call (skips the host\'s own permission prompt; off by default)'))
    .action(wrap(async (opts: HookFlags, cmd: Command) => {
      const payload = readHookPayload(await readStdin(), opts.format);
      if ('exitCode' in payload) return writeReply(io, payload);
      let answer: { reply: HookReply; log?: string };
      try {
        if (!isValidId(opts.agent)) throw new PlangateError(ErrorCode.InvalidInput, `--agent: "${opts.agent}" is not a seat id`);
        checkServerName(opts.plangateServer);
        if (opts.plangateServerUrl !== undefined) checkServerEndpoint('--plangate-server-url', opts.plangateServerUrl);
        if (opts.plangateServerCommand !== undefined) checkServerEndpoint('--plangate-server-command', opts.plangateServerCommand);
        const mcpVia = opts.mcpVia !== undefined ? checkMcpVia(opts.mcpVia, opts.format) : undefined;
        // A hook process starts per tool call: the checked rules come from the private cache where they may.
        const rulesCache = privateCacheDir(io.env, 'rules');
        const pg = await openFromOptions(cmd, io, rulesCache !== undefined ? { rulesCache } : {});
        try {
          answer = await decideHook({ gate: pg.gate, channelFor: reviewerChannels(pg), quota: pg.gate.quota }, payload, {
            agent: opts.agent,
            plangateServer: opts.plangateServer,
            ...(opts.plangateServerUrl !== undefined ? { plangateServerUrl: opts.plangateServerUrl } : {}),
            ...(opts.plangateServerCommand !== undefined ? { plangateServerCommand: opts.plangateServerCommand } : {}),
            ...(mcpVia !== undefined ? { mcpVia } : {}),
            ...(opts.run !== undefined ? { runId: opts.run } : {}),
            ...(opts.sessionRun ? { sessionRun: true } : {}),
            ...(opts.grant ? { grant: true } : {}),
          });
        } finally {
          // The answer stands whatever closing does; a failure is only logged.
          await pg.close().catch((error: unknown) => io.err(`plangate hook: closing failed: ${String(error)}`));
        }
      } catch (error) {
        answer = undecidable(error, payload.contract, payload.doc);
      }
      return writeReply(io, answer.reply, answer.log);
    }));
}
