/**
 * The effective settings that change for every seat the org knows (and every
 * seat a rule names), asked of each side's policy through the gate, grouped
 * by crew so that a large org stays readable: "crew desk and its 412 agents:
 * windowMin 15 → 5".
 */
import { basename } from 'node:path';
import { ErrorCode, formatProblem, PlangateError, toError } from '../../core/errors.js';
import type { Lineage, RulesData } from '../../core/types.js';
import type { Engine } from '../../engine/policy.js';
import { createMemoryStore } from '../../facts/memory/store.js';
import type { Store } from '../../facts/port.js';
import { createGate } from '../../gate/gate.js';
import { decodeRuleText } from '../../rules/decode.js';
import { parseRuleFile } from '../../rules/parse.js';
import { readRuleFile, unreadReason } from '../../rules/read.js';
import { keepIdsAsWritten } from '../suite/load.js';

/** One setting of one seat, old → new. */
export interface SettingChange {
  field: string;
  old: unknown;
  new: unknown;
}

/** Seats that share the same changes. */
export interface SeatGroup {
  /** The crew they belong to, or null for seats the org does not know. */
  crew: string | null;
  /** True when the group is every agent of the crew. */
  wholeCrew: boolean;
  /** How many agents the crew has (0 for seats the org does not know). */
  crewSize: number;
  /** True for the group that stands for every seat neither the org nor a rule names. */
  others?: true;
  agents: string[];
  changes: SettingChange[];
}

/** The id that stands for a seat neither the org nor a rule names. */
const OTHER_SEAT = 'plangate.any-other-seat';

/** Most agent ids listed in one group; the count is always exact. */
export const MAX_LISTED_AGENTS = 5;

/**
 * Reads an org file: YAML or JSON, `{ crews: { id: parent|null }, agents: { id: crew } }`
 * (or the same under `org:`, as in a test suite), into a memory store.
 *
 * @example
 * const store = await loadOrgFile('org.yaml');
 */
export async function loadOrgFile(file: string): Promise<Store> {
  // Read as a rule file is: a FIFO does not hang the command, and one larger than a rule file may be is refused unread.
  const read = await readRuleFile(file, basename(file), 'org files');
  if (read.kind !== 'file') {
    throw new PlangateError(ErrorCode.InvalidInput, `cannot read the org file ${file}: ${unreadReason(read)}`);
  }
  const decoded = decodeRuleText(basename(file), read.bytes);
  if (!decoded.ok) throw new PlangateError(ErrorCode.InvalidInput, formatProblem(decoded.problem), [decoded.problem]);
  const text = decoded.text;
  const { parsed, problems } = parseRuleFile(file, text);
  if (!parsed) throw new PlangateError(ErrorCode.InvalidInput, problems.map(formatProblem).join('\n'), problems);
  keepIdsAsWritten(parsed);
  const doc = (parsed.data ?? {}) as Record<string, unknown>;
  const org = (typeof doc['org'] === 'object' && doc['org'] !== null ? doc['org'] : doc) as { crews?: unknown; agents?: unknown };
  const crews = isMap(org.crews) ? org.crews : {};
  const agents = isMap(org.agents) ? org.agents : {};
  const store = createMemoryStore();
  const pending = Object.entries(crews);
  const fail = (at: Array<string | number>, message: string): never => {
    const { line, col } = parsed.locate(at, 'key');
    throw new PlangateError(ErrorCode.InvalidInput, `${file}:${line}:${col}: ${message}`, [{ file, line, col, message }]);
  };
  while (pending.length > 0) {
    const i = pending.findIndex(([, parent]) => parent === null || !pending.some(([id]) => id === parent));
    if (i < 0) fail(['crews', (pending[0] as [string, unknown])[0]], 'crews form a cycle of parents');
    const [[id, parent]] = pending.splice(i, 1) as [[string, unknown]];
    try {
      await store.putCrew({ id, parent: parent === null || parent === undefined ? null : String(parent) });
    } catch (error) {
      fail(['crews', id], toError(error).message);
    }
  }
  for (const [id, crew] of Object.entries(agents)) {
    try {
      await store.putAgent({ id, crew: String(crew) });
    } catch (error) {
      fail(['agents', id], toError(error).message);
    }
  }
  return store;
}

function isMap(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * Every seat whose settings differ between the two engines, grouped.
 *
 * @example
 * const groups = await diffSettings(store, oldEngine, newEngine, [oldData, newData]);
 */
export async function diffSettings(store: Store, oldEngine: Engine, newEngine: Engine, rules: readonly RulesData[]): Promise<SeatGroup[]> {
  const gates = [createGate({ engine: oldEngine, store }), createGate({ engine: newEngine, store })] as const;
  const agents = await store.listAgents();
  const crewSize = new Map<string, number>();
  for (const a of agents) crewSize.set(a.crew, (crewSize.get(a.crew) ?? 0) + 1);
  const named = new Set<string>();
  for (const data of rules) {
    for (const id of Object.keys(data.planRequired.agents)) named.add(id);
    for (const id of Object.keys(data.planningGate?.agents ?? {})) named.add(id);
  }
  const seats = new Map<string, string | null>(agents.map((a) => [a.id, a.crew]));
  for (const id of named) if (!seats.has(id)) seats.set(id, null);

  const groups = new Map<string, SeatGroup>();
  for (const [id, crew] of seats) {
    const seat = await store.lineage(id);
    const changes = compareSeat(await describeSeat(gates[0], oldEngine, seat), await describeSeat(gates[1], newEngine, seat));
    if (changes.length === 0) continue;
    const key = `${crew ?? ''}\0${JSON.stringify(changes)}`;
    let group = groups.get(key);
    if (!group) {
      group = { crew, wholeCrew: false, crewSize: crew === null ? 0 : crewSize.get(crew) ?? 0, agents: [], changes };
      groups.set(key, group);
    }
    group.agents.push(id);
  }
  // Any other seat: the org does not know it and no rule names it.
  const other = await store.lineage(OTHER_SEAT);
  if (!other.known) {
    const changes = compareSeat(await describeSeat(gates[0], oldEngine, other), await describeSeat(gates[1], newEngine, other));
    if (changes.length > 0) groups.set('\0others', { crew: null, wholeCrew: false, crewSize: 0, agents: [], changes, others: true });
  }
  const out = [...groups.values()];
  for (const g of out) g.wholeCrew = g.crew !== null && g.agents.length === g.crewSize;
  return out.sort((x, y) => (x.crew ?? '\uffff').localeCompare(y.crew ?? '\uffff') || y.agents.length - x.agents.length);
}

async function describeSeat(gate: ReturnType<typeof createGate>, engine: Engine, seat: Lineage): Promise<Record<string, unknown>> {
  const s = await gate.settingsFor(seat.id);
  const p = engine.planning(seat);
  return {
    mode: s.mode.value,
    windowMin: s.windowMin.value,
    acceptUpstream: s.acceptUpstream.value,
    enforce: s.enforce.value,
    profile: p.profile.name,
    'planningGate.enabled': p.enabled.value,
    whitelist: p.whitelist.value,
    reviewerChannel: p.reviewerChannel.value,
    readGuardMaxBytes: p.readGuardMaxBytes.value,
  };
}

function compareSeat(a: Record<string, unknown>, b: Record<string, unknown>): SettingChange[] {
  return Object.keys(a).flatMap((field) => (JSON.stringify(a[field]) === JSON.stringify(b[field]) ? [] : [{ field, old: a[field], new: b[field] }]));
}
