/**
 * Plan-required rules over HTTP: read the rules in force (all of them, or
 * what one seat runs under), and set or clear the rule of one scope with the
 * same validation and in-place file edits as `plangate plan-required set|clear`.
 */
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import type { PlanRule } from '../../../core/types.js';
import type { RuleScope } from '../../../rules/edit.js';
import type { HttpDeps, RuleEdit } from '../deps.js';
import { HttpCode, HttpError } from '../errors.js';
import type { RouteContext, Router } from '../router.js';
import { seatOf } from './seat.js';

const BASE = '/v1/rules/plan-required';

/** The three scopes, as path suffixes. */
const SCOPES: Array<{ suffix: string; scope: (ctx: RouteContext) => RuleScope }> = [
  { suffix: '/workspace', scope: () => ({ kind: 'workspace' }) },
  { suffix: '/crews/:id', scope: (ctx) => ({ kind: 'crew', id: ctx.params['id'] as string }) },
  { suffix: '/agents/:id', scope: (ctx) => ({ kind: 'agent', id: ctx.params['id'] as string }) },
];

function answer(scope: RuleScope, edit: RuleEdit): { body: unknown } {
  return { body: { scope, changed: edit.changed, file: edit.file, revision: edit.revision, reloaded: edit.reloaded } };
}

export function registerRulesRoutes(router: Router, deps: HttpDeps): void {
  router.add({
    method: 'GET',
    path: BASE,
    roles: ['agent', 'operator', 'policy'],
    body: 'none',
    async handle(ctx) {
      const as = ctx.query.get('as') ?? undefined;
      if (as === undefined) {
        if (ctx.principal?.role === 'agent') {
          throw new HttpError(HttpCode.Forbidden, `an agent token reads only its own settings: ${BASE}?as=${ctx.principal.seat}`);
        }
        const r = deps.rules.inForce();
        if (!r) throw new PlangateError(ErrorCode.PolicyUnavailable, 'no rules are in force: plangate is failing open (see /health)');
        return { body: { revision: r.revision, loadedAt: r.loadedAt?.toISOString() ?? null, files: r.files, planRequired: r.data.planRequired } };
      }
      const agent = ctx.principal?.role === 'agent' ? seatOf(ctx.principal, as, '?as=') : as;
      const settings = await deps.gate.settingsFor(agent);
      const lineage = await deps.org.lineage(agent);
      return { body: { agent, known: lineage.known, crews: lineage.crews, settings } };
    },
  });

  for (const { suffix, scope } of SCOPES) {
    router.add({
      method: 'PUT',
      path: BASE + suffix,
      roles: ['operator'],
      body: { schema: 'plan-rule' },
      async handle(ctx) {
        const s = scope(ctx);
        return answer(s, await deps.rules.set(s, ctx.body as PlanRule));
      },
    });
    router.add({
      method: 'DELETE',
      path: BASE + suffix,
      roles: ['operator'],
      body: 'none',
      async handle(ctx) {
        const s = scope(ctx);
        return answer(s, await deps.rules.clear(s));
      },
    });
  }
}
