/**
 * The pinned MCP tools an operator still has to review: those the gateway
 * refused as changed (`ToolChangedBlocked`, read back from the audit the
 * gateway writes) whose pin in the rules in force now is still the one the
 * refusal compared with, and not the definition last seen. A re-pin
 * (`plangate pin`) writes a new digest into the rules, so the tool drops off
 * the list once the rules reload; a tool no longer pinned at all is decided
 * as any other and is not listed.
 *
 * Only what the gateway and the rules assert is used: the upstream, the
 * tool's name there and the digests. The tool name a client called it by
 * is shown, never relied on.
 */
import type { AuditEvent, ToolChangedBlocked } from '../audit/port.js';

export interface ChangedTool {
  /** The upstream (as the rules pin it) and the tool's name there. */
  upstream: string;
  upstreamTool: string;
  /** The name the last refused call used (namespaced when the gateway has several upstreams). */
  tool: string;
  /** The pin in the rules in force now, and the digest the upstream listed when last refused. */
  pinnedDigest: string;
  seenDigest: string;
  /** Refusals among the events read, the seats refused (sorted, at most 20), first and last refusal. */
  refusals: number;
  agents: string[];
  firstRefused: string;
  lastRefused: string;
  /** The rule file the pins are in (`pins-<upstream>.yaml`, as adapters/mcp/pins.ts names it). */
  pinsFile: string;
}

/** Seats named per tool, at most. */
export const CHANGED_TOOL_AGENTS = 20;

type Pins = Readonly<Record<string, Readonly<Record<string, string>>>>;

const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/**
 * The changed tools, from refusal events newest first and the pins in force;
 * ordered by last refusal, newest first.
 *
 * @example
 * changedTools(events, { web: { peek: 'sha256:aa…' } }) // [{ upstream: 'web', upstreamTool: 'peek', seenDigest: 'sha256:bb…', … }]
 */
export function changedTools(events: readonly AuditEvent[], pins: Pins): ChangedTool[] {
  const byTool = new Map<string, { latest: ToolChangedBlocked; first: string; refusals: number; agents: Set<string> }>();
  for (const e of events) {
    if (e.type !== 'ToolChangedBlocked') continue;
    const key = JSON.stringify([e.upstream, e.upstreamTool]);
    const seen = byTool.get(key);
    if (!seen) byTool.set(key, { latest: e, first: e.time, refusals: 1, agents: new Set([e.agent]) });
    else {
      seen.refusals += 1;
      if (e.time < seen.first) seen.first = e.time;
      if (seen.agents.size < CHANGED_TOOL_AGENTS) seen.agents.add(e.agent);
    }
  }
  const out: ChangedTool[] = [];
  for (const { latest, first, refusals, agents } of byTool.values()) {
    const { upstream, upstreamTool, seenDigest, pinnedDigest } = latest;
    const upstreamPins = own(pins, upstream) ? pins[upstream] : undefined;
    const pinned = upstreamPins && own(upstreamPins, upstreamTool) ? upstreamPins[upstreamTool] : undefined;
    // Not pinned any more (decided as any other tool), pinned as last seen, or pinned anew since the
    // refusal (the operator reviewed it): nothing to review. An event without digests (written before
    // they were recorded) cannot tell: not listed.
    if (pinned === undefined || !seenDigest || !pinnedDigest || seenDigest === pinned || pinnedDigest !== pinned) continue;
    out.push({
      upstream,
      upstreamTool,
      tool: latest.tool,
      pinnedDigest: pinned,
      seenDigest,
      refusals,
      agents: [...agents].sort(),
      firstRefused: first,
      lastRefused: latest.time,
      pinsFile: `pins-${upstream}.yaml`,
    });
  }
  return out.sort((a, b) => (a.lastRefused < b.lastRefused ? 1 : a.lastRefused > b.lastRefused ? -1 : 0));
}

/**
 * The command that pins an upstream's tools again into `rulesDir`, quoted
 * for a POSIX shell; the operator adds the upstream options the gateway
 * runs with.
 *
 * @example
 * repinCommand('/srv/plangate/rules') // 'plangate pin --rules /srv/plangate/rules'
 */
export function repinCommand(rulesDir: string): string {
  const quoted = /^[\w@%+=:,./-]+$/.test(rulesDir) ? rulesDir : `'${rulesDir.replace(/'/g, `'\\''`)}'`;
  return `plangate pin --rules ${quoted}`;
}
