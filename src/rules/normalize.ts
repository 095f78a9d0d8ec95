/**
 * Parsed rule files → one normalized `RulesData`, with the checks that span
 * files: a scope, the default tool class or a tool entry defined twice.
 */
import { toolMatchIndex } from '../core/patterns.js';
import type { Problem } from '../core/errors.js';
import { isValidId } from '../core/threads.js';
import { QUOTA_KINDS, TOOL_CLASSES, type Mode, type RulesData, type SourcedPlanRule, type ToolClass } from '../core/types.js';
import { describePath, isRecord, toPointer, type ParsedRuleFile, type PathSegment } from './parse.js';
import { normalizePlanning } from './planning.js';
import { normalizeApprovals } from './approvals.js';

/**
 * Merges the files, in the order given (sorted by name), into one data
 * document. Every rule carries `source`, the `file:line:col` of its key.
 *
 * The files may be schema-invalid: conflicts are still found, so one run
 * reports every problem. The data is only meaningful when no problem at all
 * (parse, schema or conflict) was found; the caller must not use it otherwise.
 *
 * @example
 * const { data, problems } = normalizeRules([parsedA, parsedB]);
 * data.planRequired.crews['desk'] // { mode: 'side_effects', windowMin: 15, source: 'a.yaml:7:5' }
 */
export function normalizeRules(files: readonly ParsedRuleFile[]): { data: RulesData; problems: Problem[] } {
  const data = emptyRulesData();
  const problems: Problem[] = [];
  const claimed = new Map<string, { where: string; note: string }>();

  for (const f of files) {
    const where = (path: PathSegment[], part: 'key' | 'value'): string => {
      const { line, col } = f.locate(path, part);
      return `${f.file}:${line}:${col}`;
    };
    /** Records that `what` is defined at `path`; false (and a problem) if it already was. */
    const claim = (what: string, path: PathSegment[], part: 'key' | 'value', say: (first: string, note: string) => string, note = ''): boolean => {
      const here = where(path, part);
      const first = claimed.get(what);
      if (!first) {
        claimed.set(what, { where: here, note });
        return true;
      }
      problems.push({
        file: f.file,
        ...f.locate(path, part),
        path: toPointer(path),
        message: `${describePath(f.data, path)}: ${say(first.where, first.note)}`,
      });
      return false;
    };

    const doc = isRecord(f.data) ? f.data : {};
    const plan = isRecord(doc['planRequired']) ? doc['planRequired'] : {};
    if (Object.hasOwn(plan, 'workspace')) {
      const path = ['planRequired', 'workspace'];
      if (claim('workspace', path, 'key', (first) => `the workspace rule is already defined at ${first}`)) {
        data.planRequired.workspace = toRule(plan['workspace'], where(path, 'key'));
      }
    }
    for (const [scope, kind] of [['crews', 'crew'], ['agents', 'agent']] as const) {
      const rules = isRecord(plan[scope]) ? plan[scope] : {};
      for (const id of Object.keys(rules)) {
        if (!isValidId(id)) continue; // the schema reports it
        const path = ['planRequired', scope, id];
        if (claim(`${kind}:${id}`, path, 'key', (first) => `${kind} "${id}" already has a rule at ${first}`)) {
          data.planRequired[scope][id] = toRule(rules[id], where(path, 'key'));
        }
      }
    }

    const runs = isRecord(doc['runs']) ? doc['runs'] : {};
    if (Object.hasOwn(runs, 'maxMinutes')) {
      const path = ['runs', 'maxMinutes'];
      if (claim('runs.maxMinutes', path, 'key', (first) => `the maximum run length is already set at ${first}`)) {
        data.runs = { maxMinutes: runs['maxMinutes'] as number, source: where(path, 'key') };
      }
    }

    const tools = isRecord(doc['tools']) ? doc['tools'] : {};
    if (Object.hasOwn(tools, 'default')) {
      const path = ['tools', 'default'];
      if (claim('tools.default', path, 'key', (first) => `the default tool class is already set at ${first}`)) {
        data.tools.default = tools['default'] as ToolClass;
      }
    }
    for (const cls of TOOL_CLASSES) {
      const list = tools[cls];
      if (!Array.isArray(list)) continue;
      list.forEach((entry: unknown, i) => {
        if (typeof entry !== 'string') return; // the schema reports it
        const path = ['tools', cls, i];
        const say = (first: string, note: string): string => `${JSON.stringify(entry)} is already listed at ${first} (under ${note})`;
        if (!claim(`tool:${entry}`, path, 'value', say, cls)) return;
        if (/[*?]/.test(entry)) data.tools.patterns.push({ pattern: entry, class: cls, source: where(path, 'value') });
        else data.tools.exact[entry] = cls;
      });
    }
    normalizeMcp(doc, data, claim);
    normalizeQuotas(doc, data, claim, where);
  }
  // Patterns as data the policy matches without compiling them.
  if (data.tools.patterns.length > 0) data.tools.match = toolMatchIndex(data.tools.patterns);
  const planning = normalizePlanning(files);
  problems.push(...planning.problems);
  if (planning.planningGate) data.planningGate = planning.planningGate;
  if (planning.readGuard) data.readGuard = planning.readGuard;
  const approvals = normalizeApprovals(files);
  problems.push(...approvals.problems);
  if (approvals.approvals) data.approvals = approvals.approvals;
  // The workspace rule first, for readable JSON.
  const { workspace, crews, agents } = data.planRequired;
  data.planRequired = workspace ? { workspace, crews, agents } : { crews, agents };
  return { data, problems };
}

/**
 * The rules when there are none: no plan-required rule anywhere (off
 * everywhere), and every tool an `effect`. The id maps have no prototype, so
 * a lookup such as `exact['constructor']` is undefined.
 *
 * @example
 * emptyRulesData().tools.default // 'effect'
 */
export function emptyRulesData(): RulesData {
  return {
    planRequired: { crews: Object.create(null), agents: Object.create(null) },
    tools: { default: 'effect', exact: Object.create(null), patterns: [] },
  };
}

type Claim = (what: string, path: PathSegment[], part: 'key' | 'value', say: (first: string, note: string) => string, note?: string) => boolean;

/**
 * `mcp:` of one file into the data: the trusted upstreams (one file sets
 * them) and each upstream's pins (one file per upstream, as plangate pin
 * writes them).
 */
function normalizeMcp(doc: Record<string, unknown>, data: RulesData, claim: Claim): void {
  const mcp = isRecord(doc['mcp']) ? doc['mcp'] : {};
  const into = (): NonNullable<RulesData['mcp']> => (data.mcp ??= { trustAnnotations: [], pins: Object.create(null) as Record<string, Record<string, string>> });
  if (Array.isArray(mcp['trustAnnotations'])) {
    if (claim('mcp.trustAnnotations', ['mcp', 'trustAnnotations'], 'key', (first) => `the trusted upstreams are already set at ${first}`)) {
      into().trustAnnotations = mcp['trustAnnotations'].filter((n): n is string => typeof n === 'string');
    }
  }
  const pins = isRecord(mcp['pins']) ? mcp['pins'] : {};
  for (const upstream of Object.keys(pins)) {
    const tools = pins[upstream];
    if (!isRecord(tools)) continue; // the schema reports it
    if (!claim(`mcp.pins:${upstream}`, ['mcp', 'pins', upstream], 'key', (first) => `the upstream "${upstream}" is already pinned at ${first} (pin each upstream in one file)`)) continue;
    const digests: Record<string, string> = Object.create(null);
    for (const [tool, digest] of Object.entries(tools)) if (typeof digest === 'string') digests[tool] = digest;
    into().pins[upstream] = digests;
  }
}

/** `quotas:` of one file into the data: each kind's quota, set in one file, with its source. */
function normalizeQuotas(doc: Record<string, unknown>, data: RulesData, claim: Claim, where: (path: PathSegment[], part: 'key' | 'value') => string): void {
  const quotas = isRecord(doc['quotas']) ? doc['quotas'] : {};
  for (const kind of QUOTA_KINDS) {
    const q = quotas[kind];
    if (!isRecord(q)) continue; // absent, or the schema reports it
    const path = ['quotas', kind];
    if (!claim(`quotas.${kind}`, path, 'key', (first) => `the ${kind} quota is already set at ${first}`)) continue;
    const rule: NonNullable<RulesData['quotas']>[typeof kind] = { source: where(path, 'key') };
    for (const field of ['rate', 'windowMin', 'standing'] as const) if (typeof q[field] === 'number') rule[field] = q[field] as number;
    (data.quotas ??= {})[kind] = rule;
  }
}

/** A validated rule with its source; only the known settings are kept. */
function toRule(value: unknown, source: string): SourcedPlanRule {
  const r = isRecord(value) ? value : {};
  return {
    mode: r['mode'] as Mode,
    ...(r['windowMin'] !== undefined ? { windowMin: r['windowMin'] as number } : {}),
    ...(r['acceptUpstream'] !== undefined ? { acceptUpstream: r['acceptUpstream'] as boolean } : {}),
    ...(r['enforce'] !== undefined ? { enforce: r['enforce'] as boolean } : {}),
    source,
  };
}
