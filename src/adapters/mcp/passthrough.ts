/**
 * What a session passes through to its upstreams: the resource, template
 * and prompt lists (merged over the upstreams that are up, prompts
 * namespaced like tools), subscriptions, the log level and completions.
 * Only completions and subscribing are decided (as reads: they answer with,
 * or set, an upstream's state); the lists, unsubscribing and the log level
 * are not.
 */
import {
  CompleteRequestSchema,
  ErrorCode as RpcCode,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallDeps } from './calls.js';
import { COMPLETION_COMPLETE, decideRead, forwardRequest, RESOURCE_SUBSCRIBE } from './reads.js';
import { exposedName } from './names.js';
import type { Extra, GatewaySession } from './session.js';
import type { UpstreamLink } from './upstream.js';

/**
 * Registers the pass-through handlers on a session's server.
 *
 * @example
 * registerPassThrough(session, deps);
 */
export function registerPassThrough(session: GatewaySession, deps: CallDeps): void {
  const s = session.server;
  // Each counts against the session's bound of requests in flight, as the gated ones do.
  const g = session.guards;
  s.setRequestHandler(ListResourcesRequestSchema, (_req, extra) => g.bounded('resources/list', async () => {
    const resources = await gatherList(session, 'resources/list', 'resources', 'resources', extra);
    for (const { link, item } of resources) session.resourceLinks.set(String(item['uri']), link);
    return { resources: resources.map((r) => r.item) } as never;
  }));
  s.setRequestHandler(ListResourceTemplatesRequestSchema, (_req, extra) => g.bounded('resources/templates/list', async () => ({
    resourceTemplates: (await gatherList(session, 'resources/templates/list', 'resources', 'resourceTemplates', extra)).map((r) => r.item),
  }) as never));
  s.setRequestHandler(ListPromptsRequestSchema, (_req, extra) => g.bounded('prompts/list', async () => {
    const prompts = await gatherList(session, 'prompts/list', 'prompts', 'prompts', extra);
    return {
      prompts: prompts.map(({ link, item }) => {
        const name = exposedName(link.spec.name, String(item['name']), session.namespaced);
        session.promptRoutes.set(name, { link, name: String(item['name']) });
        return { ...item, name };
      }),
    } as never;
  }));
  for (const schema of [SubscribeRequestSchema, UnsubscribeRequestSchema]) {
    s.setRequestHandler(schema, (req, extra) => g.bounded(req.method, async () => {
      await session.start();
      const link = session.resourceLinks.get(req.params.uri) ?? session.links.find((l) => l.serverCapabilities?.resources?.subscribe);
      // Subscribing is decided as a read; ending a subscription never is.
      if (req.method === RESOURCE_SUBSCRIBE) await decideRead(session, deps, RESOURCE_SUBSCRIBE, { uri: req.params.uri }, link, req.params._meta);
      if (!link) throw new McpError(RpcCode.InvalidParams, `no upstream serves ${req.params.uri}`);
      return forwardRequest(session, deps, link, req.method, req.params, extra) as never;
    }));
  }
  s.setRequestHandler(SetLevelRequestSchema, (req, extra) => g.bounded(req.method, async () => {
    await session.start();
    await Promise.all(session.links.filter((l) => l.state === 'up' && l.serverCapabilities?.logging)
      .map((l) => l.request({ method: req.method, params: req.params }, { signal: extra.signal }).catch(() => {})));
    return {};
  }));
  s.setRequestHandler(CompleteRequestSchema, (req, extra) => g.bounded(req.method, async () => {
    await session.start();
    const ref = req.params.ref;
    const prompt = ref.type === 'ref/prompt' ? session.promptRoutes.get(ref.name) : undefined;
    const link = prompt?.link ?? session.links.find((l) => l.state === 'up' && l.serverCapabilities?.completions);
    await decideRead(session, deps, COMPLETION_COMPLETE, { ref: ref.type === 'ref/prompt' ? ref.name : ref.uri, argument: req.params.argument.name }, link, req.params._meta);
    if (!link) return { completion: { values: [] } };
    const params = prompt ? { ...req.params, ref: { ...ref, name: prompt.name } } : req.params;
    return forwardRequest(session, deps, link, req.method, params, extra) as never;
  }));
}

/** Every page of a list from every link that is up and has the capability, in link order. */
async function gatherList(session: GatewaySession, method: string, capability: 'resources' | 'prompts', key: string, extra: Extra) {
  await session.start();
  const out: Array<{ link: UpstreamLink; item: Record<string, unknown> }> = [];
  for (const link of session.links) {
    if (link.state !== 'up' || !link.serverCapabilities?.[capability]) continue;
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const r = await link.request({ method, params: cursor !== undefined ? { cursor } : {} }, { signal: extra.signal }) as Record<string, unknown>;
      for (const item of (r[key] as Array<Record<string, unknown>> | undefined) ?? []) out.push({ link, item });
      cursor = typeof r['nextCursor'] === 'string' ? r['nextCursor'] : undefined;
      if (cursor === undefined) break;
    }
  }
  return out;
}
