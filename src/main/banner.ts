/**
 * What the runtime writes for people: the fail-open boot banner and the
 * short forms of problems used in log lines, the status and fail-open
 * reasons.
 */
import { formatProblem, type Problem } from '../core/errors.js';

/** Most problems listed in a log message or a fail-open reason; the rest are counted. */
export const MAX_LISTED = 20;

/**
 * The loud boot banner: plan-required is NOT enforced, and why.
 *
 * @example
 * process.stderr.write(banner([{ file: 'plan.yaml', line: 3, col: 9, message: 'invalid YAML' }]));
 */
export function banner(problems: Problem[]): string {
  const rule = '='.repeat(76);
  const lines = [
    rule,
    '!!! PLANGATE IS FAILING OPEN: PLAN-REQUIRED IS NOT ENFORCED !!!',
    '',
    'The rules or the compiled policy could not be loaded, so every call goes',
    'through as if plan-required mode were off. Every decision says so',
    '(failOpen) and is logged; the status (health, metrics) reports degraded.',
    '',
    'Why:',
    ...listProblems(problems).split('\n'),
    '',
    'Fix it (`plangate check` lists every problem). With hot reload on,',
    'enforcement starts by itself as soon as a good version appears;',
    'otherwise at the next start.',
    rule,
  ];
  return lines.map((l) => `plangate: ${l}`.trimEnd()).join('\n');
}

export function listProblems(problems: Problem[]): string {
  const lines = problems.slice(0, MAX_LISTED).map((p) => `  ${formatProblem(p)}`);
  if (problems.length > MAX_LISTED) lines.push(`  … and ${problems.length - MAX_LISTED} more`);
  return lines.join('\n');
}

export function summary(problems: Problem[]): string {
  const first = problems[0] ? formatProblem(problems[0]) : 'unknown problem';
  return problems.length > 1 ? `${first} (and ${problems.length - 1} more)` : first;
}

/** The fail-open reason carried by every decision: what could not be loaded, with the first problems. */
export function reasonOf(problems: Problem[]): string {
  const shown = problems.slice(0, 3).map(formatProblem).join('; ');
  const more = problems.length > 3 ? `; and ${problems.length - 3} more` : '';
  return `plan-required is not enforced: ${shown}${more}`;
}

export function short(hash: string): string {
  return hash.slice(0, 12);
}

