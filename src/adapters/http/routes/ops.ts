/**
 * Operations: `GET /health` (ok or degraded) and `GET /metrics`
 * (Prometheus). Both are open: probes and scrapers carry no token. Without
 * a token `/health` says only `ok` or `degraded` — what a probe needs; the
 * details (the reasons, the rules directory and files, the environment's
 * pins, the reload errors) need an operator or policy token. Degraded still
 * serves (plan-required fails open by design); add `?strict` to get a 503
 * while degraded, for probes that should alert.
 */
import type { RuntimeStatus } from '../../../main/status.js';
import type { HttpDeps } from '../deps.js';
import type { Router } from '../router.js';

/** The reasons a status is degraded, for people. */
export function degradedReasons(s: RuntimeStatus): string[] {
  const reasons: string[] = [];
  if (s.failOpen) reasons.push(`failing open since ${s.failOpen.since}: ${s.failOpen.reason} (plan-required is NOT enforced)`);
  if (s.storeFailingOpen) reasons.push(`calls fail open on a store outage since ${s.storeFailingOpen.since}, the last at ${s.storeFailingOpen.last}: ${s.storeFailingOpen.reason} (plan-required is NOT enforced for them)`);
  if (s.lastReloadError) reasons.push(`last reload failed at ${s.lastReloadError.at}: ${s.lastReloadError.message} (the last good rules stay in force)`);
  if (s.audit && !s.audit.ok) reasons.push(`the audit log cannot be written since ${s.audit.since ?? '?'}: ${s.audit.error ?? 'failed'} (it is reopened by itself; decisions are unchanged)`);
  if (s.clock && !s.clock.ok) {
    reasons.push(`this replica's clock is ${Math.abs(s.clock.skewMs)} ms ${s.clock.skewMs > 0 ? 'behind' : 'ahead of'} the database's (at ${s.clock.checkedAt}): plans are stamped and judged fresh by each replica's own clock`);
  }
  if (reasons.length === 0 && s.state === 'degraded') reasons.push('degraded');
  return reasons;
}

export function registerOpsRoutes(router: Router, deps: HttpDeps): void {
  router.add({
    method: 'GET',
    path: '/health',
    roles: 'open',
    body: 'none',
    handle(ctx) {
      const s = deps.status();
      const degraded = s.state === 'degraded' || !s.enforcing;
      const status = degraded && ctx.query.has('strict') ? 503 : 200;
      const role = ctx.principal?.role;
      if (role !== 'operator' && role !== 'policy') return { status, body: { status: degraded ? 'degraded' : 'ok' } };
      return { status, body: { status: degraded ? 'degraded' : 'ok', reasons: degraded ? degradedReasons(s) : [], ...s } };
    },
  });

  router.add({
    method: 'GET',
    path: '/metrics',
    roles: 'open',
    body: 'none',
    async handle() {
      const { text, contentType } = await deps.metrics.render();
      return { raw: { bytes: text, contentType } };
    },
  });
}
