/**
 * Replaying past decisions under two rule sets: each record of a decision
 * log (the policy inputs `plangate serve --decision-log` writes) or of the
 * audit JSONL (refusals only, rebuilt into inputs without plan facts) is
 * decided by both sides' policies, and the calls whose outcome flips are
 * counted by crew, tool and code, with a few examples. The file is streamed
 * line by line: memory stays flat however long the log is.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Decision, Lineage, PolicyInput } from '../../core/types.js';
import type { Evaluator } from '../../engine/policy.js';

/** A flip's example: which line, who, what, and both outcomes. */
export interface FlipExample {
  line: number;
  time: string;
  agent: string;
  tool: string;
  old: string;
  new: string;
}

/** Counts of one direction of flips. */
export interface FlipCounts {
  total: number;
  byCrew: Record<string, number>;
  byTool: Record<string, number>;
  byCode: Record<string, number>;
  examples: FlipExample[];
}

export interface ReplaySummary {
  file: string;
  lines: number;
  /** Records decided on both sides. */
  replayed: number;
  /** Of them, from the decision log (full inputs) and from audit events (refusals, no plan facts). */
  fromDecisionLog: number;
  fromAudit: number;
  /** Other audit events (holds placed, released, …) and blank lines. */
  skipped: number;
  /** Lines that are not JSON or not a record this reads, with the first such line number. */
  unreadable: number;
  firstUnreadable?: number;
  /** Records a side could not decide from the log alone (it needs a file size the log lacks). */
  undetermined: number;
  toRefused: FlipCounts;
  toAllowed: FlipCounts;
  /** Refused on both sides, but by another check or with another code. */
  refusedDifferently: FlipCounts;
}

export interface ReplayOptions {
  file: string;
  old: Evaluator;
  new: Evaluator;
  /** The seat's lineage for an audit event (which names the crew only); default: that crew alone. */
  lineage?: (agent: string, crew: string | null) => Promise<Lineage>;
  /** The argument that holds a read tool's path (for a read-guard event); default `path`. */
  pathArg?: (tool: string) => string | undefined;
  /** Examples kept per direction (default 5). */
  examples?: number;
  /** Called with every tool name read. */
  onTool?: (tool: string) => void;
}

const AUDIT_DECISIONS = new Set(['PlanRequiredBlocked', 'PlanningHoldBlocked', 'ReadGuardBlocked']);

/** Longest line read; a longer one is counted unreadable, not parsed. */
export const MAX_LOG_LINE = 1024 * 1024;

/** Most distinct keys one count keeps; the rest are counted under `(other)`, so a log of endless names stays bounded. */
export const MAX_COUNT_KEYS = 10_000;

function counts(): FlipCounts {
  // No prototype: a tool named `__proto__` is counted like any other.
  return { total: 0, byCrew: Object.create(null), byTool: Object.create(null), byCode: Object.create(null), examples: [] };
}

/** How many keys each count holds. */
const keyCounts = new WeakMap<object, number>();

function bump(record: Record<string, number>, key: string): void {
  let k = key;
  if (!(k in record)) {
    const n = keyCounts.get(record) ?? 0;
    if (n >= MAX_COUNT_KEYS) k = '(other)';
    if (!(k in record)) keyCounts.set(record, n + 1);
  }
  record[k] = (record[k] ?? 0) + 1;
}

/**
 * Streams a log and replays every decision in it.
 *
 * @example
 * const summary = await replayLog({ file: 'decisions.jsonl', old: oldEngine, new: newEngine });
 * summary.toRefused.total // calls the new rules would refuse that the old let through
 */
export async function replayLog(options: ReplayOptions): Promise<ReplaySummary> {
  const keep = options.examples ?? 5;
  const s: ReplaySummary = {
    file: options.file, lines: 0, replayed: 0, fromDecisionLog: 0, fromAudit: 0, skipped: 0, unreadable: 0, undetermined: 0,
    toRefused: counts(), toAllowed: counts(), refusedDifferently: counts(),
  };
  const unreadable = (): void => {
    s.unreadable += 1;
    s.firstUnreadable ??= s.lines;
  };
  const lines = createInterface({ input: createReadStream(options.file, { highWaterMark: 1 << 20 }), crlfDelay: Infinity });
  for await (const text of lines) {
    s.lines += 1;
    if (text.trim() === '') {
      s.skipped += 1;
      continue;
    }
    if (text.length > MAX_LOG_LINE) {
      unreadable();
      continue;
    }
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      unreadable();
      continue;
    }
    const input = await toInput(record, options);
    if (input === 'skip') {
      s.skipped += 1;
      continue;
    }
    if (!input) {
      unreadable();
      continue;
    }
    options.onTool?.(input.call.tool);
    let a: Decision;
    let b: Decision;
    try {
      a = options.old.decide(input);
      b = options.new.decide(input);
    } catch {
      unreadable();
      continue;
    }
    s.replayed += 1;
    if ('input' in (record as object)) s.fromDecisionLog += 1;
    else s.fromAudit += 1;
    if (a.needs || b.needs) {
      s.undetermined += 1;
      continue;
    }
    const bucket = a.allowed && !b.allowed ? s.toRefused
      : !a.allowed && b.allowed ? s.toAllowed
      : !a.allowed && !b.allowed && a.code !== b.code ? s.refusedDifferently
      : undefined;
    if (!bucket) continue;
    const code = (b.allowed ? a.code : b.code) ?? '(none)';
    const crew = input.agent.crews[0] ?? '(no crew)';
    bucket.total += 1;
    bump(bucket.byCrew, crew);
    bump(bucket.byTool, input.call.tool);
    bump(bucket.byCode, code);
    if (bucket.examples.length < keep) {
      bucket.examples.push({ line: s.lines, time: new Date(input.now).toISOString(), agent: input.agent.id, tool: input.call.tool, old: outcome(a), new: outcome(b) });
    }
  }
  return s;
}

function outcome(d: Decision): string {
  if (!d.allowed) return `refused ${d.code}`;
  return d.shadow ? `allowed (shadow: would refuse ${d.code})` : 'allowed';
}

/** A policy input from a log record; 'skip' for a record with no decision in it; undefined when unreadable. */
async function toInput(record: unknown, options: ReplayOptions): Promise<PolicyInput | 'skip' | undefined> {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return undefined;
  const r = record as Record<string, unknown>;
  if ('input' in r) return isInput(r['input']) ? r['input'] : undefined;
  if (typeof r['type'] !== 'string') return undefined;
  if (!AUDIT_DECISIONS.has(r['type'])) return 'skip';
  const agent = r['agent'];
  const tool = r['tool'];
  const now = typeof r['time'] === 'string' ? Date.parse(r['time']) : NaN;
  const crew = typeof r['crew'] === 'string' ? r['crew'] : null;
  if (typeof agent !== 'string' || typeof tool !== 'string' || !Number.isFinite(now)) return undefined;
  const lineage = options.lineage ? await options.lineage(agent, crew) : { id: agent, known: crew !== null, crews: crew ? [crew] : [] };
  const input: PolicyInput = {
    now,
    call: { agent, tool, delegatedBy: [], ...(typeof r['runId'] === 'string' ? { runId: r['runId'] } : {}) },
    agent: lineage,
    upstream: [],
    messages: [],
  };
  if (r['type'] === 'PlanningHoldBlocked' && typeof r['holdId'] === 'string') {
    const kind = r['holdKind'] === 'reviewer' ? 'reviewer' : 'on_demand';
    input.hold = { id: r['holdId'], kind, task: null, placedBy: 'unknown', placedAt: now, plans: 0, pushBacks: 0 };
  }
  if (r['type'] === 'ReadGuardBlocked' && typeof r['path'] === 'string' && typeof r['sizeBytes'] === 'number') {
    input.call.args = { [options.pathArg?.(tool) ?? 'path']: r['path'] };
    input.files = { [r['path']]: { path: r['path'], kind: 'file', size: r['sizeBytes'] } };
  }
  return input;
}

function isInput(x: unknown): x is PolicyInput {
  if (typeof x !== 'object' || x === null) return false;
  const i = x as Partial<PolicyInput>;
  return typeof i.now === 'number' && typeof i.call?.agent === 'string' && typeof i.call?.tool === 'string'
    && typeof i.agent?.id === 'string' && Array.isArray(i.agent?.crews) && Array.isArray(i.messages) && Array.isArray(i.upstream);
}

/**
 * The distinct tool names of a log (decision log or audit), streamed.
 *
 * @example
 * await toolNamesIn('.data/audit.jsonl') // Set { 'github.merge_pull_request', … }
 */
export async function toolNamesIn(file: string, into: Set<string> = new Set()): Promise<Set<string>> {
  const lines = createInterface({ input: createReadStream(file, { highWaterMark: 1 << 20 }), crlfDelay: Infinity });
  for await (const text of lines) {
    if (text.length > MAX_LOG_LINE) continue;
    try {
      const r = JSON.parse(text) as { tool?: unknown; input?: { call?: { tool?: unknown } } };
      const tool = typeof r.tool === 'string' ? r.tool : r.input?.call?.tool;
      if (typeof tool === 'string') into.add(tool);
    } catch {
      // not a record: nothing to read from it
    }
  }
  return into;
}
