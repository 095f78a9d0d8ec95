/**
 * `plangate diff OLD NEW`: what changes if the rules go from OLD to NEW —
 * the rules themselves, the settings of every seat, the class of known
 * tools, and (with a log) which past decisions would flip. Every answer
 * comes from the compiled policy, loaded once with each side's rules.
 */
import { access } from 'node:fs/promises';
import { ErrorCode, formatProblem, PlangateError } from '../../core/errors.js';
import type { ToolClass } from '../../core/types.js';
import type { Engine } from '../../engine/policy.js';
import { readPolicy } from '../../engine/source.js';
import { createMemoryStore } from '../../facts/memory/store.js';
import type { Store } from '../../facts/port.js';
import { createGate } from '../../gate/gate.js';
import { openStore } from '../open.js';
import { loadCheckedEngine } from '../runtime.js';
import { replayLog, toolNamesIn, type ReplaySummary } from './replay.js';
import { diffRules, type RuleChange } from './rules.js';
import { diffSettings, loadOrgFile, type SeatGroup } from './settings.js';
import { readSide } from './side.js';

export interface DiffOptions {
  old: string;
  new: string;
  /** The rules directory a Git revision is read at (default `rules`). */
  rulesDir: string;
  policy: string;
  /** An org file (YAML or JSON) … */
  org?: string;
  /** … or a store to read the org from (an SQLite file). */
  store?: string;
  /** Tool names whose class to compare, besides those seen in the logs. */
  tools?: string[];
  /** An audit JSONL whose tool names to compare. */
  audit?: string;
  /** A decision log or audit JSONL to replay. */
  replay?: string;
  examples?: number;
}

export interface ToolClassChange {
  tool: string;
  old: ToolClass;
  new: ToolClass;
}

export interface DiffReport {
  old: string;
  new: string;
  rules: RuleChange[];
  /** Undefined when no org was given. */
  settings?: SeatGroup[];
  seats?: number;
  tools: ToolClassChange[];
  toolsCompared: number;
  replay?: ReplaySummary;
  /** True when any behaviour changes (a rule, a seat's setting, a tool's class, a past decision). */
  changed: boolean;
}

/** Most distinct tool names compared (a log could name endlessly many). */
export const MAX_TOOLS_COMPARED = 10_000;

/**
 * Compares two rule sets. Throws `rules_invalid` (every problem, located on
 * its side) when either side is invalid, `invalid_input` for a bad argument.
 *
 * @example
 * const report = await diffRuleSets({ old: 'origin/main', new: 'rules', rulesDir: 'rules', policy });
 * report.changed // exit 1 when true
 */
export async function diffRuleSets(options: DiffOptions): Promise<DiffReport> {
  const [a, b] = await Promise.all([readSide(options.old, options.rulesDir), readSide(options.new, options.rulesDir)]);
  const problems = [...a.check.problems, ...b.check.problems];
  if (problems.length > 0 || !a.check.data || !b.check.data) {
    throw new PlangateError(ErrorCode.RulesInvalid, problems.map(formatProblem).join('\n'), problems);
  }
  const policy = await readPolicy(options.policy);
  const oldEngine = await loadCheckedEngine(a.check.data, policy, a.check.revision);
  const newEngine = await loadCheckedEngine(b.check.data, policy, b.check.revision);
  const rules = diffRules(a.check.data, a.sources, b.check.data, b.sources);

  const store = await openOrg(options);
  try {
    const report: DiffReport = { old: a.label, new: b.label, rules, tools: [], toolsCompared: 0, changed: false };
    if (store) {
      report.settings = await diffSettings(store, oldEngine, newEngine, [a.check.data, b.check.data]);
      report.seats = (await store.listAgents()).length;
    }
    const tools = new Set(options.tools ?? []);
    const note = (tool: string): void => {
      if (tools.size < MAX_TOOLS_COMPARED) tools.add(tool);
    };
    if (options.audit && options.audit !== options.replay && (await exists(options.audit))) await toolNamesIn(options.audit, tools);
    if (options.replay) {
      await access(options.replay).catch(() => {
        throw new PlangateError(ErrorCode.InvalidInput, `cannot read the log to replay: ${options.replay}`);
      });
      report.replay = await replayLog({
        file: options.replay,
        old: oldEngine,
        new: newEngine,
        onTool: note,
        ...(store ? { lineage: lineageFrom(store) } : {}),
        pathArg: (tool) => a.check.data?.readGuard?.tools[tool]?.path,
        ...(options.examples !== undefined ? { examples: options.examples } : {}),
      });
    }
    report.tools = await diffToolClasses([...tools].slice(0, MAX_TOOLS_COMPARED).sort(), oldEngine, newEngine);
    report.toolsCompared = Math.min(tools.size, MAX_TOOLS_COMPARED);
    const r = report.replay;
    report.changed = rules.length > 0 || (report.settings?.length ?? 0) > 0 || report.tools.length > 0
      || (r !== undefined && r.toRefused.total + r.toAllowed.total + r.refusedDifferently.total > 0);
    return report;
  } finally {
    await store?.close();
  }
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(() => true, () => false);
}

async function openOrg(options: DiffOptions): Promise<Store | undefined> {
  if (options.org) return loadOrgFile(options.org);
  if (!options.store) return undefined;
  if (options.store === ':memory:') return createMemoryStore();
  await access(options.store).catch(() => {
    throw new PlangateError(ErrorCode.InvalidInput, `no store at ${options.store} (give --org FILE, or --store with an existing store)`);
  });
  return openStore(options.store);
}

function lineageFrom(store: Store) {
  return async (agent: string, crew: string | null) => {
    const seat = await store.lineage(agent);
    return seat.known ? seat : { id: agent, known: crew !== null, crews: crew ? [crew] : [] };
  };
}

/**
 * Tools whose class differs between the two sides, asked of each side's
 * gate for a seat nobody names.
 *
 * @example
 * await diffToolClasses(['db.migrate'], oldEngine, newEngine) // [{ tool: 'db.migrate', old: 'read', new: 'effect' }]
 */
export async function diffToolClasses(tools: readonly string[], oldEngine: Engine, newEngine: Engine): Promise<ToolClassChange[]> {
  const store = createMemoryStore();
  const gates = [createGate({ engine: oldEngine, store }), createGate({ engine: newEngine, store })];
  const out: ToolClassChange[] = [];
  for (const tool of tools) {
    const call = { agent: 'plangate.diff', tool, at: 0 };
    let classes: ToolClass[];
    try {
      classes = await Promise.all(gates.map(async (g) => (await g.decide(call)).class));
    } catch {
      continue; // not a tool name a call may carry
    }
    const [o, n] = classes as [ToolClass, ToolClass];
    if (o !== n) out.push({ tool, old: o, new: n });
  }
  await store.close();
  return out;
}
