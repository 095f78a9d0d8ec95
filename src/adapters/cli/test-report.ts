/**
 * `plangate test` reports: for people (one line per failing case, then its
 * explanation), as JUnit XML for CI systems, and as JSON.
 */
import { formatProblem } from '../../core/errors.js';
import type { CaseResult, TestReport } from '../../main/suite/run.js';
import type { Expectation } from '../../main/suite/load.js';
import type { Unexercised } from '../../main/suite/coverage.js';
import { renderExplanation } from './explain.js';

/**
 * `refused check plan_required code plan_required:x:none`, the fields of an
 * expectation or of what the decision had for them.
 *
 * @example
 * outcomeText({ allowed: false, code: 'plan_required:x:none' }) // 'refused, code plan_required:x:none'
 */
export function outcomeText(fields: Partial<Record<keyof Expectation, unknown>>): string {
  const parts = [fields.allowed === true ? 'allowed' : fields.allowed === false ? 'refused' : `allowed ${String(fields.allowed)}`];
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'allowed') continue;
    parts.push(`${key} ${value === undefined ? '(none)' : String(value)}`);
  }
  return parts.join(', ');
}

/** The one line of a failing or erroring case. */
export function caseLine(c: CaseResult): string {
  if (c.status === 'error') return `${c.where}: ERROR "${c.name}": ${c.error ?? 'not decided'}`;
  return `${c.where}: FAIL "${c.name}": expected ${outcomeText(c.expected)}; got ${outcomeText(c.got ?? {})}`;
}

function unexercisedText(u: Unexercised): string {
  const what = u.kind === 'workspace' ? 'the workspace rule'
    : u.kind === 'pattern' ? `tool pattern "${u.name}"`
    : u.kind === 'profile' ? `profile "${u.name}"`
    : `${u.kind} rule "${u.name}"`;
  return `${what} (${u.source})`;
}

function indent(text: string, by = '    '): string {
  return text.split('\n').map((l) => (l ? by + l : l)).join('\n');
}

/**
 * The report for people.
 *
 * @example
 * io.out(renderPeople(report));
 */
export function renderPeople(report: TestReport): string {
  const lines: string[] = [];
  let suites = 0;
  for (const dir of report.dirs) {
    for (const p of dir.problems) lines.push(formatProblem(p));
    for (const s of dir.suites) {
      suites += 1;
      for (const note of s.notes) lines.push(`${s.path}: note: ${note}`);
      for (const c of s.cases) {
        if (c.status === 'passed') continue;
        lines.push(caseLine(c));
        if (c.explained) lines.push(indent(renderExplanation(c.explained.decision, c.explained.input)));
      }
    }
    if (dir.unexercised.length > 0) {
      lines.push(`${dir.dir}: not exercised by any case: ${dir.unexercised.map(unexercisedText).join('; ')}`);
    }
  }
  const invalid = report.dirs.filter((d) => d.problems.length > 0).length;
  const filtered = report.filtered > 0 ? `, ${report.filtered} left out by --filter` : '';
  const bad = invalid > 0 ? `; ${invalid} director${invalid === 1 ? 'y' : 'ies'} with invalid rules or suites` : '';
  lines.push(`plangate test: ${report.passed} passed, ${report.failed} failed, ${report.errors} errors in ${suites} suite(s)${filtered}${bad}`);
  return lines.join('\n');
}

const INVALID_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

function xml(text: string): string {
  return text.replace(INVALID_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/**
 * The report as JUnit XML: one `<testsuite>` per suite file, one `<testcase>`
 * per case (`<failure>` with the explanation, `<error>` for a case that could
 * not be decided), and one erroring `<testsuite>` per directory whose rules or
 * suites are invalid.
 *
 * @example
 * writeFileSync('junit.xml', renderJunit(report));
 */
export function renderJunit(report: TestReport): string {
  const out: string[] = [];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  let time = 0;
  for (const dir of report.dirs) {
    if (dir.problems.length > 0) {
      tests += 1;
      errors += 1;
      const text = dir.problems.map(formatProblem).join('\n');
      out.push(`  <testsuite name="${xml(dir.dir)}" tests="1" failures="0" errors="1" skipped="0" time="0.000">`);
      out.push(`    <testcase name="rules and suites are valid" classname="${xml(dir.dir)}" time="0.000">`);
      out.push(`      <error message="${xml(`${dir.problems.length} problem(s)`)}" type="invalid">${xml(text)}</error>`);
      out.push('    </testcase>');
      out.push('  </testsuite>');
    }
    dir.suites.forEach((s, i) => {
      const f = s.cases.filter((c) => c.status === 'failed').length;
      const e = s.cases.filter((c) => c.status === 'error').length;
      tests += s.cases.length;
      failures += f;
      errors += e;
      time += s.ms;
      out.push(`  <testsuite name="${xml(s.path)}" tests="${s.cases.length}" failures="${f}" errors="${e}" skipped="0" time="${seconds(s.ms)}">`);
      for (const c of s.cases) {
        const line = c.where.slice(s.path.length + 1).split(':')[0];
        const head = `    <testcase name="${xml(c.name)}" classname="${xml(s.path)}" file="${xml(s.path)}" line="${line}" time="${seconds(c.ms)}"`;
        if (c.status === 'passed') {
          out.push(`${head}/>`);
          continue;
        }
        out.push(`${head}>`);
        if (c.status === 'error') out.push(`      <error message="${xml(c.error ?? 'not decided')}" type="invalid_call">${xml(caseLine(c))}</error>`);
        else {
          const body = [caseLine(c), c.explained ? renderExplanation(c.explained.decision, c.explained.input) : ''].join('\n');
          out.push(`      <failure message="${xml(`expected ${outcomeText(c.expected)}; got ${outcomeText(c.got ?? {})}`)}" type="expectation">${xml(body)}</failure>`);
        }
        out.push('    </testcase>');
      }
      const notes = [...s.notes, ...(i === 0 && dir.unexercised.length > 0 ? [`not exercised by any case: ${dir.unexercised.map(unexercisedText).join('; ')}`] : [])];
      if (notes.length > 0) out.push(`    <system-out>${xml(notes.join('\n'))}</system-out>`);
      out.push('  </testsuite>');
    });
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="plangate test" tests="${tests}" failures="${failures}" errors="${errors}" time="${seconds(time)}">`,
    ...out,
    '</testsuites>',
    '',
  ].join('\n');
}
