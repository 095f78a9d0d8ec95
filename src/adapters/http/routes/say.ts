/**
 * `POST /v1/say`: post a message. An agent token posts as its seat (the
 * author comes from the token), only into a thread it speaks in and never a
 * kind of the reviewer's or the system's; an operator token posts as a
 * person, whose plan never counts. Posting is never an effect. The time is
 * the server's.
 */
import type { HttpDeps } from '../deps.js';
import type { Router } from '../router.js';
import { seatOf } from './seat.js';

interface SayBody {
  thread: string;
  kind: string;
  body: string;
  runId?: string;
  author?: string;
}

export function registerSayRoutes(router: Router, deps: HttpDeps): void {
  router.add({
    method: 'POST',
    path: '/v1/say',
    roles: ['agent', 'operator'],
    body: { schema: 'say' },
    async handle(ctx) {
      const b = ctx.body as SayBody;
      const asAgent = ctx.principal?.role === 'agent';
      const author = asAgent ? seatOf(ctx.principal, b.author, "the body's author") : (b.author ?? (ctx.principal?.name as string));
      const message = { thread: b.thread, author, kind: b.kind, body: b.body, ...(b.runId !== undefined ? { runId: b.runId } : {}) };
      // An agent posts only where it speaks, never a reviewer's kind (403 claim_refused, audited); a person posts as told.
      const m = asAgent ? await deps.gate.sayAsAgent(message) : await deps.gate.say({ ...message, authorKind: 'human' });
      return {
        status: 201,
        body: {
          id: m.id,
          thread: m.thread,
          author: m.author,
          authorKind: m.authorKind,
          kind: m.kind,
          at: new Date(m.at).toISOString(),
          ...(m.runId !== undefined ? { runId: m.runId } : {}),
        },
      };
    },
  });
}
