/**
 * An independent reference model of plan-required mode, written from
 * DESIGN.md ("Plan-required mode", "Trust model") and
 * docs/concepts/runs-and-delegations.md, and nothing else: not from the Rego, not from the gate, not
 * from the stores.
 *
 * It is deliberately plain and slow. It sees every message in the world
 * (no candidate narrowing), so comparing it with the real gate checks both
 * the policy and the store's bounded fact gathering.
 */
import type { AuthorKind, Mode, PlanRule, RulesData, ScopeKind, ToolClass } from '../../src/core/types.js';

export interface ModelCrew {
  id: string;
  parent: string | null;
}

export interface ModelAgent {
  id: string;
  crew: string;
}

export interface ModelMessage {
  id: string;
  thread: string;
  author: string;
  authorKind: AuthorKind;
  kind: string;
  /** Epoch milliseconds. */
  at: number;
  runId?: string;
}

/** A run as the host recorded it (epoch ms). */
export interface ModelRun {
  id: string;
  seat: string;
  startedAt: number;
  expiresAt: number;
  endedAt: number | null;
}

/** A delegation as recorded: manager → worker, for one run or any (null). */
export interface ModelDelegation {
  manager: string;
  worker: string;
  runId: string | null;
  createdAt: number;
  expiresAt: number | null;
  revoked: boolean;
}

/** Everything the decision may depend on. */
export interface World {
  /** Decision time, epoch milliseconds. */
  now: number;
  crews: ModelCrew[];
  agents: ModelAgent[];
  rules: RulesData;
  /** Every message ever posted. */
  messages: ModelMessage[];
  /** Every run ever started. */
  runs: ModelRun[];
  /** Every delegation ever recorded. */
  delegations: ModelDelegation[];
}

export interface ModelCall {
  agent: string;
  tool: string;
  runId?: string;
  delegatedBy?: string[];
}

/** Where an effective setting came from. */
export interface ModelOrigin {
  scope: ScopeKind | 'default';
  id?: string;
  source?: string;
}

export interface ModelSetting<T> extends ModelOrigin {
  value: T;
}

/** How one message fared against the four conditions. */
export interface ModelVerdict {
  id: string;
  counts: boolean;
  /** Satisfies everything but freshness, and is neither fresh nor same-run. */
  staleOnly: boolean;
  fresh: boolean;
  sameRun: boolean;
}

export type ModelRunStatus = 'open' | 'unknown' | 'foreign' | 'ended' | 'expired' | 'not_started';

export interface ModelDecision {
  /** What the record says of the call's run, when it names one. */
  runStatus?: ModelRunStatus;
  /** The recorded part of the claimed delegation chain, and the first claimed manager not on record. */
  chain: string[];
  unrecorded?: string;
  allowed: boolean;
  /** Shadow mode: the rule in force does not enforce and the call would have been refused. */
  shadow: boolean;
  code?: string;
  reason?: 'none' | 'stale';
  mode: Mode;
  gated: boolean;
  class: ToolClass;
  settings: {
    mode: ModelSetting<Mode>;
    windowMin: ModelSetting<number>;
    acceptUpstream: ModelSetting<boolean>;
    enforce: ModelSetting<boolean>;
  };
  /** Ids of the messages that count as a plan for this call. */
  counting: string[];
  verdicts: ModelVerdict[];
}

// ---------------------------------------------------------------------------
// Tool classes

/** Stricter first. */
const STRICTNESS: readonly ToolClass[] = ['spend', 'effect', 'read', 'say'];

/** Whether `name` matches `pattern`: `*` is any run of characters (dots included), `?` exactly one; nothing else is special. */
export function globMatches(pattern: string, name: string): boolean {
  // Classic DP over (pattern position, name position).
  const p = [...pattern];
  const s = [...name];
  // ok[j] = pattern prefix of length i matches name prefix of length j
  let ok: boolean[] = new Array<boolean>(s.length + 1).fill(false);
  ok[0] = true;
  for (let i = 1; i <= p.length; i++) {
    const pc = p[i - 1];
    const next: boolean[] = new Array<boolean>(s.length + 1).fill(false);
    if (pc === '*') {
      next[0] = ok[0] === true;
      for (let j = 1; j <= s.length; j++) next[j] = ok[j] === true || next[j - 1] === true;
    } else {
      for (let j = 1; j <= s.length; j++) {
        next[j] = ok[j - 1] === true && (pc === '?' || pc === s[j - 1]);
      }
    }
    ok = next;
  }
  return ok[s.length] === true;
}

/** How many characters of a pattern are neither `*` nor `?`. */
export function literalCount(pattern: string): number {
  let n = 0;
  for (const ch of pattern) if (ch !== '*' && ch !== '?') n++;
  return n;
}

export function classify(rules: RulesData, tool: string): ToolClass {
  const exact = rules.tools.exact ?? {};
  if (Object.prototype.hasOwnProperty.call(exact, tool)) return exact[tool] as ToolClass;
  const matching = (rules.tools.patterns ?? []).filter((p) => globMatches(p.pattern, tool));
  if (matching.length > 0) {
    const best = Math.max(...matching.map((p) => literalCount(p.pattern)));
    const classes = matching.filter((p) => literalCount(p.pattern) === best).map((p) => p.class);
    for (const c of STRICTNESS) if (classes.includes(c)) return c;
  }
  return rules.tools.default ?? 'effect';
}

// ---------------------------------------------------------------------------
// Org and settings

/** The agent's crew and every ancestor, nearest first; [] for an agent the org does not know. */
export function crewChain(world: World, agentId: string): string[] {
  const agent = world.agents.find((a) => a.id === agentId);
  if (!agent) return [];
  const out: string[] = [];
  let cur: string | null = agent.crew;
  while (cur !== null && !out.includes(cur)) {
    out.push(cur);
    const crew: ModelCrew | undefined = world.crews.find((c) => c.id === cur);
    cur = crew ? crew.parent : null;
  }
  return out;
}

/** The threads an agent speaks in: its own, its crews' (all ancestors) and the org's. Nothing else. */
export function speaksIn(world: World, agentId: string): Set<string> {
  return new Set([`agent:${agentId}`, ...crewChain(world, agentId).map((c) => `crew:${c}`), 'org']);
}

interface Layer {
  rule: Partial<PlanRule> & { source?: string };
  origin: ModelOrigin;
}

function layers(world: World, agentId: string): Layer[] {
  const pr = world.rules.planRequired;
  const out: Layer[] = [];
  const own = Object.prototype.hasOwnProperty.call(pr.agents, agentId) ? pr.agents[agentId] : undefined;
  if (own) out.push({ rule: own, origin: { scope: 'agent', id: agentId, source: own.source } });
  for (const c of crewChain(world, agentId)) {
    const r = Object.prototype.hasOwnProperty.call(pr.crews, c) ? pr.crews[c] : undefined;
    if (r) out.push({ rule: r, origin: { scope: 'crew', id: c, source: r.source } });
  }
  if (pr.workspace) out.push({ rule: pr.workspace, origin: { scope: 'workspace', source: pr.workspace.source } });
  return out;
}

function pick<K extends 'mode' | 'windowMin' | 'acceptUpstream' | 'enforce'>(
  ls: Layer[],
  field: K,
  fallback: NonNullable<PlanRule[K]>,
): ModelSetting<NonNullable<PlanRule[K]>> {
  for (const l of ls) {
    const v = l.rule[field];
    if (v !== undefined) return { value: v as NonNullable<PlanRule[K]>, ...l.origin };
  }
  return { value: fallback, scope: 'default' };
}

export function settingsFor(world: World, agentId: string): ModelDecision['settings'] {
  const ls = layers(world, agentId);
  return {
    mode: pick(ls, 'mode', 'off'),
    windowMin: pick(ls, 'windowMin', 30),
    acceptUpstream: pick(ls, 'acceptUpstream', false),
    // Shadow mode (enforce: false) is a setting like the others: narrowest rule first, true by default.
    enforce: pick(ls, 'enforce', true),
  };
}

export function isGated(mode: Mode, cls: ToolClass): boolean {
  if (cls === 'read' || cls === 'say') return false;
  if (mode === 'side_effects') return cls === 'effect' || cls === 'spend';
  if (mode === 'spends_only') return cls === 'spend';
  return false;
}

// ---------------------------------------------------------------------------
// Runs and delegations: counted only as recorded

/** The longest a run stays open: the rules' runs.maxMinutes, 24 hours by default. */
export function maxRunMs(rules: RulesData): number {
  return (rules.runs?.maxMinutes ?? 24 * 60) * 60_000;
}

/** A recorded delegation counts at `now` unless revoked, expired or not yet made, and only for its run (or any run when it names none). */
function liveDelegation(world: World, manager: string, worker: string, runId: string | undefined): boolean {
  return world.delegations.some((d) => d.manager === manager && d.worker === worker && !d.revoked
    && d.createdAt <= world.now && (d.expiresAt === null || d.expiresAt > world.now)
    && (d.runId === null || d.runId === runId));
}

/** The claimed chain up to (not including) its first link that is not on record. */
export function recordedChain(world: World, call: ModelCall): { chain: string[]; unrecorded?: string } {
  const claimed = call.delegatedBy ?? [];
  const chain: string[] = [];
  let worker = call.agent;
  for (const manager of claimed) {
    if (!liveDelegation(world, manager, worker, call.runId)) return { chain, unrecorded: manager };
    chain.push(manager);
    worker = manager;
  }
  return { chain };
}

/** What the record says of the call's run: open only for the seat or its recorded chain, started, not ended, within its bounds. */
export function runStatus(world: World, call: ModelCall, chain: string[]): { status: ModelRunStatus; run?: ModelRun } {
  const run = world.runs.find((r) => r.id === call.runId);
  if (!run) return { status: 'unknown' };
  if (run.seat !== call.agent && !chain.includes(run.seat)) return { status: 'foreign', run };
  if (run.endedAt !== null && run.endedAt <= world.now) return { status: 'ended', run };
  if (run.startedAt > world.now) return { status: 'not_started', run };
  if (world.now >= Math.min(run.expiresAt, run.startedAt + maxRunMs(world.rules))) return { status: 'expired', run };
  return { status: 'open', run };
}

// ---------------------------------------------------------------------------
// The decision

export function referenceDecide(world: World, call: ModelCall): ModelDecision {
  const now = world.now;
  const cls = classify(world.rules, call.tool);
  const settings = settingsFor(world, call.agent);
  const mode = settings.mode.value;
  const gated = isGated(mode, cls);
  const windowMs = settings.windowMin.value * 60_000;
  const { chain, unrecorded } = recordedChain(world, call);
  const upstream = settings.acceptUpstream.value
    ? new Set(chain.filter((a) => a !== call.agent))
    : new Set<string>();
  const hasRun = typeof call.runId === 'string' && call.runId !== '';
  const run = hasRun ? runStatus(world, call, chain) : undefined;
  // The same-run exception: the call's run is open, and the plan was tagged with it since it started.
  const openRun = run?.status === 'open' ? run.run : undefined;

  const verdicts: ModelVerdict[] = world.messages.map((m) => {
    const isPlan = m.kind === 'plan';
    const byAgent = m.authorKind === 'agent';
    const authorOk = m.author === call.agent || upstream.has(m.author);
    const threadOk = speaksIn(world, m.author).has(m.thread);
    const notFuture = m.at <= now;
    const fresh = now - m.at < windowMs;
    const sameRun = openRun !== undefined && m.runId === openRun.id && m.at >= openRun.startedAt;
    const allButFreshness = isPlan && byAgent && authorOk && threadOk && notFuture;
    return {
      id: m.id,
      counts: allButFreshness && (fresh || sameRun),
      staleOnly: allButFreshness && !fresh && !sameRun,
      fresh,
      sameRun,
    };
  });
  const counting = verdicts.filter((v) => v.counts).map((v) => v.id);

  const base = {
    mode, gated, class: cls, settings, counting, verdicts, chain,
    ...(unrecorded !== undefined ? { unrecorded } : {}),
    ...(run ? { runStatus: run.status } : {}),
  };
  if (!gated || counting.length > 0) return { allowed: true, shadow: false, ...base };
  const reason = verdicts.some((v) => v.staleOnly) ? 'stale' : 'none';
  // A rule that does not enforce lets a would-be refusal through, saying what it would have been.
  const shadow = settings.enforce.value === false;
  return { allowed: shadow, shadow, code: `plan_required:${call.tool}:${reason}`, reason, ...base };
}
