/**
 * The rules in force, whole, and what one seat runs under — the console's
 * rules page reads these.
 *
 *   GET /v1/rules             operator, policy   every rule with its source: plan-required, tool classes,
 *                                                planning-gate defaults and profiles, read-guard tools
 *   GET /v1/seats/:agent      operator, policy, that agent   the seat's crews, its plan-required settings and
 *                                                its planning-gate settings, each with where it comes from
 */
import { QUOTA_KINDS } from '../../../core/quotas.js';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import type { HttpDeps } from '../deps.js';
import type { Router } from '../router.js';
import { seatOf } from './seat.js';

export function registerRulesViewRoutes(router: Router, deps: HttpDeps): void {
  router.add({
    method: 'GET',
    path: '/v1/rules',
    roles: ['operator', 'policy'],
    body: 'none',
    handle() {
      const r = deps.rules.inForce();
      if (!r) throw new PlangateError(ErrorCode.PolicyUnavailable, 'no rules are in force: plangate is failing open (see /health)');
      return { body: { revision: r.revision, loadedAt: r.loadedAt?.toISOString() ?? null, files: r.files, rules: r.data } };
    },
  });

  router.add({
    method: 'GET',
    path: '/v1/seats/:agent',
    roles: ['operator', 'policy', 'agent'],
    body: 'none',
    async handle(ctx) {
      const requested = ctx.params['agent'] as string;
      const agent = ctx.principal?.role === 'agent' ? seatOf(ctx.principal, requested) : requested;
      const [lineage, planRequired, planningGate] = await Promise.all([
        deps.org.lineage(agent),
        deps.gate.settingsFor(agent),
        // While failing open there is no policy to say the planning-gate settings: null, not an error.
        deps.gate.holds.settingsFor(agent).catch((error: unknown) => {
          if (error instanceof PlangateError && error.code === ErrorCode.PolicyUnavailable) return null;
          throw error;
        }),
      ]);
      // The quotas in force for the seat (the policy's, defaults filled in); none while there is no policy.
      const policy = deps.policy();
      const quotas = policy ? QUOTA_KINDS.map((kind) => (policy.evaluate('plangate/quota', { kind, seat: agent, now: Date.now() }) as { limits?: unknown } | undefined)?.limits).filter(Boolean) : [];
      return { body: { agent, known: lineage.known, crews: lineage.crews, planRequired, planningGate, quotas } };
    },
  });
}
