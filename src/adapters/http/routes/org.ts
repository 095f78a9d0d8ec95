/** The org: crews (with an optional parent) and agents. Operator only. */
import type { HttpDeps } from '../deps.js';
import type { Router } from '../router.js';

export function registerOrgRoutes(router: Router, deps: HttpDeps): void {
  router.add({
    method: 'GET',
    path: '/v1/org',
    roles: ['operator'],
    body: 'none',
    async handle() {
      return { body: { crews: await deps.org.listCrews(), agents: await deps.org.listAgents() } };
    },
  });

  router.add({
    method: 'PUT',
    path: '/v1/org/crews/:id',
    roles: ['operator'],
    body: { schema: 'org-crew' },
    async handle(ctx) {
      const crew = { id: ctx.params['id'] as string, parent: (ctx.body as { parent?: string | null }).parent ?? null };
      await deps.org.putCrew(crew);
      return { body: crew };
    },
  });

  router.add({
    method: 'PUT',
    path: '/v1/org/agents/:id',
    roles: ['operator'],
    body: { schema: 'org-agent' },
    async handle(ctx) {
      const agent = { id: ctx.params['id'] as string, crew: (ctx.body as { crew: string }).crew };
      await deps.org.putAgent(agent);
      return { body: agent };
    },
  });
}
