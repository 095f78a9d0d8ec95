/**
 * The review queue: active holds with their plans and push-backs, as JSON
 * and as a server-sent event stream that shows a new plan without asking
 * again; for operators only.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_BYTES_PER_HOLD, BODY_BYTES_PER_QUEUE, reviewQueue } from '../../src/adapters/http/routes/review.js';
import { makeWorld, rulesData } from '../support/world.js';
import { call, serve, TOKENS, type Served } from './support.js';

let s: Served;
const op = (json?: unknown) => ({ token: TOKENS.operator, ...(json !== undefined ? { json } : {}) });

beforeAll(async () => {
  s = await serve();
  expect((await call(s.url, 'PUT', '/v1/org/crews/desk', op({}))).status).toBe(200);
  expect((await call(s.url, 'PUT', '/v1/org/agents/0xWORKER', op({ crew: 'desk' }))).status).toBe(200);
});
afterAll(async () => {
  await s?.close();
});

/** Opens the stream with a token in the header (never the URL) and collects its events. */
async function openStream(token: string) {
  const stop = new AbortController();
  const res = await fetch(`${s.url}/v1/review/queue/events`, { headers: { authorization: `Bearer ${token}` }, signal: stop.signal });
  const events: EventSourceMessage[] = [];
  const waiters: Array<() => void> = [];
  const parser = createParser({ onEvent: (e) => { events.push(e); waiters.splice(0).forEach((w) => w()); } });
  const decoder = new TextDecoder();
  const reading = (async () => {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // aborted
    }
  })();
  return {
    res,
    events,
    /** Waits until an event satisfies `pred` (up to 5 s). */
    async until(pred: (holds: Array<Record<string, any>>) => boolean): Promise<Array<Record<string, any>>> {
      const deadline = Date.now() + 5000;
      for (;;) {
        const hit = events.map((e) => JSON.parse(e.data).holds).find(pred);
        if (hit) return hit;
        if (Date.now() > deadline) throw new Error(`no such event in ${events.length} events: ${events.map((e) => e.data).join('\n')}`);
        await new Promise<void>((r) => { waiters.push(r); setTimeout(r, 200); });
      }
    },
    async close() {
      stop.abort();
      await reading;
    },
  };
}

describe('the review queue', () => {
  it('streams the queue at once and again on every change: a hold, its plan, a push-back, the second plan, the release', async () => {
    const stream = await openStream(TOKENS.operator);
    expect(stream.res.status).toBe(200);
    expect(stream.res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.res.headers.get('cache-control')).toBe('no-store');
    await stream.until((holds) => holds.length === 0);

    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER', op({ task: 'Refactor the auth middleware' }))).status).toBe(201);
    const placed = await stream.until((holds) => holds.length === 1);
    expect(placed[0]).toMatchObject({ agent: '0xWORKER', kind: 'on_demand', task: 'Refactor the auth middleware', placedBy: 'ops', plans: 0, messages: [] });

    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER/plan', { token: TOKENS.worker, json: { body: 'Add an API-key branch.' } })).status).toBe(201);
    await stream.until((holds) => holds[0]?.messages.length === 1);
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER/push-back', op({ body: 'Which callers change?' }))).status).toBe(201);
    expect((await call(s.url, 'POST', '/mcp/call', { token: TOKENS.worker, json: { name: 'plangate_submit_plan', arguments: { plan: 'Two callers: login and refresh.' } } })).status).toBe(200);
    const second = await stream.until((holds) => holds[0]?.messages.length === 3);
    expect(second[0]!.messages.map((m: { role: string; author: string; body: string }) => [m.role, m.author, m.body])).toEqual([
      ['plan', '0xWORKER', 'Add an API-key branch.'],
      ['pushback', 'ops', 'Which callers change?'],
      ['plan', '0xWORKER', 'Two callers: login and refresh.'],
    ]);
    expect(second[0]).toMatchObject({ plans: 2, pushBacks: 1 });

    // The release names the newest plan the queue showed.
    expect(second[0]!.lastPlanId).toMatch(/^\d+$/);
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER/release', op({ lastPlanId: second[0]!.lastPlanId }))).status).toBe(200);
    await stream.until((holds) => holds.length === 0);
    // Nothing changed in between: no event repeats the same queue.
    const datas = stream.events.map((e) => e.data);
    expect(new Set(datas).size).toBe(datas.length);
    expect(stream.events.every((e) => e.event === 'queue')).toBe(true);
    await stream.close();
  });

  it('a stream whose first read came before a change another stream was already sent still gets that change', async () => {
    const a = await openStream(TOKENS.operator);
    await a.until((holds) => holds.length === 0);
    // B's queue is read now; its stream starts writing later (an embedding host, a slow socket).
    const b = await s.app.fetch({ method: 'GET', url: '/v1/review/queue/events', headers: { authorization: `Bearer ${TOKENS.operator}` } });
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER', op({ task: 'late' }))).status).toBe(201);
    await a.until((holds) => holds.length === 1);

    const queues: Array<Array<Record<string, unknown>>> = [];
    const stop = new AbortController();
    const write = (chunk: string): void => {
      for (const line of chunk.split('\n')) if (line.startsWith('data: ')) queues.push(JSON.parse(line.slice(6)).holds);
    };
    const running = b.stream!.run(Object.assign(write, { ready: () => true }), stop.signal);
    const deadline = Date.now() + 3000;
    while (!queues.some((q) => q.length === 1) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    stop.abort();
    await running;
    await a.close();
    expect(queues.map((q) => q.length)).toEqual([0, 1]);
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER/unblock', op())).status).toBe(200);
  });

  it('answers the same queue as JSON', async () => {
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER', op())).status).toBe(201);
    const q = await call(s.url, 'GET', '/v1/review/queue', op());
    expect(q.status).toBe(200);
    expect(q.json.holds).toHaveLength(1);
    expect(q.json.holds[0]).toMatchObject({ agent: '0xWORKER', messages: [] });
    expect(q.json.holds[0].placedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER/unblock', op())).status).toBe(200);
    expect((await call(s.url, 'GET', '/v1/review/queue', op())).json.holds).toEqual([]);
  });

  it('carries at most 1 MiB of a hold\'s bodies, the newest, and the hold\'s newest plan however it was cut', async () => {
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER', op())).status).toBe(201);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await call(s.url, 'POST', '/v1/holds/0xWORKER/plan', { token: TOKENS.worker, json: { body: `${i} `.padEnd(65_000, 'x') } });
      ids.push(r.json.message.id as string);
    }
    const q = await call(s.url, 'GET', '/v1/review/queue', op());
    const entry = q.json.holds[0] as { plans: number; lastPlanId: string; messages: Array<{ id: string; body: string }> };
    expect(entry.plans).toBe(20);
    expect(entry.lastPlanId).toBe(ids[19]);
    // The newest plans, as many as fit in 1 MiB: 16 of 65,000 bytes.
    expect(entry.messages.map((m) => m.id)).toEqual(ids.slice(4));
    expect(Buffer.byteLength(entry.messages.map((m) => m.body).join(''))).toBeLessThanOrEqual(BODY_BYTES_PER_HOLD);
    expect((await call(s.url, 'POST', '/v1/holds/0xWORKER/unblock', op())).status).toBe(200);
  });

  it('shares BODY_BYTES_PER_QUEUE among its holds, each keeping at least its newest plan', async () => {
    const w = await makeWorld(rulesData({}));
    const agents = Array.from({ length: 12 }, (_, i) => `0xQ${i}`);
    for (const agent of agents) {
      await w.gate.holds.place(agent, { by: 'ops' });
      for (let i = 0; i < 12; i++) await w.gate.holds.submitPlan(agent, { body: `${agent} ${i} `.padEnd(64_000, 'x') });
    }
    const q = await reviewQueue(w);
    expect(q.holds).toHaveLength(12);
    const bytes = q.holds.map((h) => Buffer.byteLength(h.messages.map((m) => m.body).join('')));
    expect(bytes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(BODY_BYTES_PER_QUEUE);
    for (const [i, h] of q.holds.entries()) {
      expect(bytes[i]).toBeLessThanOrEqual(BODY_BYTES_PER_QUEUE / 12);
      expect(h.messages.at(-1)?.body.startsWith(`${h.agent} 11 `)).toBe(true);
    }
  });

  it('is for reviewers too: the stream opens with a reviewer token', async () => {
    const stream = await openStream(TOKENS.reviewer);
    expect(stream.res.status).toBe(200);
    await stream.until((holds) => Array.isArray(holds));
    await stream.close();
    expect((await call(s.url, 'GET', '/v1/review/queue', { token: TOKENS.reviewer })).status).toBe(200);
  });

  it('no token, a wrong token, an agent, policy or orchestrator token never opens the stream', async () => {
    for (const [token, status] of [[undefined, 401], ['wrong-token-0123456789abcdef', 401], [TOKENS.worker, 403], [TOKENS.policy, 403], [TOKENS.orchestrator, 403]] as const) {
      const r = await call(s.url, 'GET', '/v1/review/queue/events', token ? { token } : {});
      expect(r.status).toBe(status);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect((await call(s.url, 'GET', '/v1/review/queue', token ? { token } : {})).status).toBe(status);
    }
  });

  it('ends open streams when the server stops, without waiting out the grace period', async () => {
    const other = await serve();
    const res = await fetch(`${other.url}/v1/review/queue/events`, { headers: { authorization: `Bearer ${TOKENS.operator}` } });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const t0 = Date.now();
    await other.server.close(20_000);
    for (;;) if ((await reader.read()).done) break;
    expect(Date.now() - t0).toBeLessThan(10_000);
    await other.close();
  });
});

describe('the review queue while the store fails', () => {
  it('says so on the stream, and logs the failure once when the polls start failing, not at every poll', async () => {
    const logged: Array<{ message: string; route: string }> = [];
    const own = await serve({ app: { onError: (error, where) => void logged.push({ message: String(error), route: where.route }) } });
    try {
      const stop = new AbortController();
      const res = await fetch(`${own.url}/v1/review/queue/events`, { headers: { authorization: `Bearer ${TOKENS.operator}` }, signal: stop.signal });
      const names: string[] = [];
      const parser = createParser({ onEvent: (e) => void names.push(e.event ?? 'message') });
      const decoder = new TextDecoder();
      const reading = (async () => {
        try {
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
        } catch {
          // aborted
        }
      })();
      const list = own.pg.gate.holds.list;
      const fail = async () => { throw new Error('SQLITE_IOERR: disk I/O error'); };
      const waitFor = async (what: () => boolean) => {
        for (let i = 0; i < 100 && !what(); i++) await new Promise((r) => setTimeout(r, 50));
        expect(what()).toBe(true);
      };
      own.pg.gate.holds.list = fail;
      await waitFor(() => names.includes('unavailable'));
      await new Promise((r) => setTimeout(r, 2_200)); // two more polls that fail
      expect(logged).toEqual([{ message: 'Error: SQLITE_IOERR: disk I/O error', route: '/v1/review/queue/events' }]);
      own.pg.gate.holds.list = list;
      await waitFor(() => names.lastIndexOf('queue') > names.indexOf('unavailable'));
      // Failing again after a success is a new outage: logged again.
      own.pg.gate.holds.list = fail;
      await waitFor(() => logged.length === 2);
      own.pg.gate.holds.list = list;
      stop.abort();
      await reading;
    } finally {
      await own.close();
    }
  }, 30_000);
});
