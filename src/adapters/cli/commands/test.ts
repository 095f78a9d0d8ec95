/**
 * `plangate test [DIR…]`: run the `*.test.yaml` suites kept next to the
 * rules against the compiled policy. Exit 0 when every case passes, 1 when
 * a case fails, 2 when the rules, the policy or a suite are invalid (or a
 * case cannot be decided).
 */
import { writeFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { resolvePaths } from '../../../main/config.js';
import { runSuites, type TestReport } from '../../../main/suite/run.js';
import { TEST_EXIT } from '../exit.js';
import { json } from '../io.js';
import type { CommandContext, GlobalOptions } from '../main.js';
import { renderJunit, renderPeople } from '../test-report.js';

/**
 * The exit status for a report.
 *
 * @example
 * testExit(report) // 0 when every selected case passed
 */
export function testExit(report: TestReport): number {
  const selected = report.passed + report.failed + report.errors;
  if (report.errors > 0 || report.dirs.some((d) => d.problems.length > 0) || selected === 0) return TEST_EXIT.invalid;
  return report.failed > 0 ? TEST_EXIT.failed : TEST_EXIT.passed;
}

export function registerTest(program: Command, { io, wrap }: CommandContext): void {
  program
    .command('test')
    .description('run the *.test.yaml suites next to the rules against the compiled policy; exit 0 all pass, 1 a case fails, 2 invalid rules or suites')
    .argument('[dirs...]', 'rules directories holding suites (default: --rules, $PLANGATE_RULES, or ./rules)')
    .addOption(new Option('--format <format>', 'report format').choices(['people', 'junit', 'json']).default('people'))
    .option('--filter <text>', 'only the cases whose "<suite file> <case name>" contains this text (case-insensitive)')
    .option('-o, --output <file>', 'write the report to a file (a short summary still goes to stdout)')
    .action(wrap(async (dirs: string[], opts: { format: 'people' | 'junit' | 'json'; filter?: string; output?: string }, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const paths = resolvePaths({ ...(g.rules ? { rules: g.rules } : {}), ...(g.policy ? { policy: g.policy } : {}) }, io.env);
      const report = await runSuites({
        dirs: dirs.length > 0 ? dirs : [paths.rules],
        policy: paths.policy,
        env: io.env,
        ...(opts.filter !== undefined ? { filter: opts.filter } : {}),
      });
      const status = testExit(report);
      const selected = report.passed + report.failed + report.errors;
      const text = opts.format === 'junit' ? renderJunit(report) : opts.format === 'json' ? json({ ...report, exit: status }) : renderPeople(report);
      if (opts.output) {
        await writeFile(opts.output, text.endsWith('\n') ? text : `${text}\n`);
        io.out(renderPeople(report));
      } else io.out(text);
      if (selected === 0 && report.dirs.every((d) => d.problems.length === 0)) io.err('plangate test: no case was selected');
      return status;
    }));
}
