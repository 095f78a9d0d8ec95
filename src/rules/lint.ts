/**
 * Warnings about rules that load and mean what they say, but probably not
 * what their author meant. `plangate check` prints them and still exits 0:
 * nothing here changes a decision.
 */
import type { Problem } from '../core/errors.js';
import type { RulesData } from '../core/rules.js';

/**
 * Words that say where a read starts rather than how much it reads, found in
 * an argument's name split at `_`, `-` and camelCase (`offset`, `startLine`,
 * `byte_offset`, `seek`). Under `range` such an argument makes any call that
 * gives it a partial read, even `offset: 1`, which reads the whole file from
 * its start; under `skip` it is checked as a read of the rest of the file.
 */
const START_WORDS = new Set(['offset', 'start', 'from', 'skip', 'begin', 'position', 'pos', 'seek', 'cursor']);

/** Whether an argument's name has a word that says where a read starts. */
function soundsLikeAStart(name: string): boolean {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .some((w) => START_WORDS.has(w));
}

/**
 * The warnings for a set of normalized rules, each at the source of what
 * it warns about (file:line:col of its key): a read-guard range that sounds
 * like an offset, a reviewer channel the rules classify as an effect.
 *
 * @example
 * lintRules(data); // [{ file: 'rules/read.yaml', line: 4, col: 5, message: 'readGuard.tools["fs.read"]: range lists "offset", …' }]
 */
export function lintRules(data: RulesData): Problem[] {
  const out: Problem[] = [];
  for (const [tool, spec] of Object.entries(data.readGuard?.tools ?? {})) {
    for (const arg of spec.range) {
      if (!soundsLikeAStart(arg)) continue;
      const fix = spec.skip?.includes(arg)
        ? 'remove it from range (it is also under skip, and range wins)'
        : 'list it under skip instead (checked as a read of the rest of the file)';
      out.push({
        ...where(spec.source),
        message:
          `readGuard.tools[${JSON.stringify(tool)}]: range lists ${JSON.stringify(arg)}, which sounds like where a read starts: ` +
          `a call giving only ${arg} then counts as reading a part, however much of the file it reads. ` +
          `If it says where the read starts, ${fix}; if it is a count, ignore this warning.`,
      });
    }
  }
  out.push(...channelWarnings(data));
  return out;
}

/** A simple reading of a tool pattern (`*` any run, `?` one character), for warnings only: the policy decides. */
function patternMatches(pattern: string, tool: string): boolean {
  const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  return re.test(tool);
}

/**
 * A reviewer channel the rules classify as an effect or a spend: the
 * channel is exempt from plan-required and open during a hold, so every
 * seat could call that tool without a plan, held or not.
 */
function channelWarnings(data: RulesData): Problem[] {
  const gate = data.planningGate;
  if (!gate) return [];
  const named: Array<[string, { reviewerChannel?: string; source: string }]> = [
    ...(gate.defaults ? [['planningGate.defaults', gate.defaults] as [string, typeof gate.defaults]] : []),
    ...Object.entries(gate.profiles).map(([name, p]) => [`planningGate.profiles.${name}`, p] as [string, typeof p]),
  ];
  const out: Problem[] = [];
  for (const [at, settings] of named) {
    const channel = settings.reviewerChannel;
    if (channel === undefined) continue;
    const cls = data.tools.exact[channel] ?? data.tools.patterns.find((p) => patternMatches(p.pattern, channel))?.class;
    if (cls !== 'effect' && cls !== 'spend') continue;
    out.push({
      ...where(settings.source),
      message:
        `${at}.reviewerChannel names ${JSON.stringify(channel)}, which the rules classify as ${cls}: the reviewer channel is exempt ` +
        'from plan-required and stays open during a hold, so any seat could call it without a plan. Name a tool that only sends a plan, and classify it say.',
    });
  }
  return out;
}

/** A rule's `source` ("file:line:col") as a problem's location. */
function where(source: string): Pick<Problem, 'file' | 'line' | 'col'> {
  const m = /^(.*):(\d+):(\d+)$/.exec(source);
  return m ? { file: m[1] as string, line: Number(m[2]), col: Number(m[3]) } : { file: source };
}
