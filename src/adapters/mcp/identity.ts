/**
 * What the gateway says of itself at initialize, from its upstreams: the
 * capabilities they offer (MCP 2025-11-25, Lifecycle, "Capability
 * Negotiation": a client may rely on what is offered, and a method not
 * offered is answered -32601), their instructions for the model, and the
 * upstream's own identity (name, title, version, icons) when there is one.
 */
import type { Implementation, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { UpstreamLink } from './upstream.js';

/** plangate's own word to the model, after the upstreams' instructions. */
export const GATE_INSTRUCTIONS = 'Tool calls pass through plangate. Before a side effect, post a plan with plangate_say; a refused call says why and what to do.';

/** plangate's identity, where it is not one upstream's. */
export const GATE_INFO: Implementation = { name: 'plangate', version: '0.1.0' };

/** What an upstream not reached at initialize is taken to offer: what the gateway can pass through. */
const UNKNOWN: ServerCapabilities = {
  resources: { listChanged: true, subscribe: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
};

/**
 * The capabilities the client is offered: tools always (plangate's own, and
 * the list changes when an upstream's does), and each other one that some
 * upstream offers. An upstream not reached yet counts as offering what the
 * gateway can pass through (tasks aside), so that it is usable once up.
 *
 * @example
 * advertised(session.links) // { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, … }
 */
export function advertised(links: readonly UpstreamLink[]): ServerCapabilities {
  const all = links.map((l) => l.serverCapabilities ?? UNKNOWN);
  const any = <T>(pick: (c: ServerCapabilities) => T | undefined): boolean => all.some((c) => pick(c) !== undefined && pick(c) !== false);
  const out: ServerCapabilities = { tools: { listChanged: true } };
  if (any((c) => c.resources)) {
    out.resources = {
      ...(any((c) => c.resources?.subscribe) ? { subscribe: true } : {}),
      ...(any((c) => c.resources?.listChanged) ? { listChanged: true } : {}),
    };
  }
  if (any((c) => c.prompts)) out.prompts = any((c) => c.prompts?.listChanged) ? { listChanged: true } : {};
  if (any((c) => c.logging)) out.logging = {};
  if (any((c) => c.completions)) out.completions = {};
  if (any((c) => c.tasks)) {
    out.tasks = {
      ...(any((c) => c.tasks?.list) ? { list: {} } : {}),
      ...(any((c) => c.tasks?.cancel) ? { cancel: {} } : {}),
      ...(any((c) => c.tasks?.requests?.tools?.call) ? { requests: { tools: { call: {} } } } : {}),
    };
  }
  return out;
}

/**
 * The server info and instructions: with one upstream, its own identity and
 * its instructions as it wrote them; with several, plangate's identity and
 * each upstream's instructions under its namespace. plangate's own word
 * comes last.
 */
export function identity(links: readonly UpstreamLink[], namespaced: boolean): { serverInfo: Implementation; instructions: string } {
  const parts = links.flatMap((l) => {
    const text = l.instructions?.trim();
    if (!text) return [];
    return [namespaced ? `Upstream ${l.spec.name} (its tools and prompts are named ${l.spec.name}__…):\n${text}` : text];
  });
  const one = !namespaced ? links[0]?.serverInfo : undefined;
  return { serverInfo: one ?? GATE_INFO, instructions: [...parts, GATE_INSTRUCTIONS].join('\n\n') };
}
