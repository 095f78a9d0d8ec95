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
import type { QueueAnswer, QueueEntry } from './review-queue.js';

export type { QueueAnswer, QueueEntry, QueueMessage } from './review-queue.js';

/** Who reads the queue and the audit trail. */
export const REVIEW_ROLES: readonly Role[] = ['operator', 'reviewer'];

/** How often the store is asked for changes while a stream is open. */
export const QUEUE_POLL_MS = 1000;
/** A comment line this often keeps the connection open through proxies. */
const KEEPALIVE_MS = 15_000;
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

/** A poll's outcome for a stream: the queue as JSON, or why it could not be read. */
type Listener = (polled: { queue: string } | { unavailable: string }) => void;

/**
 * One poll loop for every open stream: it runs while somebody listens. A
 * store that fails is logged once, when the polls start failing (not every
 * second), and again the next time they start failing after a success.
 */
function queueWatch(load: () => Promise<QueueAnswer>, pollMs: number, log: (error: unknown) => void) {
  const listeners = new Set<Listener>();
  let timer: NodeJS.Timeout | undefined;
  let polling = false;
  let failing = false;

  async function poll(): Promise<void> {
    if (polling) return;
    polling = true;
    try {
      const queue = JSON.stringify(await load());
      failing = false;
      // Every listener is given every poll and drops what it already sent: one that joined after a
      // change was polled (its first read older than that poll) still gets the change.
      for (const l of listeners) l({ queue });
    } catch (error) {
      // A failing store is retried at the next tick; the streams stay open and say so, so that a
      // page does not show a queue as live that nobody can read.
      if (!failing) log(error);
      failing = true;
      for (const l of listeners) l({ unavailable: 'the store cannot be read; retrying' });
    } finally {
      polling = false;
    }
  }

  return {
    subscribe(listener: Listener): () => void {
      listeners.add(listener);
      timer ??= setInterval(() => void poll(), pollMs);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && timer) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
  };
}

export function registerReviewRoutes(router: Router, deps: HttpDeps): void {
  const log = (error: unknown): void => deps.onError(error, { method: 'GET', route: '/v1/review/queue/events' });
  const watches = {
    operator: queueWatch(() => reviewQueue(deps), QUEUE_POLL_MS, log),
    reviewer: queueWatch(() => reviewQueue(deps, true), QUEUE_POLL_MS, log),
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
      return {
        headers: { 'x-accel-buffering': 'no' },
        stream: {
          contentType: 'text/event-stream; charset=utf-8',
          run: (write, signal) => new Promise<void>((done) => {
            let sent = first;
            let down = false;
            const send = (polled: { queue: string } | { unavailable: string }): void => {
              if ('unavailable' in polled) {
                if (!down) write(`event: unavailable\ndata: ${JSON.stringify({ reason: polled.unavailable })}\n\n`);
                down = true;
                return;
              }
              // After an outage the queue is sent again even if unchanged: it says the queue is live again.
              if (polled.queue === sent && !down) return;
              // The client has not taken the last queue yet: the first poll after it has sends the queue as it is then.
              if (!write.ready()) return;
              sent = polled.queue;
              down = false;
              write(`event: queue\ndata: ${polled.queue}\n\n`);
            };
            write(`retry: 2000\nevent: queue\ndata: ${first}\n\n`);
            const unsubscribe = watch.subscribe(send);
            const keepalive = setInterval(() => {
              if (write.ready()) write(': keep-alive\n\n');
            }, KEEPALIVE_MS);
            signal.addEventListener('abort', () => {
              clearInterval(keepalive);
              unsubscribe();
              done();
            }, { once: true });
          }),
        },
      };
    },
  });
}
