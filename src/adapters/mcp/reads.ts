/**
 * The entry points that are not tools, decided as reads before anything goes
 * upstream: `resources/read` (the read guard applies to a `file:` URI),
 * `prompts/get`, `completion/complete` (it answers with the upstream's data)
 * and `resources/subscribe`. A refusal is a JSON-RPC error with the
 * instruction as its message and the refusal's detail as its data: these
 * requests have no result that could carry it.
 */
import { fileURLToPath } from 'node:url';
import { ErrorCode as RpcCode, McpError, type GetPromptRequest, type ReadResourceRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Decision, ToolHints } from '../../core/types.js';
import { decide, forward, upstreamMeta, runOf, shown, type CallDeps, type Meta } from './calls.js';
import { refusalResult } from './results.js';
import type { Extra, GatewaySession } from './session.js';
import { UpstreamDownError, type UpstreamLink } from './upstream.js';

/** The policy's names for the entry points that are not tools. */
export const RESOURCE_READ = 'resources/read';
export const PROMPT_GET = 'prompts/get';
/** Completions answer with an upstream's data (the values it suggests), and a subscription sets its state: reads too. */
export const COMPLETION_COMPLETE = 'completion/complete';
export const RESOURCE_SUBSCRIBE = 'resources/subscribe';

/** The JSON-RPC error code of a refused read (in the range left to servers). */
export const REFUSED_RPC_CODE = -32030;

/** These requests have no side effect: the gateway says so to the policy. */
const READ_ONLY: ToolHints = { readOnlyHint: true };

function refusedError(decision: Decision): McpError {
  const r = refusalResult(decision);
  return new McpError(REFUSED_RPC_CODE, (r.content[0] as { text: string }).text, r.structuredContent);
}

async function forwardOrDown(session: GatewaySession, link: UpstreamLink, request: { method: string; params: Record<string, unknown> }, extra: Extra, deps: CallDeps) {
  try {
    return await forward(session, link, request, extra, deps);
  } catch (error) {
    if (error instanceof UpstreamDownError) throw new McpError(RpcCode.InternalError, error.message, { check: 'upstream', code: `upstream_down:${error.upstream}` });
    throw error;
  }
}

/**
 * Forwards a request that is not a tool call (as decided, or passed
 * through): `_meta` without plangate's keys, progress and cancellation
 * relayed, an upstream that is down told as a JSON-RPC error.
 */
export function forwardRequest(session: GatewaySession, deps: CallDeps, link: UpstreamLink, method: string, params: Record<string, unknown>, extra: Extra) {
  const { _meta, ...rest } = params;
  const meta = upstreamMeta(_meta as Meta);
  return forwardOrDown(session, link, { method, params: { ...rest, ...(meta ? { _meta: meta } : {}) } }, extra, deps);
}

/**
 * Decides an entry point that is not a tool (`resources/read`, `prompts/get`,
 * `completion/complete`, `resources/subscribe`) as a read, by plangate's name
 * for it and the arguments the policy is shown; throws the refusal. The
 * read-only hint is the gateway's own (`own`), which the policy trusts.
 */
export async function decideRead(session: GatewaySession, deps: CallDeps, entry: string, args: Record<string, unknown>, link: UpstreamLink | undefined, meta: Meta): Promise<void> {
  const run = runOf(session, meta);
  if ('mismatch' in run) throw new McpError(RpcCode.InvalidParams, run.mismatch);
  const decision = await decide(deps, {
    agent: session.seat,
    tool: entry,
    ...(run.runId !== undefined ? { runId: run.runId } : {}),
    ...shown(args),
    annotations: READ_ONLY,
  }, link, { upstream: link?.spec.name ?? '', tool: entry, own: true });
  if (!decision.allowed) throw refusedError(decision);
}

/** `resources/read` is a read: decided (the read guard applies to a `file:` URI) before it goes upstream. */
export async function readResource(session: GatewaySession, deps: CallDeps, params: ReadResourceRequest['params'], extra: Extra) {
  await session.start();
  let path: string | undefined;
  if (params.uri.startsWith('file:')) {
    try {
      path = fileURLToPath(params.uri);
    } catch {
      throw new McpError(RpcCode.InvalidParams, `not a file URI plangate can read: ${params.uri}`);
    }
  }
  // The upstream that will read it, so that its path is checked in that upstream's roots.
  const link = session.resourceLinks.get(params.uri) ?? session.links.find((l) => l.serverCapabilities?.resources);
  await decideRead(session, deps, RESOURCE_READ, { uri: params.uri, ...(path !== undefined ? { path } : {}) }, link, params._meta as Meta);
  if (!link) throw new McpError(-32002, `Resource not found: ${params.uri}`);
  return await forwardRequest(session, deps, link, 'resources/read', { uri: params.uri, _meta: params._meta }, extra) as never;
}

/** `prompts/get` is a read too: refused only by a planning hold (a held seat may use whitelisted prompts). */
export async function getPrompt(session: GatewaySession, deps: CallDeps, params: GetPromptRequest['params'], extra: Extra) {
  await session.start();
  // Prompts listed earlier are routed by name; with one upstream, any name goes to it.
  const route = session.promptRoutes.get(params.name)
    ?? (!session.namespaced && session.links[0] ? { link: session.links[0], name: params.name } : undefined);
  if (!route) throw new McpError(RpcCode.InvalidParams, `Prompt ${params.name} not found (list the prompts first)`);
  await decideRead(session, deps, PROMPT_GET, { name: params.name }, route.link, params._meta as Meta);
  const forwarded = { name: route.name, ...(params.arguments ? { arguments: params.arguments } : {}), _meta: params._meta };
  return await forwardRequest(session, deps, route.link, 'prompts/get', forwarded, extra) as never;
}
