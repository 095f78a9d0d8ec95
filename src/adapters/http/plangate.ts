/**
 * The HTTP app's options from an opened plangate (`openPlangate`): the gate,
 * the org, the rules in force and their edits, the policy for the data API,
 * and the runtime status.
 */
import { readerOf } from '../../audit/query.js';
import type { Plangate } from '../../main/open.js';
import { refuseIfPinnedBy } from '../../main/env.js';
import type { PlanRule } from '../../core/types.js';
import { clearPlanRule, setPlanRule, type EditResult, type RuleScope } from '../../rules/edit.js';
import type { HttpAppOptions } from './app.js';
import type { RuleEdit, RulesInForce } from './deps.js';

/**
 * The options `createHttpApp` needs from a plangate (add `tokens`, and
 * `executors` for `POST /mcp/call`). A rules edit is written to the rule
 * files like `plangate plan-required set|clear`, then reloaded at once, so
 * the answer gives the revision in force.
 *
 * @example
 * const pg = await openPlangate({ rules: 'examples/rules', watch: true });
 * const app = createHttpApp({ ...httpOptionsFrom(pg), tokens: await loadTokens({ file: 'tokens.json' }) });
 */
export function httpOptionsFrom(pg: Plangate): Pick<HttpAppOptions, 'gate' | 'org' | 'rules' | 'policy' | 'status' | 'audit'> {
  const inForce = (): RulesInForce | undefined => {
    const r = pg.rules;
    return r ? { dir: r.dir, revision: r.revision, files: r.files, data: r.data, loadedAt: r.loadedAt } : undefined;
  };
  const afterEdit = async (result: EditResult): Promise<RuleEdit> => {
    const reloaded = result.changed ? (await pg.reload()).outcome === 'loaded' : false;
    return { ...result, revision: inForce()?.revision ?? null, reloaded };
  };
  /** Like the CLI: the workspace rule cannot be edited while the environment pins it (the edit would have no effect). */
  const refuseIfPinned = (scope: RuleScope): void => refuseIfPinnedBy(scope, pg.status().env?.pinned ?? {});
  return {
    gate: pg.gate,
    org: pg.store,
    policy: () => pg.engine,
    rules: {
      inForce,
      set: async (scope: RuleScope, rule: PlanRule) => {
        refuseIfPinned(scope);
        return afterEdit(await setPlanRule(pg.paths.rules, scope, rule));
      },
      clear: async (scope: RuleScope) => {
        refuseIfPinned(scope);
        return afterEdit(await clearPlanRule(pg.paths.rules, scope));
      },
    },
    status: () => pg.status(),
    ...(readerOf(pg.audit) ? { audit: readerOf(pg.audit) as NonNullable<HttpAppOptions['audit']> } : {}),
  };
}
