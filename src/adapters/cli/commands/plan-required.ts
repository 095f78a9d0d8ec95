/**
 * `plangate plan-required list | set | clear`: the rules in force (with
 * where each value comes from: a file, or the environment), and editing them
 * in the rule files. An edit of the workspace rule is refused while the
 * environment pins it.
 */
import { Option, type Command } from 'commander';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import { MODES, type Mode, type PlanRule, type PlanRuleField, type SourcedPlanRule, type SettingSource } from '../../../core/types.js';
import { resolvePaths } from '../../../main/config.js';
import { applyWorkspaceEnv, readWorkspaceEnv, refuseIfWorkspacePinned } from '../../../main/env.js';
import { clearPlanRule, setPlanRule, type RuleScope } from '../../../rules/edit.js';
import { loadRules } from '../../../rules/load.js';
import { EXIT } from '../exit.js';
import { json, type Io } from '../io.js';
import type { CommandContext, GlobalOptions } from '../main.js';
import { withPlangate } from '../shared.js';

interface ScopeOptions {
  workspace?: boolean;
  crew?: string;
  agent?: string;
}

function scopeOf(opts: ScopeOptions): RuleScope {
  const given = [opts.workspace ? 1 : 0, opts.crew !== undefined ? 1 : 0, opts.agent !== undefined ? 1 : 0].reduce((a, b) => a + b, 0);
  if (given !== 1) throw new PlangateError(ErrorCode.InvalidInput, 'give exactly one of --workspace, --crew ID, --agent ID');
  if (opts.workspace) return { kind: 'workspace' };
  if (opts.crew !== undefined) return { kind: 'crew', id: opts.crew };
  return { kind: 'agent', id: opts.agent as string };
}

function scopeOptions(cmd: Command): Command {
  return cmd
    .option('--workspace', 'the workspace rule')
    .option('--crew <id>', "a crew's rule")
    .option('--agent <id>', "an agent's rule");
}

function rulesDir(cmd: Command, io: Io): string {
  const g = cmd.optsWithGlobals<GlobalOptions>();
  return resolvePaths(g.rules ? { rules: g.rules } : {}, io.env).rules;
}

function describeRule(r: SourcedPlanRule): string {
  const parts: Array<[PlanRuleField, string]> = [['mode', `mode ${r.mode}`]];
  if (r.windowMin !== undefined) parts.push(['windowMin', `window ${r.windowMin} min`]);
  if (r.acceptUpstream !== undefined) parts.push(['acceptUpstream', `acceptUpstream ${r.acceptUpstream}`]);
  if (r.enforce !== undefined) parts.push(['enforce', `enforce ${r.enforce}${r.enforce ? '' : ' (shadow)'}`]);
  // Fields with their own source (a rule pinned by the environment) say each where it comes from.
  if (r.sources) return parts.map(([field, text]) => `${text} (${r.sources?.[field] ?? r.source})`).join(', ');
  return `${parts.map(([, text]) => text).join(', ')}  (${r.source})`;
}

function describeSetting(name: string, s: SettingSource<unknown>): string {
  const where = s.scope === 'default' ? 'default'
    : s.scope === 'workspace' ? `workspace rule, ${s.source}`
    : `${s.scope} rule for ${s.id}, ${s.source}`;
  return `${name.padEnd(16)} ${String(s.value).padEnd(14)} from ${where}`;
}

function parseWindow(value: string): number {
  if (!/^\d+$/.test(value)) throw new PlangateError(ErrorCode.InvalidInput, `--window-min must be a whole number of minutes (got "${value}")`);
  return Number(value);
}

export function registerPlanRequired(program: Command, { io, wrap }: CommandContext): void {
  const pr = program.command('plan-required').description('plan-required rules: what is in force, and editing them');

  pr.command('list')
    .description('the rules in force; with --as, the effective settings of one seat and where each comes from')
    .option('--as <agent>', 'show what this agent runs under')
    .option('--json', 'print as JSON')
    .action(wrap(async (opts: { as?: string; json?: boolean }, cmd: Command) => {
      if (opts.as !== undefined) {
        const agent = opts.as;
        return withPlangate(cmd, io, async (pg) => {
          const settings = await pg.gate.settingsFor(agent);
          const lineage = await pg.store.lineage(agent);
          const status = pg.status();
          if (opts.json) {
            io.out(json({ agent, known: lineage.known, crews: lineage.crews, settings, ...(status.failOpen ? { failOpen: status.failOpen } : {}) }));
          } else {
            if (status.failOpen) io.out(`FAIL-OPEN: plan-required is NOT enforced (${status.failOpen.reason}); these are the defaults, not the rules`);
            io.out(`${agent}: ${lineage.known ? `crews ${lineage.crews.join(' → ')}` : 'not in the org (agent and workspace rules only)'}`);
            io.out(describeSetting('mode', settings.mode));
            io.out(describeSetting('windowMin', settings.windowMin));
            io.out(describeSetting('acceptUpstream', settings.acceptUpstream));
            io.out(describeSetting('enforce', settings.enforce));
          }
          return EXIT.ok;
        });
      }
      const rules = await loadRules(rulesDir(cmd, io));
      const env = readWorkspaceEnv(io.env);
      if (env.problems.length > 0) throw new PlangateError(ErrorCode.InvalidInput, 'invalid PLANGATE_WORKSPACE_* environment', env.problems);
      const pr = applyWorkspaceEnv(rules.data, env.rule).planRequired;
      // The environment wins over a workspace rule in the files; say which one it overrides.
      const overridden = env.rule ? rules.data.planRequired.workspace : undefined;
      if (opts.json) {
        io.out(json(overridden ? { ...pr, overridden: { workspace: overridden } } : pr));
        return EXIT.ok;
      }
      io.out(`workspace  ${pr.workspace ? describeRule(pr.workspace) : 'no rule (off)'}`);
      if (overridden) io.out(`           overrides the workspace rule in the files: ${describeRule(overridden)}`);
      for (const [id, r] of Object.entries(pr.crews)) io.out(`crew ${id}  ${describeRule(r)}`);
      for (const [id, r] of Object.entries(pr.agents)) io.out(`agent ${id}  ${describeRule(r)}`);
      return EXIT.ok;
    }));

  scopeOptions(pr.command('set'))
    .description('set the rule of one scope in the rule files (replacing that rule), keeping comments and layout')
    .addOption(new Option('--mode <mode>', 'the mode').choices(MODES).makeOptionMandatory())
    .option('--window-min <n>', 'freshness window in minutes (1..10080)', parseWindow)
    .option('--accept-upstream', 'a plan by a manager up the delegation chain also counts')
    .option('--shadow', 'shadow mode (enforce: false): would-be refusals are audited and counted, the calls go through')
    .action(wrap(async (opts: ScopeOptions & { mode: Mode; windowMin?: number; acceptUpstream?: boolean; shadow?: boolean }, cmd: Command) => {
      const scope = scopeOf(opts);
      refuseIfWorkspacePinned(scope, io.env);
      const rule: PlanRule = {
        mode: opts.mode,
        ...(opts.windowMin !== undefined ? { windowMin: opts.windowMin } : {}),
        ...(opts.acceptUpstream ? { acceptUpstream: true } : {}),
        ...(opts.shadow ? { enforce: false } : {}),
      };
      const result = await setPlanRule(rulesDir(cmd, io), scope, rule);
      io.out(`${result.changed ? 'set' : 'unchanged'}: ${label(scope)} in ${result.file}`);
      return EXIT.ok;
    }));

  scopeOptions(pr.command('clear'))
    .description('remove the rule of one scope, so it inherits again')
    .action(wrap(async (opts: ScopeOptions, cmd: Command) => {
      const scope = scopeOf(opts);
      refuseIfWorkspacePinned(scope, io.env);
      const result = await clearPlanRule(rulesDir(cmd, io), scope);
      io.out(result.changed ? `cleared: ${label(scope)} in ${result.file}` : `no rule for ${label(scope)}; nothing to clear`);
      return EXIT.ok;
    }));
}

function label(scope: RuleScope): string {
  return scope.kind === 'workspace' ? 'the workspace rule' : `the ${scope.kind} rule for ${scope.id}`;
}
