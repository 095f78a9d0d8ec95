/**
 * The HTTP app's options from an opened plangate (`openPlangate`): the gate,
 * the org, the rules in force and their edits, the policy for the data API,
 * and the runtime status.
 */
import { readerOf } from '../../audit/query.js';
import { reviewerChannels } from '../../main/channel.js';
import type { Plangate } from '../../main/open.js';
import { refuseIfPinnedBy } from '../../main/env.js';
import { ErrorCode, PlangateError } from '../../core/errors.js';
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
export function httpOptionsFrom(pg: Plangate): Pick<HttpAppOptions, 'gate' | 'org' | 'rules' | 'policy' | 'status' | 'audit' | 'channelFor'> {
  const inForce = (): RulesInForce | undefined => {
    const r = pg.rules;
    return r ? { dir: r.dir, revision: r.revision, files: r.files, data: r.data, loadedAt: r.loadedAt } : undefined;
  };
  const afterEdit = async (result: EditResult): Promise<RuleEdit> => {
    const reloaded = result.changed ? (await pg.reload()).outcome === 'loaded' : false;
    return { ...result, revision: inForce()?.revision ?? null, reloaded };
  };
  /** Like the CLI: the workspace rule cannot be edited while the environment pins it (the edit would have no effect). */
  const refuseIfPinned = (scope: RuleScope): void => {
    refuseIfReplicated(pg.sharedStore);
    refuseIfPinnedBy(scope, pg.status().env?.pinned ?? {});
  };
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
    channelFor: reviewerChannels(pg),
    ...(readerOf(pg.audit) ? { audit: readerOf(pg.audit) as NonNullable<HttpAppOptions['audit']> } : {}),
  };
}

/**
 * With a shared (PostgreSQL) store several replicas serve, each watching the
 * rule files on its own mount: an edit through one replica's API would
 * change only that replica's copy, and the replicas would decide under
 * different rules. So the edit is refused, and the operator told to change
 * the files in Git (which every replica's mount then receives).
 */
function refuseIfReplicated(sharedStore: boolean): void {
  if (!sharedStore) return;
  throw new PlangateError(
    ErrorCode.RulesEditRefused,
    'rule edits through the API are refused: this plangate shares its PostgreSQL store with other replicas, and each replica ' +
      'reads the rule files from its own mount, so an edit here would reach this replica only. Change the rule files in Git ' +
      'and deploy them to every replica; each reloads them by itself.',
  );
}
