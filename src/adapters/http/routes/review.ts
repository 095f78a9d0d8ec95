/**
 * The review queue (operators and reviewers): the active holds, newest first, each with its plans and
 * push-backs in order, bodies included (this is the reviewer's view, behind
 * a reviewer's or operator's token), as JSON and as server-sent events.
 *
 *   GET /v1/review/queue          the queue now
 *   GET /v1/review/queue/events   `event: queue` with the queue at once and on every change;
 *                                 a comment line every 15 s keeps proxies from closing it
 *
 * The stream polls the store (so holds placed by another process or replica
 * show up too); one poll serves every open stream.
 */
import type { Role } from '../auth.js';
import type { HttpDeps } from '../deps.js';
import type { Router } from '../router.js';
import type { Hold } from '../../../facts/port.js';
import { storeWatch, watchReply } from '../watch.js';
import type { QueueAnswer, QueueEntry } from './review-queue.js';

export type { QueueAnswer, QueueEntry, QueueMessage } from './review-queue.js';

/** Who reads the queue and the audit trail. */
export const REVIEW_ROLES: readonly Role[] = ['operator', 'reviewer'];

/** How often the store is asked for changes while a stream is open. */
export const QUEUE_POLL_MS = 1000;
/** At most this many holds are in the queue (the newest). */
const QUEUE_LIMIT = 100;
/** At most this many plans and push-backs per hold: the newest, oldest of them first. */
const MESSAGES_PER_HOLD = 200;
/**
 * At most this many bytes of bodies per hold (the newest message is always
 * there): an agent posting plan after plan of 64 KiB must not make every
 * event of the stream tens of megabytes.
 */
export const BODY_BYTES_PER_HOLD = 1024 * 1024;
/**
 * At most this many bytes of bodies in the whole queue, shared by its holds
 * (each keeps at least its newest message): a hundred holds of 1 MiB each
 * would make every event of the stream 100 MiB.
 */
export const BODY_BYTES_PER_QUEUE = 8 * 1024 * 1024;

/**
 * The queue now: the newest {@link QUEUE_LIMIT} active holds (a reviewer's:
 * the newest reviewer holds, however many on-demand holds are newer), and
 * whether older ones are left out.
 *
 * @example
 * (await reviewQueue(deps)).holds[0]?.messages.at(-1)?.body // the newest plan or push-back
 */
export async function reviewQueue(deps: Pick<HttpDeps, 'gate'>, forReviewer = false): Promise<QueueAnswer> {
  const picked: Hold[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await deps.gate.holds.list({ limit: QUEUE_LIMIT + 1, ...(before !== undefined ? { before } : {}) });
    // A reviewer answers for reviewer holds; an on-demand hold, and its plans, are the operators'.
    picked.push(...(forReviewer ? page.filter((h) => h.kind === 'reviewer') : page));
    if (picked.length > QUEUE_LIMIT || page.length <= QUEUE_LIMIT) break;
    before = page[page.length - 1]!.id;
  }
  const holds = picked.slice(0, QUEUE_LIMIT);
  const perHold = Math.min(BODY_BYTES_PER_HOLD, Math.floor(BODY_BYTES_PER_QUEUE / Math.max(1, holds.length)));
  const entries = await Promise.all(holds.map(async (h): Promise<QueueEntry> => ({
    id: h.id,
    agent: h.agent,
    kind: h.kind,
    task: h.task,
    placedBy: h.placedBy,
    placedAt: new Date(h.placedAt).toISOString(),
    plans: h.plans,
    pushBacks: h.pushBacks,
    lastPlanId: h.lastPlanId,
    messages: newestWithin(await deps.gate.holds.messages(h.id, MESSAGES_PER_HOLD), perHold).map(({ role, message: m }) => ({
      role,
      id: m.id,
      author: m.author,
      authorKind: m.authorKind,
      at: new Date(m.at).toISOString(),
      body: m.body,
      ...(m.runId !== undefined ? { runId: m.runId } : {}),
    })),
  })));
  return { holds: entries, limit: QUEUE_LIMIT, limitReached: picked.length > QUEUE_LIMIT };
}

/** The newest of `messages` (oldest first) whose bodies fit in `bytes`, and at least the newest one. */
function newestWithin<M extends { message: { body: string } }>(messages: M[], bytes: number): M[] {
  let total = 0;
  let from = messages.length;
  while (from > 0) {
    total += Buffer.byteLength((messages[from - 1] as M).message.body);
    if (total > bytes && from < messages.length) break;
    from -= 1;
  }
  return messages.slice(from);
}

export function registerReviewRoutes(router: Router, deps: HttpDeps): void {
  const log = (error: unknown): void => deps.onError(error, { method: 'GET', route: '/v1/review/queue/events' });
  const watches = {
    operator: storeWatch(() => reviewQueue(deps), QUEUE_POLL_MS, log),
    reviewer: storeWatch(() => reviewQueue(deps, true), QUEUE_POLL_MS, log),
  };

  router.add({
    method: 'GET',
    path: '/v1/review/queue',
    roles: REVIEW_ROLES,
    body: 'none',
    async handle(ctx) {
      return { body: await reviewQueue(deps, ctx.principal?.role === 'reviewer') };
    },
  });

  router.add({
    method: 'GET',
    path: '/v1/review/queue/events',
    roles: REVIEW_ROLES,
    body: 'none',
    async handle(ctx) {
      const forReviewer = ctx.principal?.role === 'reviewer';
      const watch = forReviewer ? watches.reviewer : watches.operator;
      // Read once before answering, so a failing store is an error answer, not an empty stream.
      const first = JSON.stringify(await reviewQueue(deps, forReviewer));
      return watchReply('queue', first, watch);
    },
  });
}
