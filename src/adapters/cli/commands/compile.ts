/** `plangate compile`: the rules and the policy as a standard OPA bundle. */
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { writeBundle } from '../../../engine/bundle.js';
import { resolvePaths } from '../../../main/config.js';
import { applyWorkspaceEnv, effectiveRevision, readWorkspaceEnv } from '../../../main/env.js';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import { loadRules } from '../../../rules/load.js';
import { EXIT } from '../exit.js';
import type { CommandContext, GlobalOptions } from '../main.js';

export function registerCompile(program: Command, { io, wrap }: CommandContext): void {
  program
    .command('compile')
    .description('write an OPA bundle (.manifest, data.json, the Rego, policy.wasm) that opa run -b can serve')
    .argument('[dir]', 'rules directory (default: --rules, $PLANGATE_RULES, or ./rules)')
    .requiredOption('-o, --output <file>', 'the bundle to write, e.g. bundle.tar.gz')
    .option('--wasm-resolvers', 'declare policy.wasm in the manifest (only for an OPA built with its WebAssembly engine)')
    .action(wrap(async (dir: string | undefined, opts: { output: string; wasmResolvers?: boolean }, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const rulesDir = dir ?? resolvePaths(g.rules ? { rules: g.rules } : {}, io.env).rules;
      const rules = await loadRules(rulesDir);
      // The bundle decides what plangate would: with the environment's pin of the workspace rule, if any.
      const env = readWorkspaceEnv(io.env);
      if (env.problems.length > 0) throw new PlangateError(ErrorCode.InvalidInput, 'invalid PLANGATE_WORKSPACE_* environment', env.problems);
      const result = await writeBundle({
        data: applyWorkspaceEnv(rules.data, env.rule),
        revision: effectiveRevision(rules.revision, env.rule),
        out: resolve(opts.output),
        ...(opts.wasmResolvers ? { wasmResolvers: true } : {}),
      });
      io.out(`wrote ${opts.output}: ${result.files.join(', ')} (rules revision ${rules.revision.slice(0, 12)})`);
      return EXIT.ok;
    }));
}
