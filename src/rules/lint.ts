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
 * The warnings for a set of normalized rules, each at the source of the
 * tool's listing (file:line:col of its key).
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
  return out;
}

/** A rule's `source` ("file:line:col") as a problem's location. */
function where(source: string): Pick<Problem, 'file' | 'line' | 'col'> {
  const m = /^(.*):(\d+):(\d+)$/.exec(source);
  return m ? { file: m[1] as string, line: Number(m[2]), col: Number(m[3]) } : { file: source };
}
