/**
 * The rules that changed between two rule sets: every setting of every
 * scope, tool entry, profile and read-guard tool, old → new, with the
 * `file:line:col` it is defined at on each side. A setting that only moved
 * (same value, another line) is not a change.
 */
import { TOOL_CLASSES, type RulesData } from '../../core/types.js';
import { parseRuleFile } from '../../rules/parse.js';
import type { RuleSource } from '../../rules/load.js';

/** One setting that differs. `old`/`new` are undefined where the side does not set it. */
export interface RuleChange {
  /** `workspace`, `crew:<id>`, `agent:<id>`, `tools`, `tool:<name>`, `pattern:<p>`, `planningGate.defaults`, `profile:<name>`, `profile pick crew:<id>`, `readGuard:<tool>`. */
  scope: string;
  field: string;
  old?: unknown;
  new?: unknown;
  oldSource?: string;
  newSource?: string;
}

interface Setting { value: unknown; source?: string }

/**
 * Compares two rule sets.
 *
 * @example
 * diffRules(oldData, oldSources, newData, newSources)
 * // [{ scope: 'crew:desk', field: 'windowMin', old: 15, new: 5, oldSource: 'plan.yaml:7:5', newSource: 'plan.yaml:7:5' }]
 */
export function diffRules(oldData: RulesData, oldSources: readonly RuleSource[], newData: RulesData, newSources: readonly RuleSource[]): RuleChange[] {
  const a = flatten(oldData, oldSources);
  const b = flatten(newData, newSources);
  const changes: RuleChange[] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(key);
    const y = b.get(key);
    if (x && y && JSON.stringify(x.value) === JSON.stringify(y.value)) continue;
    const [scope, field] = key.split('\0') as [string, string];
    changes.push({
      scope,
      field,
      ...(x ? { old: x.value } : {}),
      ...(y ? { new: y.value } : {}),
      ...(x?.source ? { oldSource: x.source } : {}),
      ...(y?.source ? { newSource: y.source } : {}),
    });
  }
  return changes;
}

const KNOWN_SECTIONS = new Set(['planRequired', 'tools', 'planningGate', 'readGuard']);
const RULE_FIELDS = ['mode', 'windowMin', 'acceptUpstream', 'enforce'] as const;
const PLANNING_FIELDS = ['enabled', 'whitelist', 'reviewerChannel', 'readGuardMaxBytes'] as const;

function flatten(data: RulesData, sources: readonly RuleSource[]): Map<string, Setting> {
  const out = new Map<string, Setting>();
  const put = (scope: string, field: string, value: unknown, source?: string): void => {
    if (value !== undefined) out.set(`${scope}\0${field}`, { value, ...(source ? { source } : {}) });
  };
  const { workspace, crews, agents } = data.planRequired;
  const rule = (scope: string, r: typeof workspace): void => {
    if (!r) return;
    for (const f of RULE_FIELDS) put(scope, f, r[f], r.source);
  };
  rule('workspace', workspace);
  for (const [id, r] of Object.entries(crews)) rule(`crew:${id}`, r);
  for (const [id, r] of Object.entries(agents)) rule(`agent:${id}`, r);

  const places = toolPlaces(sources);
  put('tools', 'default', data.tools.default, places.get('\0default'));
  for (const [name, cls] of Object.entries(data.tools.exact)) put(`tool:${name}`, 'class', cls, places.get(name));
  for (const p of data.tools.patterns) put(`pattern:${p.pattern}`, 'class', p.class, p.source);

  const gate = data.planningGate;
  if (gate?.defaults) for (const f of PLANNING_FIELDS) put('planningGate.defaults', f, gate.defaults[f], gate.defaults.source);
  for (const [name, profile] of Object.entries(gate?.profiles ?? {})) {
    for (const f of PLANNING_FIELDS) put(`profile:${name}`, f, profile[f], profile.source);
    put(`profile:${name}`, '(defined)', true, profile.source);
  }
  for (const [id, pick] of Object.entries(gate?.crews ?? {})) put(`crew:${id}`, 'profile', pick.profile, pick.source);
  for (const [id, pick] of Object.entries(gate?.agents ?? {})) put(`agent:${id}`, 'profile', pick.profile, pick.source);
  for (const [tool, t] of Object.entries(data.readGuard?.tools ?? {})) {
    put(`readGuard:${tool}`, 'path', t.path, t.source);
    put(`readGuard:${tool}`, 'paths', t.paths, t.source);
    put(`readGuard:${tool}`, 'range', t.range, t.source);
    put(`readGuard:${tool}`, 'lines', t.lines, t.source);
    put(`readGuard:${tool}`, 'skip', t.skip, t.source);
  }
  // The roots decide which whole-file reads are refused, so they are a setting too.
  put('readGuard', 'roots', data.readGuard?.roots, places.get('\0roots'));
  // Any other section (such as \`runs\`): each setting of it, with the section's source.
  for (const [section, body] of Object.entries(data as unknown as Record<string, unknown>)) {
    if (KNOWN_SECTIONS.has(section) || typeof body !== 'object' || body === null) continue;
    const { source, ...fields } = body as Record<string, unknown> & { source?: string };
    for (const [f, v] of Object.entries(fields)) put(section, f, v, typeof source === 'string' ? source : undefined);
  }
  return out;
}

/** Where each exact tool name (and `tools.default`, as `\0default`; `readGuard.roots`, as `\0roots`) is written. */
function toolPlaces(sources: readonly RuleSource[]): Map<string, string> {
  const places = new Map<string, string>();
  for (const src of sources) {
    const text = typeof src.text === 'string' ? src.text : new TextDecoder().decode(src.text);
    const { parsed } = parseRuleFile(src.file, text);
    const data = parsed?.data as { tools?: Record<string, unknown>; readGuard?: Record<string, unknown> } | undefined;
    if (!parsed || !data) continue;
    const at = (p: Array<string | number>, part: 'key' | 'value'): string => {
      const { line, col } = parsed.locate(p, part);
      return `${src.file}:${line}:${col}`;
    };
    if (data.readGuard && typeof data.readGuard === 'object' && 'roots' in data.readGuard) places.set('\0roots', at(['readGuard', 'roots'], 'key'));
    const tools = data.tools;
    if (!tools || typeof tools !== 'object') continue;
    if ('default' in tools) places.set('\0default', at(['tools', 'default'], 'key'));
    for (const cls of TOOL_CLASSES) {
      const list = tools[cls];
      if (!Array.isArray(list)) continue;
      list.forEach((entry, i) => {
        if (typeof entry === 'string' && !/[*?]/.test(entry) && !places.has(entry)) places.set(entry, at(['tools', cls, i], 'value'));
      });
    }
  }
  return places;
}
