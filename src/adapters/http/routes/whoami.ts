/**
 * `GET /v1/whoami`: the role and name of the token presented (and its seat
 * for an agent token), never the token. The console asks it at sign-in to
 * know which pages to show; any token may ask about itself.
 */
import { ROLES } from '../auth.js';
import type { HttpDeps } from '../deps.js';
import type { Router } from '../router.js';

export function registerWhoamiRoutes(router: Router, _deps: HttpDeps): void {
  router.add({
    method: 'GET',
    path: '/v1/whoami',
    roles: ROLES,
    body: 'none',
    handle(ctx) {
      return { body: { ...ctx.principal } };
    },
  });
}
