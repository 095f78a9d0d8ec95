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
import { METHOD_NOT_FOUND, type Extra, type GatewaySession } from './session.js';
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
  // What no upstream offered is answered as the upstream answers it (-32601), not with an empty list.
  s.setRequestHandler(ListResourcesRequestSchema, (_req, extra) => g.bounded('resources/list', async () => {
    session.offers('resources');
    const { items: resources, meta } = await gatherList(session, 'resources/list', 'resources', 'resources', extra);
    for (const { link, item } of resources) session.resourceLinks.set(String(item['uri']), link);
    return { resources: resources.map((r) => r.item), ...meta } as never;
  }));
  s.setRequestHandler(ListResourceTemplatesRequestSchema, (_req, extra) => g.bounded('resources/templates/list', async () => {
    session.offers('resources');
    const { items, meta } = await gatherList(session, 'resources/templates/list', 'resources', 'resourceTemplates', extra);
    return { resourceTemplates: items.map((r) => r.item), ...meta } as never;
  }));
  s.setRequestHandler(ListPromptsRequestSchema, (_req, extra) => g.bounded('prompts/list', async () => {
    session.offers('prompts');
    const { items: prompts, meta } = await gatherList(session, 'prompts/list', 'prompts', 'prompts', extra);
    return {
      ...meta,
      prompts: prompts.map(({ link, item }) => {
        const name = exposedName(link.spec.name, String(item['name']), session.namespaced);
        session.promptRoutes.set(name, { link, name: String(item['name']) });
        return { ...item, name };
      }),
    } as never;
  }));
  for (const schema of [SubscribeRequestSchema, UnsubscribeRequestSchema]) {
    s.setRequestHandler(schema, (req, extra) => g.bounded(req.method, async () => {
      if (!session.offered.resources?.subscribe) throw METHOD_NOT_FOUND();
      await session.start();
      const link = session.resourceLinks.get(req.params.uri) ?? session.links.find((l) => l.serverCapabilities?.resources?.subscribe);
      // Subscribing is decided as a read; ending a subscription never is.
      if (req.method === RESOURCE_SUBSCRIBE) await decideRead(session, deps, RESOURCE_SUBSCRIBE, { uri: req.params.uri }, link, req.params._meta);
      if (!link) throw new McpError(RpcCode.InvalidParams, `no upstream serves ${req.params.uri}`);
      return forwardRequest(session, deps, link, req.method, req.params, extra) as never;
    }));
  }
  s.setRequestHandler(SetLevelRequestSchema, (req, extra) => g.bounded(req.method, async () => {
    session.offers('logging');
    await session.start();
    await Promise.all(session.links.filter((l) => l.state === 'up' && l.serverCapabilities?.logging)
      .map((l) => l.request({ method: req.method, params: req.params }, { signal: extra.signal }).catch(() => {})));
    return {};
  }));
  s.setRequestHandler(CompleteRequestSchema, (req, extra) => g.bounded(req.method, async () => {
    session.offers('completions');
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

/**
 * Every page of a list from every link that is up and has the capability, in link order, and
 * the lists' own `_meta` (merged, a later page's key over an earlier one's).
 */
async function gatherList(session: GatewaySession, method: string, capability: 'resources' | 'prompts', key: string, extra: Extra) {
  await session.start();
  const out: Array<{ link: UpstreamLink; item: Record<string, unknown> }> = [];
  let meta: Record<string, unknown> | undefined;
  for (const link of session.links) {
    if (link.state !== 'up' || !link.serverCapabilities?.[capability]) continue;
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const r = await link.request({ method, params: cursor !== undefined ? { cursor } : {} }, { signal: extra.signal }) as Record<string, unknown>;
      for (const item of (r[key] as Array<Record<string, unknown>> | undefined) ?? []) out.push({ link, item });
      if (r['_meta'] && typeof r['_meta'] === 'object') meta = { ...meta, ...(r['_meta'] as Record<string, unknown>) };
      cursor = typeof r['nextCursor'] === 'string' ? r['nextCursor'] : undefined;
      if (cursor === undefined) break;
    }
  }
  return { items: out, meta: meta ? { _meta: meta } : {} };
}
