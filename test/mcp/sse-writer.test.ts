/**
 * How plangate mcp --listen writes a response stream (sse-writer.ts): a call
 * answered at once gets no priming event (its answer carries an event id of
 * its own), and its event is the SDK's, with the JSON the event store kept;
 * a call that sends nothing for longer than PRIME_AFTER_MS gets one, and a
 * stream dropped right after it resumes from its id with the answer it missed.
 */
import { describe, expect, it } from 'vitest';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { SessionEventStore } from '../../src/adapters/mcp/event-store.js';
import { PRIME_AFTER_MS, writeEvents } from '../../src/adapters/mcp/sse-writer.js';
import { closeAfterEach, everythingSession, readUntil } from './support.js';

/** The events of a stream's text: each one's id and data. */
function events(text: string): Array<{ id?: string; data: string }> {
  return text.split('\n\n').filter((e) => e.trim() !== '').map((e) => ({
    ...(/^id: (.+)$/m.exec(e) ? { id: (/^id: (.+)$/m.exec(e) as RegExpExecArray)[1] as string } : {}),
    data: (/^data: ?(.*)$/m.exec(e)?.[1] ?? '').trim(),
  }));
}

describe('writing response streams', () => {
  const closers = closeAfterEach();

  it('primes only a stream that has gone PRIME_AFTER_MS without a message; a drop after it resumes', async () => {
    const { headers, post, url } = await everythingSession(closers);

    // Answered at once: one event, the answer, with its id; no empty priming event before it.
    const raw = await (await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'plangate_say', arguments: { body: 'a slow operation' } } })).text();
    const quick = events(raw);
    expect(quick).toHaveLength(1);
    expect(quick[0]?.id).toBeDefined();
    expect(quick[0]?.data).toContain('"kind":"plan"');
    // The SDK's event, byte for byte: its name, its id, the message's JSON on one data line.
    const answer = JSON.parse(quick[0]?.data as string) as { id: number; result: unknown };
    expect(answer.id).toBe(2);
    expect(raw).toBe(`event: message\nid: ${quick[0]?.id}\ndata: ${JSON.stringify(answer)}\n\n`);

    // Two seconds without a message (no progress token): primed meanwhile, then dropped.
    const drop = new AbortController();
    const started = Date.now();
    const slow = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'trigger-long-running-operation', arguments: { duration: 2, steps: 1 } } }, drop.signal);
    const before = events(await readUntil(slow, (t) => t.includes('\n\n')));
    drop.abort();
    // The gateway notices the drop (a stream still open would be a conflict).
    await new Promise((r) => setTimeout(r, 100));
    expect(Date.now() - started).toBeGreaterThanOrEqual(PRIME_AFTER_MS);
    expect(before).toHaveLength(1);
    expect(before[0]?.data).toBe('');
    const primed = before[0]?.id as string;
    expect(primed).toBeDefined();

    const resumed = await fetch(url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream', 'last-event-id': primed } });
    expect(resumed.status).toBe(200);
    const after = await readUntil(resumed, (t) => t.includes('"id":3'));
    expect(after).toContain('Long running operation completed');
  }, 60_000);
});

describe('the writer', () => {
  it('sends the JSON the event store kept of a message, not the message serialized again', async () => {
    const store = new SessionEventStore();
    const web = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => 'session', eventStore: store });
    writeEvents(web, store);
    const message = { jsonrpc: '2.0' as const, method: 'notifications/message', params: { n: 1 } };
    const id = await store.storeEvent('s', message);
    // Changed after it was stored: the event carries what was stored, so the text must be the store's.
    message.params.n = 2;
    const chunks: Uint8Array[] = [];
    const controller = { enqueue: (chunk: Uint8Array) => void chunks.push(chunk) };
    const write = (web as unknown as { writeSSEEvent(c: unknown, e: { encode(text: string): Uint8Array }, m: unknown, id?: string): boolean }).writeSSEEvent;
    expect(write(controller, new TextEncoder(), message, id)).toBe(true);
    expect(new TextDecoder().decode(chunks[0])).toBe(`event: message\nid: ${id}\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"n":1}}\n\n`);
    // A message the store did not keep last (a replayed one) is the SDK's to serialize.
    expect(write(controller, new TextEncoder(), { jsonrpc: '2.0', method: 'x' }, 's#9')).toBe(true);
    expect(new TextDecoder().decode(chunks[1])).toBe('event: message\nid: s#9\ndata: {"jsonrpc":"2.0","method":"x"}\n\n');
  });
});
