/** `plangate check [DIR]`: validate rule files; every problem as file:line:col. */
import type { Command } from 'commander';
import { loadRules } from '../../../rules/load.js';
import { EXIT } from '../exit.js';
import { json } from '../io.js';
import type { CommandContext, GlobalOptions } from '../main.js';
import { resolvePaths } from '../../../main/config.js';
import { PlangateError, formatProblem } from '../../../core/errors.js';

export function registerCheck(program: Command, { io, wrap }: CommandContext): void {
  program
    .command('check')
    .description('validate the rule files; exit 0 when valid, 1 listing every problem as file:line:col: message')
    .argument('[dir]', 'rules directory (default: --rules, $PLANGATE_RULES, or ./rules)')
    .option('--json', 'print the result as JSON')
    .action(wrap(async (dir: string | undefined, opts: { json?: boolean }, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const rulesDir = dir ?? resolvePaths({ ...(globals.rules ? { rules: globals.rules } : {}) }, io.env).rules;
      try {
        const rules = await loadRules(rulesDir);
        if (opts.json) io.out(json({ ok: true, files: rules.files, revision: rules.revision }));
        else io.out(`ok: ${rules.files.length} rule file(s) in ${rulesDir}, revision ${rules.revision.slice(0, 12)}`);
        return EXIT.ok;
      } catch (error) {
        if (!(error instanceof PlangateError)) throw error;
        if (opts.json) {
          io.out(json({ ok: false, code: error.code, problems: error.details.length ? error.details : [{ message: error.message }] }));
        } else {
          const lines = error.details.length ? error.details.map(formatProblem) : [error.message];
          for (const line of lines) io.err(line);
          io.err(`${lines.length} problem(s) in ${rulesDir}`);
        }
        return EXIT.error;
      }
    }));
}
