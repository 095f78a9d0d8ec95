/**
 * Resumable streams through plangate mcp --listen: a client whose response
 * stream dropped asks again with Last-Event-ID and is sent what it missed
 * (the SDK's transport with the session's bounded event store).
 */
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { SessionEventStore } from '../../src/adapters/mcp/event-store.js';
import { closeAfterEach, everythingSession, readUntil } from './support.js';

const ids = (text: string) => [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1] as string);

describe('resumable streams', () => {
  const closers = closeAfterEach();

  it('resumes a dropped response stream from Last-Event-ID with the progress and the result it missed', async () => {
    const { headers, post, url } = await everythingSession(closers);
    expect(await (await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'plangate_say', arguments: { body: 'a long operation' } } })).text()).toContain('"kind":"plan"');

    // Five steps of progress over 2.5 s: the stream drops after the first.
    const drop = new AbortController();
    const running = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'trigger-long-running-operation', arguments: { duration: 2.5, steps: 5 }, _meta: { progressToken: 'p' } } }, drop.signal);
    const before = await readUntil(running, (t) => t.includes('notifications/progress'));
    drop.abort();
    await new Promise((r) => setTimeout(r, 100));
    expect(before).toContain('"progress":1');
    expect(before).not.toContain('"id":3');
    const last = ids(before).at(-1) as string;

    const resumed = await fetch(url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream', 'last-event-id': last } });
    expect(resumed.status).toBe(200);
    const after = await readUntil(resumed, (t) => t.includes('"id":3'));
    // Every step after the drop, the last one too: the gateway relays a request's progress before its result.
    for (const step of [2, 3, 4, 5]) expect(after, `${before}\n-----\n${after}`).toContain(`"progress":${step}`);
    expect(after).toContain('Long running operation completed');
    expect(after).not.toContain('"progress":1,');
    expect(ids(after).every((id) => !ids(before).includes(id))).toBe(true);

    // An id the session never issued: the stream cannot resume.
    const unknown = await fetch(url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream', 'last-event-id': 'nope#1' } });
    expect(unknown.status).toBe(400);
    await unknown.text();
  }, 60_000);
});

describe('the session event store', () => {
  const msg = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });

  it('replays the events after an id on its stream only, in order', async () => {
    const store = new SessionEventStore();
    const a1 = await store.storeEvent('a', msg(1));
    await store.storeEvent('b', msg(2));
    await store.storeEvent('a', msg(3));
    await store.storeEvent('a', msg(4));
    const sent: unknown[] = [];
    expect(await store.replayEventsAfter(a1, { send: async (_id, m) => void sent.push((m as unknown as { params: { n: number } }).params.n) })).toBe('a');
    expect(sent).toEqual([3, 4]);
    expect(await store.getStreamIdForEventId(a1)).toBe('a');
  });

  it('keeps the latest events within its bounds of count and bytes, and refuses an id it dropped', async () => {
    const store = new SessionEventStore(3, 1_000_000);
    const first = await store.storeEvent('a', msg(1));
    for (let n = 2; n <= 5; n++) await store.storeEvent('a', msg(n));
    expect(await store.getStreamIdForEventId(first)).toBeUndefined();
    await expect(store.replayEventsAfter(first, { send: async () => {} })).rejects.toThrow(/not kept/);
    const small = new SessionEventStore(100, 200);
    const big = await small.storeEvent('a', { jsonrpc: '2.0', method: 'x', params: { text: 'y'.repeat(150) } });
    await small.storeEvent('a', { jsonrpc: '2.0', method: 'x', params: { text: 'z'.repeat(150) } });
    expect(await small.getStreamIdForEventId(big)).toBeUndefined();
  });

  it('knows only the ids it issued, on their own stream', async () => {
    const store = new SessionEventStore();
    const a = await store.storeEvent('a', msg(1));
    await store.storeEvent('b', msg(2));
    expect(a).toBe('a#0');
    expect(await store.getStreamIdForEventId('a#0')).toBe('a');
    for (const forged of ['b#0', 'a#00', 'a#1', 'a#2', 'a#-1', 'a#', '#0', 'a', 'a#1e0', 'a# 0']) {
      expect(await store.getStreamIdForEventId(forged), forged).toBeUndefined();
    }
    await expect(store.replayEventsAfter('b#0', { send: async () => {} })).rejects.toThrow(/not kept/);
  });

  it('gives the writer the JSON of the message it stored last, and of no other', async () => {
    const store = new SessionEventStore();
    const first = msg(1);
    const second = msg(2);
    await store.storeEvent('a', first);
    expect(store.textOf(first)).toBe(JSON.stringify(first));
    await store.storeEvent('a', second);
    expect(store.textOf(first)).toBeUndefined();
    expect(store.textOf(structuredClone(second))).toBeUndefined();
    expect(store.textOf(second)).toBe(JSON.stringify(second));
  });
});
