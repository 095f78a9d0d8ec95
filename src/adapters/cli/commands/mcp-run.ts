/**
 * What `plangate mcp` runs (commands/mcp.ts registers the command and loads
 * this module only when it runs, so no other command loads the MCP SDK): the
 * gateway in front of the upstream MCP servers, serving one client over
 * stdio or many over Streamable HTTP, until the stdio client goes away (once
 * what it sent is answered) or SIGTERM/SIGINT.
 */
import type { Command } from 'commander';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import { isValidId } from '../../../core/threads.js';
import { loadTokens, TOKENS_ENV } from '../../http/auth.js';
import { allowedFor, allowedOptions } from '../../http/rebinding.js';
import { trackAnswers } from '../../mcp/answers.js';
import { readRootsOf, upstreamsFrom } from '../../mcp/config.js';

/** Said on stderr when `plangate mcp` is given no upstream. */
export const OWN_TOOLS_ONLY_LINE = "plangate mcp: no upstream: serving plangate's own tools only (plangate_say, the reviewer channel)";
import { createMcpGateway } from '../../mcp/gateway.js';
import { listenMcp } from '../../mcp/http.js';
import { listenStatus } from '../../mcp/status.js';
import { EXIT } from '../exit.js';
import { oauthFrom, type OAuthFlags } from './oauth-options.js';
import { withOAuth } from '../../http/oauth.js';
import type { Io } from '../io.js';
import { ungatedWarning } from '../seat-mode.js';
import { openFromOptions, untilSignal, type AuditHup } from '../shared.js';
import type { Plangate } from '../../../main/open.js';

export interface McpOptions extends OAuthFlags {
  agent?: string;
  run?: string;
  name?: string;
  upstream: string[];
  upstreams?: string;
  plangateToolsOnly?: boolean;
  listen?: string;
  tokens?: string;
  readRoot: string[];
  statusListen?: string;
  maxSessionsPerSeat?: number;
  maxCallsPerSession?: number;
  maxUpstreamMessageBytes?: number;
  allowedHosts?: string;
  allowedOrigins?: string;
}

function hostPort(value: string, option = '--listen'): { host: string; port: number } {
  const m = /^(.*):(\d{1,5})$/.exec(value);
  if (!m || Number(m[2]) > 65535) throw new PlangateError(ErrorCode.InvalidInput, `${option} takes HOST:PORT (got "${value}")`);
  return { host: (m[1] as string).replace(/^\[|\]$/g, '') || '127.0.0.1', port: Number(m[2]) };
}

/**
 * Runs the gateway with the command's options until its client goes away or
 * a signal stops it; `hup` is the SIGHUP handler the command installed first.
 */
export async function runMcp(command: string[], opts: McpOptions, cmd: Command, io: Io, hup: AuditHup): Promise<number> {
  if (!opts.listen && (opts.agent === undefined || !isValidId(opts.agent))) {
    throw new PlangateError(ErrorCode.InvalidInput, 'plangate mcp over stdio needs --agent SEAT: the seat every call acts as (never taken from a tool argument)');
  }
  if (opts.listen && (opts.agent !== undefined || opts.run !== undefined)) {
    throw new PlangateError(ErrorCode.InvalidInput, '--agent and --run are for a stdio client; over --listen the seat comes from each bearer token and the run from the call');
  }
  // A listener that may not start (a non-loopback address without allowed hosts) stops the start before any upstream does.
  for (const [value, option] of [[opts.listen, '--listen'], [opts.statusListen, '--status-listen']] as const) {
    if (value !== undefined) allowedFor(hostPort(value, option).host, hostPort(value, option).port, allowedOptions(opts));
  }
  const upstreams = await upstreamsFrom({
    command,
    ...(opts.name !== undefined ? { name: opts.name } : {}),
    urls: opts.upstream,
    ...(opts.upstreams !== undefined ? { file: opts.upstreams } : {}),
    ...(opts.plangateToolsOnly ? { none: true } : {}),
  });
  if (upstreams.length === 0) io.err(OWN_TOOLS_ONLY_LINE);
  const oauth = oauthFrom(opts);
  const statics = opts.listen || opts.tokens || io.env[TOKENS_ENV] ? await loadTokens({ ...(opts.tokens ? { file: opts.tokens } : {}), env: io.env, optional: oauth !== undefined }) : undefined;
  const tokens = statics && oauth ? withOAuth(statics, oauth) : statics;
  const roots = opts.readRoot.length ? opts.readRoot : readRootsOf(upstreams);
  const pg = await openFromOptions(cmd, io, { watch: true, ...(roots.length ? { readRoots: roots } : {}) });
  hup.attach(pg);
  let gateway;
  try {
    // Named read roots hold for every upstream; else each stdio upstream's own directories do for its tools.
    gateway = createMcpGateway({
      plangate: pg,
      upstreams,
      readRoots: opts.readRoot.length ? 'gate' : 'upstream',
      log: (line) => io.err(line),
      ...(opts.maxCallsPerSession !== undefined ? { maxCallsPerSession: opts.maxCallsPerSession } : {}),
      ...(opts.maxUpstreamMessageBytes !== undefined ? { maxUpstreamMessageBytes: opts.maxUpstreamMessageBytes } : {}),
    });
  } catch (error) {
    hup.stopping();
    await pg.close();
    throw error;
  }
  try {
    if (opts.listen && tokens) {
      const listener = await listenMcp(gateway, {
        ...hostPort(opts.listen),
        ...allowedOptions(opts),
        tokens,
        log: (t) => io.err(t),
        ...(opts.maxSessionsPerSeat !== undefined ? { maxSessionsPerSeat: opts.maxSessionsPerSeat } : {}),
      });
      io.err(`plangate mcp: serving ${listener.url} ${fronted(upstreams)}; ${tokens.size} token(s)${oauth ? `, JWTs from ${oauth.issuer} for ${oauth.resource}` : ''}`);
      const signal = await untilSignal();
      io.err(`plangate mcp: ${signal}: stopping`);
      await listener.close();
    } else {
      const status = opts.statusListen ? await listenStatus(gateway, { ...hostPort(opts.statusListen, '--status-listen'), ...allowedOptions(opts), ...(tokens ? { tokens } : {}), log: (t) => io.err(t) }) : undefined;
      if (status) io.err(`plangate mcp: /health and /metrics at ${status.url}`);
      await warnIfUngated(pg, opts.agent as string, io);
      const session = gateway.open({ seat: opts.agent as string, ...(opts.run !== undefined ? { runId: opts.run } : {}) });
      const transport = new StdioServerTransport();
      const signal = untilSignal();
      const stdinEnded = new Promise<void>((resolve) => process.stdin.once('end', resolve));
      const closed = new Promise<void>((resolve) => {
        const onclose = session.server.onclose;
        session.server.onclose = () => {
          onclose?.();
          resolve();
        };
      });
      await session.connect(transport);
      const answers = trackAnswers(transport);
      const ended = Promise.race([
        closed.then(() => 'the client closed the connection'),
        // The client may close stdin right after its last request: answer what it sent first (a signal still stops at once).
        stdinEnded.then(async () => {
          await Promise.race([answers.idle(), signal]);
          return 'the client closed stdin';
        }),
        signal,
      ]);
      io.err(`plangate mcp: ${opts.agent} over stdio, ${fronted(upstreams)}`);
      io.err(`plangate mcp: stopping: ${await ended}`);
      await status?.close();
    }
  } finally {
    hup.stopping();
    await gateway.close();
    await pg.close();
  }
  return EXIT.ok;
}

/**
 * Says on stderr (which MCP clients keep in their logs) when the seat's
 * calls are never refused for want of a plan: mode off, or shadow mode.
 */
async function warnIfUngated(pg: Plangate, seat: string, io: Io): Promise<void> {
  let warning: string | undefined;
  try {
    warning = ungatedWarning(seat, await pg.gate.settingsFor(seat));
  } catch {
    // A store that cannot answer now: each decision says what it does then.
    return;
  }
  if (warning) io.err(`plangate mcp: warning: ${warning}`);
}

/** What the gateway serves, for its start-up line. */
function fronted(upstreams: readonly { name: string }[]): string {
  return upstreams.length > 0 ? `in front of ${upstreams.map((u) => u.name).join(', ')}` : "with plangate's own tools alone";
}
