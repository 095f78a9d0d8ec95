/**
 * The plan-required settings each rule sets, described as the policy reports
 * them (value, scope, id, source), computed once when the rules are
 * normalized. The policy looks a seat's rules up in it instead of describing
 * every setting on every evaluation; which rule a seat's setting comes from
 * stays in the policy (policies/plangate/settings.rego), which describes the
 * rules itself when a data document has no index.
 */
import type { SettingSource } from './decision.js';
import type { PlanRuleField, RulesData, SourcedPlanRule } from './rules.js';

const FIELDS: readonly PlanRuleField[] = ['mode', 'windowMin', 'acceptUpstream', 'enforce'];

/** Each setting one rule sets, by field. */
export type DescribedRule = Partial<Record<PlanRuleField, SettingSource<unknown>>>;

/** Every rule's described settings, by scope (`rules.index.settings` in the data document). */
export interface SettingsIndex {
  agents: Record<string, DescribedRule>;
  crews: Record<string, DescribedRule>;
  workspace: DescribedRule;
}

/** A field's own source (`sources`), else the rule's, else none. */
function sourceOf(rule: SourcedPlanRule, field: PlanRuleField): string | undefined {
  const own = rule.sources?.[field];
  if (typeof own === 'string') return own;
  return typeof rule.source === 'string' ? rule.source : undefined;
}

function describe(scope: 'agent' | 'crew' | 'workspace', id: string | null, rule: SourcedPlanRule | undefined): DescribedRule {
  const out: DescribedRule = {};
  if (rule === undefined || rule === null) return out;
  for (const field of FIELDS) {
    const value = rule[field];
    if (value === undefined || value === null) continue;
    const source = sourceOf(rule, field);
    out[field] = {
      scope,
      ...(scope !== 'workspace' ? { id: id as string } : {}),
      value,
      ...(source !== undefined ? { source } : {}),
    };
  }
  return out;
}

const describeAll = (scope: 'agent' | 'crew', rules: Record<string, SourcedPlanRule> | undefined): Record<string, DescribedRule> =>
  Object.fromEntries(Object.entries(rules ?? {}).map(([id, rule]) => [id, describe(scope, id, rule)]));

/**
 * The settings index of a rules document.
 *
 * @example
 * settingsIndex(data).crews.desk.mode // { scope: 'crew', id: 'desk', value: 'side_effects', source: 'rules/desk.yaml:3:3' }
 */
export function settingsIndex(data: RulesData): SettingsIndex {
  const rules = data.planRequired ?? { crews: {}, agents: {} };
  return {
    agents: describeAll('agent', rules.agents),
    crews: describeAll('crew', rules.crews),
    workspace: describe('workspace', null, rules.workspace),
  };
}
