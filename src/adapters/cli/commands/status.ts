/**
 * `plangate status`: where this command line finds everything — the rules,
 * the store, the audit log, the policy — and where each setting came from
 * (an option, its environment variable, or the default), and whether a
 * plangate started here would enforce plan-required or fail open, and why,
 * with a warning when the rules load but no rule gates anyone.
 * It reads the rules and the policy but opens no store; exit 0 when a start
 * here would enforce, 1 when it would fail open or be refused.
 */
import type { Command } from 'commander';
import { formatProblem } from '../../../core/errors.js';
import type { RulesData } from '../../../core/types.js';
import { DEFAULT_PATHS, describeLocation, PATH_ENV, resolvePaths, type Paths } from '../../../main/config.js';
import { readWorkspaceEnv } from '../../../main/env.js';
import { missingRules, RULES_OPTIONAL_ENV, rulesOptional, type LocationSource } from '../../../main/rules-location.js';
import { loadCheckedEngine, readLoadInputs } from '../../../main/runtime.js';
import { EXIT } from '../exit.js';
import { json } from '../io.js';
import type { CommandContext, GlobalOptions } from '../main.js';
import { packageVersion } from '../main.js';

type Key = keyof Paths;

/** How many plan-required rules (workspace, crews, agents) set a mode other than off. */
function gatingRules(data: RulesData): number {
  const pr = data.planRequired;
  return [pr.workspace, ...Object.values(pr.crews), ...Object.values(pr.agents)].filter((r) => r !== undefined && r.mode !== 'off').length;
}

export function registerStatus(program: Command, { io, wrap }: CommandContext): void {
  program
    .command('status')
    .description('where the rules, store, audit and policy are (and which option, variable or default says so), and whether plangate would enforce; exit 0 enforcing, 1 not')
    .option('--json', 'print the result as JSON')
    .action(wrap(async (opts: { json?: boolean }, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const given: Partial<Paths> = {};
      for (const key of ['rules', 'store', 'audit', 'policy'] as const) if (g[key]) given[key] = g[key];
      const paths = resolvePaths(given, io.env);
      const source = (key: Key): LocationSource => {
        if (g[key]) return cmd.getOptionValueSourceWithGlobals(key) === 'env' ? 'env' : 'option';
        return io.env[PATH_ENV[key]] ? 'env' : 'default';
      };
      const optional = rulesOptional(g.rulesOptional, io.env);
      const missing = await missingRules(paths.rules, source('rules'));
      const inputs = await readLoadInputs({ rulesDir: paths.rules, policy: paths.policy, env: io.env });
      let problems = missing ? [] : inputs.problems.map(formatProblem);
      if (!missing && problems.length === 0 && inputs.data && inputs.policy && inputs.revision) {
        try {
          await loadCheckedEngine(inputs.data, inputs.policy, inputs.revision);
        } catch (error) {
          problems = [`${paths.policy}: ${error instanceof Error ? error.message : String(error)}`];
        }
      }
      const state = missing ? (optional ? 'failing_open' : 'refused') : problems.length > 0 ? 'failing_open' : 'enforcing';
      const locations = Object.fromEntries((['rules', 'store', 'audit', 'policy'] as const).map((key) => [key, {
        location: describeLocation(paths[key]),
        from: source(key),
        variable: PATH_ENV[key],
        ...(key === 'policy' ? {} : { default: DEFAULT_PATHS[key] }),
      }]));
      const pinned = readWorkspaceEnv(io.env).variables;
      // Rules that load but gate no one: every call goes through, which a newcomer must not learn from an incident.
      const gating = state === 'enforcing' && inputs.data ? gatingRules(inputs.data) : undefined;
      const report = {
        version: packageVersion(),
        locations,
        rulesOptional: optional,
        state,
        ...(missing ? { reason: missing } : {}),
        ...(problems.length > 0 ? { problems } : {}),
        ...(state === 'enforcing' ? { ruleFiles: inputs.files, revision: inputs.revision, gatingRules: gating } : {}),
        pinnedByEnv: pinned,
      };
      if (opts.json) io.out(json(report));
      else {
        io.out(`plangate ${report.version}`);
        for (const [key, l] of Object.entries(locations)) {
          const from = l.from === 'option' ? `--${key}` : l.from === 'env' ? l.variable : `default; ${l.variable} or --${key} to move it`;
          io.out(`${key.padEnd(7)}${l.location}  (${from})`);
        }
        if (state === 'enforcing') io.out(`enforcing: ${inputs.files.length} rule file(s), revision ${(inputs.revision ?? '').slice(0, 12)}`);
        else if (state === 'refused') io.out(`refused at start: ${missing}`);
        else if (missing) io.out(`failing open (plan-required is NOT enforced; --rules-optional or ${RULES_OPTIONAL_ENV} allows it): ${missing.slice(0, missing.indexOf(').') + 1)}`);
        else io.out(`failing open (plan-required is NOT enforced): ${problems.join('; ')}`);
        if (gating === 0) io.out(`warning: no rule sets a plan-required mode other than off, so every call goes through without a plan; set one with plangate plan-required set --workspace --mode side_effects (or --agent SEAT), or plangate init --hook HOST --agent SEAT`);
        const names = Object.keys(pinned);
        if (names.length > 0) io.out(`the workspace rule is pinned by the environment (${names.join(', ')})`);
      }
      return state === 'enforcing' ? EXIT.ok : EXIT.error;
    }));
}
