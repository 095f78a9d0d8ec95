/**
 * `POST /v1/hooks/:host`: an agent host's pre-tool hook over HTTP, so no
 * process starts per tool call. The body is the host's payload as its hook
 * would read it on stdin; the seat comes from the bearer token (an agent
 * token), never from the payload. Claude Code's `type: "http"` hook posts
 * here directly and reads the answer's JSON body. A command-only host runs
 * `bin/plangate-hook-forward HOST`, which posts stdin here and gives the
 * host the whole reply: the body is the hook's stdout, and
 *
 *   x-plangate-hook-exit: N             the hook's exit code
 *   x-plangate-hook-stderr: BASE64      the hook's stderr (UTF-8, base64), when it has any
 *
 * Every payload gets 200 and the host's reply, refusals and unreadable
 * payloads included: Claude Code's http hook lets a call through on any
 * non-2xx answer. Query: `grant=true` (answer allow for an allowed call),
 * `session_run=true` (the host's session id is the run), `server=NAME` (the
 * MCP server name under which the host reaches plangate's own tools;
 * default `plangate`). An unknown host is a 404 naming the hosts there are.
 */
import { HOST_NAMES, type HookReply } from '../../hook/contract.js';
import { hostNamed } from '../../hook/hosts/index.js';
import { checkServerEndpoint, checkServerName, DEFAULT_PLANGATE_SERVER, type HookOptions } from '../../hook/options.js';
import { readHookPayload } from '../../hook/payload.js';
import { decideHook, undecidable } from '../../hook/pretooluse.js';
import type { HttpDeps } from '../deps.js';
import { HttpCode, HttpError } from '../errors.js';
import type { Reply, Router } from '../router.js';
import { seatOf } from './seat.js';

/** The header that carries the hook's exit code. */
export const HOOK_EXIT_HEADER = 'x-plangate-hook-exit';
/** The header that carries the hook's stderr, base64 (UTF-8). */
export const HOOK_STDERR_HEADER = 'x-plangate-hook-stderr';

function flag(query: URLSearchParams, name: string): boolean {
  const v = query.get(name);
  return v === 'true' || v === '1';
}

/**
 * The HTTP answer of a hook reply: stdout as the body, exit code and stderr in headers.
 *
 * @example
 * hookAnswer({ stdout: '{}\n', stderr: '', exitCode: 0 }).headers['x-plangate-hook-exit'] // '0'
 */
export function hookAnswer(reply: HookReply): Reply & { headers: Record<string, string> } {
  return {
    status: 200,
    raw: { bytes: reply.stdout, contentType: reply.stdout === '' ? 'text/plain; charset=utf-8' : 'application/json' },
    headers: {
      [HOOK_EXIT_HEADER]: String(reply.exitCode),
      ...(reply.stderr !== '' ? { [HOOK_STDERR_HEADER]: Buffer.from(reply.stderr, 'utf8').toString('base64') } : {}),
    },
  };
}

/** `?server_url=` / `?server_command=`: plangate's MCP server as a host that names no server reports it (Cursor). */
function endpointOptions(query: URLSearchParams): Pick<HookOptions, 'plangateServerUrl' | 'plangateServerCommand'> {
  const url = query.get('server_url');
  const command = query.get('server_command');
  return {
    ...(url !== null ? { plangateServerUrl: checkServerEndpoint('server_url', url) } : {}),
    ...(command !== null ? { plangateServerCommand: checkServerEndpoint('server_command', command) } : {}),
  };
}

export function registerHookRoutes(router: Router, deps: HttpDeps): void {
  router.add({
    method: 'POST',
    path: '/v1/hooks/:host',
    roles: ['agent'],
    body: 'text',
    async handle(ctx) {
      const host = ctx.params['host'] as string;
      if (!hostNamed(host)) throw new HttpError(HttpCode.UnknownHost, `no hook contract for host "${host}" (plangate answers ${HOST_NAMES.filter((h) => hostNamed(h)).join(', ')})`);
      const agent = seatOf(ctx.principal, undefined);
      const payload = readHookPayload(ctx.body as string, host);
      if ('exitCode' in payload) return hookAnswer(payload);
      let answer: { reply: HookReply; log?: string };
      try {
        const options: HookOptions = {
          agent,
          plangateServer: checkServerName(ctx.query.get('server') ?? DEFAULT_PLANGATE_SERVER),
          ...endpointOptions(ctx.query),
          ...(flag(ctx.query, 'grant') ? { grant: true } : {}),
          ...(flag(ctx.query, 'session_run') ? { sessionRun: true } : {}),
        };
        answer = await decideHook({
          gate: { decide: deps.decide },
          ...(deps.gate.quota ? { quota: deps.gate.quota } : {}),
          ...(deps.channelFor ? { channelFor: deps.channelFor } : {}),
          count: (_tool, outcome) => deps.metrics.observeToolCall(`hook:${host}`, outcome),
        }, payload, options);
      } catch (error) {
        answer = undecidable(error, payload.contract, payload.doc);
      }
      if (answer.log !== undefined) deps.onError(new Error(answer.log), { method: 'POST', route: '/v1/hooks/:host' });
      return hookAnswer(answer.reply);
    },
  });
}
