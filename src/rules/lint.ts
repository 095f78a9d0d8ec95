/**
 * Warnings about rules that load and mean what they say, but probably not
 * what their author meant. `plangate check` prints them and still exits 0:
 * nothing here changes a decision.
 */
import type { Problem } from '../core/errors.js';
import type { RulesData } from '../core/rules.js';

/**
 * Names that say where a read starts rather than how much it reads. Under
 * `range` such an argument makes any call that gives it a partial read, even
 * `offset: 1`, which reads the whole file from its start; under `skip` it is
 * checked as a read of the rest of the file.
 */
const START_NAMES = /^(offset|start|start_?line|from|from_?line|skip|begin|position|pos)$/i;

/**
 * The warnings for a set of normalized rules, each at the rule's source
 * (file:line:col).
 *
 * @example
 * lintRules(data); // [{ file: 'rules/read.yaml', line: 4, col: 5, message: 'readGuard.tools["fs.read"]: range lists "offset", …' }]
 */
export function lintRules(data: RulesData): Problem[] {
  const out: Problem[] = [];
  for (const [tool, spec] of Object.entries(data.readGuard?.tools ?? {})) {
    for (const arg of spec.range) {
      if (!START_NAMES.test(arg)) continue;
      out.push({
        ...where(spec.source),
        message:
          `readGuard.tools[${JSON.stringify(tool)}]: range lists ${JSON.stringify(arg)}, which sounds like where a read starts: ` +
          `a call giving only ${arg} then counts as reading a part, however much of the file it reads. ` +
          `If ${arg} is an offset, list it under skip (checked as a read of the rest of the file); if it is a count, ignore this warning.`,
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
