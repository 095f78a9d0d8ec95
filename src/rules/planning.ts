/**
 * The planning-gate and read-guard sections of the rule files → their
 * normalized form, with the checks that span files: the defaults, a profile,
 * a crew's or agent's pick or a read tool defined twice, and a pick naming a
 * profile no file defines.
 */
import type { Problem } from '../core/errors.js';
import { isValidId } from '../core/threads.js';
import type { PlanningSettings, ReadGuardTool, RulesData } from '../core/types.js';
import { describePath, isRecord, toPointer, type ParsedRuleFile, type PathSegment } from './parse.js';

type Sourced = PlanningSettings & { source: string };

/** The planning-gate settings a profile or the defaults can carry. */
const SETTINGS = ['enabled', 'whitelist', 'reviewerChannel', 'readGuardMaxBytes'] as const;

/**
 * Merges the `planningGate` and `readGuard` sections of the files (in the
 * order given). Each part is present only when some file has that section.
 * Like `normalizeRules`, it runs on schema-invalid files too, so one run
 * reports every problem; the result is only meaningful without problems.
 *
 * @example
 * const { planningGate } = normalizePlanning([parsed]);
 * planningGate?.crews['desk'] // { profile: 'careful', source: 'planning.yaml:9:5' }
 */
export function normalizePlanning(files: readonly ParsedRuleFile[]): {
  planningGate?: NonNullable<RulesData['planningGate']>;
  readGuard?: NonNullable<RulesData['readGuard']>;
  problems: Problem[];
} {
  const gate: NonNullable<RulesData['planningGate']> = {
    profiles: Object.create(null),
    crews: Object.create(null),
    agents: Object.create(null),
  };
  const guard: NonNullable<RulesData['readGuard']> = { tools: Object.create(null) };
  let sawGate = false;
  let sawGuard = false;
  const problems: Problem[] = [];
  const claimed = new Map<string, string>();
  /** Where each pick is, to report a pick of an undefined profile. */
  const picks: Array<{ file: ParsedRuleFile; path: PathSegment[]; profile: string }> = [];

  for (const f of files) {
    const where = (path: PathSegment[]): string => {
      const { line, col } = f.locate(path, 'key');
      return `${f.file}:${line}:${col}`;
    };
    /** Records `what` as defined at `path`; false (and a problem) if it already was. */
    const claim = (what: string, path: PathSegment[], say: (first: string) => string): boolean => {
      const first = claimed.get(what);
      if (first === undefined) {
        claimed.set(what, where(path));
        return true;
      }
      problems.push({ file: f.file, ...f.locate(path, 'key'), path: toPointer(path), message: `${describePath(f.data, path)}: ${say(first)}` });
      return false;
    };

    const doc = isRecord(f.data) ? f.data : {};
    if (isRecord(doc['planningGate'])) {
      sawGate = true;
      const section = doc['planningGate'];
      if (Object.hasOwn(section, 'defaults')) {
        const path = ['planningGate', 'defaults'];
        if (claim('defaults', path, (first) => `the planning-gate defaults are already defined at ${first}`)) {
          gate.defaults = toSettings(section['defaults'], where(path));
        }
      }
      const profiles = isRecord(section['profiles']) ? section['profiles'] : {};
      for (const name of Object.keys(profiles)) {
        if (!isValidId(name)) continue; // the schema reports it
        const path = ['planningGate', 'profiles', name];
        if (claim(`profile:${name}`, path, (first) => `profile "${name}" is already defined at ${first}`)) {
          gate.profiles[name] = toSettings(profiles[name], where(path));
        }
      }
      for (const [scope, kind] of [['crews', 'crew'], ['agents', 'agent']] as const) {
        const map = isRecord(section[scope]) ? section[scope] : {};
        for (const id of Object.keys(map)) {
          const profile = map[id];
          if (!isValidId(id) || typeof profile !== 'string') continue; // the schema reports it
          const path = ['planningGate', scope, id];
          if (claim(`${kind}:${id}`, path, (first) => `${kind} "${id}" already picks a profile at ${first}`)) {
            gate[scope][id] = { profile, source: where(path) };
            picks.push({ file: f, path, profile });
          }
        }
      }
    }

    const readGuard = isRecord(doc['readGuard']) ? doc['readGuard'] : undefined;
    if (readGuard) {
      sawGuard = true;
      const roots = readGuard['roots'];
      if (Array.isArray(roots) && roots.every((r) => typeof r === 'string')) {
        if (claim('read:roots', ['readGuard', 'roots'], (first) => `the read roots are already defined at ${first}`)) guard.roots = roots as string[];
      }
      const tools = isRecord(readGuard['tools']) ? readGuard['tools'] : {};
      for (const tool of Object.keys(tools)) {
        const path = ['readGuard', 'tools', tool];
        if (claim(`read:${tool}`, path, (first) => `read tool ${JSON.stringify(tool)} is already listed at ${first}`)) {
          const spec = tools[tool];
          if (!isRecord(spec)) continue; // the schema reports it
          const named = ['path', 'paths'].filter((k) => Object.hasOwn(spec, k));
          if (named.length !== 1) {
            problems.push({
              file: f.file, ...f.locate(path, 'value'), path: toPointer(path),
              message: `${describePath(f.data, path)}: ${named.length === 0 ? 'missing required key "path" (or "paths" for a tool that reads several files)' : 'give "path" or "paths", not both'}`,
            });
          } else if (typeof spec['path'] === 'string' || typeof spec['paths'] === 'string') {
            guard.tools[tool] = toReadTool(spec, where(path));
          }
        }
      }
    }
  }

  for (const { file, path, profile } of picks) {
    if (isValidId(profile) && gate.profiles[profile] === undefined) {
      problems.push({
        file: file.file,
        ...file.locate(path, 'value'),
        path: toPointer(path),
        message: `${describePath(file.data, path)}: no profile "${profile}" is defined under planningGate.profiles`,
      });
    }
  }

  // The defaults first, for readable JSON.
  const { defaults, profiles, crews, agents } = gate;
  const ordered = defaults ? { defaults, profiles, crews, agents } : { profiles, crews, agents };
  return {
    ...(sawGate ? { planningGate: ordered } : {}),
    ...(sawGuard ? { readGuard: guard } : {}),
    problems,
  };
}

/** Validated settings with their source; only the known settings are kept. */
function toSettings(value: unknown, source: string): Sourced {
  const r = isRecord(value) ? value : {};
  const out: Record<string, unknown> = {};
  for (const key of SETTINGS) if (r[key] !== undefined) out[key] = r[key];
  return { ...(out as PlanningSettings), source };
}

function toReadTool(spec: Record<string, unknown>, source: string): ReadGuardTool {
  const names = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const range = names(spec['range']);
  const skip = names(spec['skip']);
  const named = typeof spec['paths'] === 'string' ? { paths: spec['paths'] } : { path: spec['path'] as string };
  const given = isRecord(spec['lines']) ? spec['lines'] : {};
  const lines: { head?: string; tail?: string } = {};
  for (const end of ['head', 'tail'] as const) if (typeof given[end] === 'string') lines[end] = given[end];
  return { ...named, range, ...(skip.length > 0 ? { skip } : {}), ...(Object.keys(lines).length > 0 ? { lines } : {}), source };
}
