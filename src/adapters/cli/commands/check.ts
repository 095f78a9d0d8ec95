/**
 * `plangate check [DIR]`: validate everything a decision depends on — the
 * rule files, the `PLANGATE_WORKSPACE_*` environment and the compiled policy
 * — and list every problem as file:line:col. Unlike the commands that
 * decide, check never fails open: finding the problem is its job. Rules that
 * are valid but probably not what their author meant get a warning
 * (rules/lint.ts), and check still exits 0.
 */
import type { Command } from 'commander';
import { ErrorCode, formatProblem, type Problem } from '../../../core/errors.js';
import { resolvePaths } from '../../../main/config.js';
import { readWorkspaceEnv } from '../../../main/env.js';
import { missingRules, rulesOptional } from '../../../main/rules-location.js';
import { lintRules } from '../../../rules/lint.js';
import { loadCheckedEngine, readLoadInputs } from '../../../main/runtime.js';
import { EXIT } from '../exit.js';
import { json } from '../io.js';
import type { CommandContext, GlobalOptions } from '../main.js';
import { rulesSource } from '../shared.js';

export function registerCheck(program: Command, { io, wrap }: CommandContext): void {
  program
    .command('check')
    .description('validate the rule files, the PLANGATE_WORKSPACE_* environment and the policy; exit 0 when valid, 1 listing every problem as file:line:col: message')
    .argument('[dir]', 'rules directory (default: --rules, $PLANGATE_RULES, or ./rules)')
    .option('--json', 'print the result as JSON')
    .action(wrap(async (dir: string | undefined, opts: { json?: boolean }, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const paths = resolvePaths({ ...(g.rules ? { rules: g.rules } : {}), ...(g.policy ? { policy: g.policy } : {}) }, io.env);
      const rulesDir = dir ?? paths.rules;
      const inputs = await readLoadInputs({ rulesDir, policy: paths.policy, env: io.env });
      let problems: Problem[] = inputs.problems;
      let code = inputs.code;
      // What a start would refuse, check refuses too (an empty directory otherwise checks as valid).
      const missing = problems.length === 0 && !rulesOptional(g.rulesOptional, io.env) ? await missingRules(rulesDir, dir ? 'option' : rulesSource(cmd, io)) : undefined;
      if (missing) {
        problems = [{ file: rulesDir, message: missing }];
        code = ErrorCode.RulesMissing;
      }
      if (problems.length === 0 && inputs.data && inputs.policy && inputs.revision) {
        try {
          await loadCheckedEngine(inputs.data, inputs.policy, inputs.revision);
        } catch (error) {
          problems = [{ file: paths.policy, message: error instanceof Error ? error.message : String(error) }];
          code = ErrorCode.PolicyUnavailable;
        }
      }
      if (problems.length === 0) {
        const pinned = Object.keys(readWorkspaceEnv(io.env).variables);
        const revision = (inputs.revision ?? '').slice(0, 12);
        const policy = (inputs.policy?.sha256 ?? '').slice(0, 12);
        const warnings = inputs.data ? lintRules(inputs.data) : [];
        if (opts.json) io.out(json({ ok: true, files: inputs.files, revision: inputs.revision, policySha256: inputs.policy?.sha256, pinnedByEnv: pinned, warnings }));
        else {
          io.out(`ok: ${inputs.files.length} rule file(s) in ${rulesDir}, revision ${revision}, policy sha256 ${policy}`);
          if (pinned.length > 0) io.out(`the workspace rule is pinned by the environment (${pinned.join(', ')})`);
          for (const w of warnings) io.err(`warning: ${formatProblem(w)}`);
        }
        return EXIT.ok;
      }
      if (opts.json) {
        io.out(json({ ok: false, code: code ?? ErrorCode.RulesInvalid, problems }));
      } else {
        const lines = problems.map(formatProblem);
        for (const line of lines) io.err(line);
        io.err(`${lines.length} problem(s) in ${rulesDir}, the environment or the policy`);
      }
      return EXIT.error;
    }));
}
