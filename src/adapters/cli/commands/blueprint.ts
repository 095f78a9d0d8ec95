/**
 * `plangate blueprint apply FILE --crew ID [--apply-recommended-controls]`:
 * set up a crew from a blueprint, and print the controls it recommends.
 * The recommended crew rule is written to the rule files only with
 * --apply-recommended-controls — never implied.
 */
import type { Command } from 'commander';
import { loadBlueprint } from '../../../rules/blueprint.js';
import type { PlanRule } from '../../../core/types.js';
import { applyBlueprint } from '../../../main/blueprint.js';
import { resolvePaths } from '../../../main/config.js';
import { openStore } from '../../../main/open.js';
import { EXIT } from '../exit.js';
import { json } from '../io.js';
import type { CommandContext, GlobalOptions } from '../main.js';

interface ApplyOptions {
  crew: string;
  applyRecommendedControls?: boolean;
  json?: boolean;
}

function describe(rule: PlanRule): string {
  const parts = [`mode ${rule.mode}`];
  if (rule.windowMin !== undefined) parts.push(`window ${rule.windowMin} min`);
  if (rule.acceptUpstream !== undefined) parts.push(`acceptUpstream ${rule.acceptUpstream}`);
  if (rule.enforce !== undefined) parts.push(`enforce ${rule.enforce}${rule.enforce ? '' : ' (shadow)'}`);
  return parts.join(', ');
}

function setCommand(crew: string, rule: PlanRule): string {
  return [
    `plangate plan-required set --crew ${crew} --mode ${rule.mode}`,
    rule.windowMin !== undefined ? ` --window-min ${rule.windowMin}` : '',
    rule.acceptUpstream ? ' --accept-upstream' : '',
    rule.enforce === false ? ' --shadow' : '',
  ].join('');
}

export function registerBlueprint(program: Command, { io, wrap }: CommandContext): void {
  const bp = program.command('blueprint').description('crew blueprints: set up a crew, and see the controls it recommends');
  bp.command('apply')
    .description('create the crew (and its agents) from a blueprint and print the controls it recommends; they are applied only with --apply-recommended-controls')
    .argument('<file>', 'the blueprint (YAML)')
    .requiredOption('--crew <id>', 'the crew to set up')
    .option('--apply-recommended-controls', 'also write the recommended crew rule into the rule files')
    .option('--json', 'print the result as JSON')
    .action(wrap(async (file: string, opts: ApplyOptions, cmd: Command) => {
      const blueprint = await loadBlueprint(file);
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const paths = resolvePaths({ ...(g.rules ? { rules: g.rules } : {}), ...(g.store ? { store: g.store } : {}) }, io.env);
      const store = await openStore(paths.store);
      let result;
      try {
        result = await applyBlueprint({
          blueprint,
          crew: opts.crew,
          store,
          rulesDir: paths.rules,
          applyRecommendedControls: opts.applyRecommendedControls === true,
        });
      } finally {
        await store.close();
      }
      if (opts.json) {
        io.out(json({ blueprint: blueprint.name, ...result }));
        return EXIT.ok;
      }
      const { crew, agents, recommended, applied } = result;
      io.out(`crew ${crew.id}${crew.parent ? ` (parent ${crew.parent})` : ''} from blueprint ${blueprint.name} (${file})`);
      for (const agent of agents) io.out(`agent ${agent} in crew ${crew.id}`);
      if (!recommended) {
        io.out('the blueprint recommends no controls');
      } else if (applied) {
        io.out(`recommended plan-required for crew ${crew.id}: ${describe(recommended)}  (${recommended.source})`);
        io.out(`${applied.changed ? 'applied' : 'already in force'}: the crew rule for ${crew.id} in ${applied.file}`);
      } else {
        io.out(`recommended plan-required for crew ${crew.id}: ${describe(recommended)}  (${recommended.source})`);
        io.out('NOT applied: recommendations are applied only when asked. To apply, re-run with --apply-recommended-controls, or:');
        io.out(`  ${setCommand(crew.id, recommended)}`);
      }
      return EXIT.ok;
    }));
}
