/**
 * `plangate diff OLD NEW`: what changes, for whom, if the rules go from OLD
 * to NEW (rule directories or Git revisions). Exit 0 when nothing changes,
 * 1 when something does, 2 when a side or an option is invalid.
 */
import { Option, type Command } from 'commander';
import { resolvePaths } from '../../../main/config.js';
import { diffRuleSets } from '../../../main/diff/diff.js';
import { DIFF_EXIT } from '../exit.js';
import { printError, json } from '../io.js';
import type { CommandContext, GlobalOptions } from '../main.js';
import { renderDiff } from '../diff-report.js';

interface DiffCliOptions {
  format: 'people' | 'json';
  org?: string;
  tools?: string;
  replay?: string;
  examples?: string;
}

export function registerDiff(program: Command, { io, wrap }: CommandContext): void {
  program
    .command('diff')
    .description('what changes if the rules go from OLD to NEW (rule directories or Git revisions); exit 0 nothing changes, 1 something does, 2 invalid')
    .argument('<old>', 'a rules directory, a Git revision (main, HEAD~1) of --rules, or REV:path')
    .argument('<new>', 'the same, for the new side')
    .addOption(new Option('--format <format>', 'report format').choices(['people', 'json']).default('people'))
    .option('--org <file>', 'the org (YAML or JSON: crews: {id: parent}, agents: {id: crew}) whose seats to compare; else --store')
    .option('--tools <names>', 'tool names whose class to compare, comma-separated')
    .option('--replay <file>', 'replay a decision log (serve --decision-log) or the audit JSONL: which past decisions would flip')
    .option('--examples <n>', 'examples shown per kind of flip', '5')
    .action(wrap(async (oldSpec: string, newSpec: string, opts: DiffCliOptions, cmd: Command) => {
      // 1 means "something changes" here, so an error is 2, not the other commands' 1.
      const g = cmd.optsWithGlobals<GlobalOptions>();
      try {
        const paths = resolvePaths({ ...(g.rules ? { rules: g.rules } : {}), ...(g.policy ? { policy: g.policy } : {}) }, io.env);
        const examples = Number(opts.examples);
        if (!Number.isInteger(examples) || examples < 0 || examples > 1000) throw new Error('--examples must be an integer from 0 to 1000');
        const report = await diffRuleSets({
          old: oldSpec,
          new: newSpec,
          rulesDir: paths.rules,
          policy: paths.policy,
          examples,
          ...(opts.org ? { org: opts.org } : {}),
          ...(!opts.org && (g.store ?? io.env['PLANGATE_STORE']) ? { store: g.store ?? io.env['PLANGATE_STORE'] } : {}),
          ...(opts.tools ? { tools: opts.tools.split(',').map((t) => t.trim()).filter(Boolean) } : {}),
          ...(g.audit ? { audit: g.audit } : {}),
          ...(opts.replay ? { replay: opts.replay } : {}),
        });
        io.out(opts.format === 'json' ? json(report) : renderDiff(report));
        return report.changed ? DIFF_EXIT.changed : DIFF_EXIT.unchanged;
      } catch (error) {
        printError(io, error);
        return DIFF_EXIT.invalid;
      }
    }));
}
