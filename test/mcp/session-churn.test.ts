/**
 * A loop of `initialize` from one seat is refused with 429 and Retry-After
 * once the seat's burst is spent, starts no upstream process for the
 * refused ones, and never closes the seat's sessions to make room for new
 * ones faster than they go idle; another seat opens its sessions as usual.
 * The upstream is a real stdio process that writes its pid when it starts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionRate } from '../../src/adapters/mcp/session-rate.js';
import { closeAfterEach, FS_SERVER, httpHarness, makeWorld, TOKENS } from './support.js';

/** Starts of the upstream process, one pid a line. */
const starts = (file: string): number => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0);

describe('session churn on the MCP gateway', () => {
  const closers = closeAfterEach();

  it('refuses initialize past the seat\'s burst with 429, spawns nothing for it, and evicts no busy-lately session', async () => {
    const w = makeWorld();
    const pids = join(w.files, '..', 'pids');
    const upstream = { name: 'fs', kind: 'stdio' as const, command: '/bin/sh', args: ['-c', `echo $$ >> '${pids}'; exec '${process.execPath}' '${FS_SERVER}' '${w.files}'`] };
    const h = await httpHarness(w, [upstream], 100, [w.files], { maxSessionsPerSeat: 2, sessionRate: new SessionRate({ burst: 3, refillMs: 60_000 }) });
    closers.push(() => h.close());
    // Up to the cap: two sessions, two upstream processes.
    const first = await h.client('0xWORKER');
    const second = await h.client('0xWORKER');
    await first.listTools();
    await second.listTools();
    expect(starts(pids)).toBe(2);
    // A third, in the burst: the cap holds, and neither session went unused long enough to be closed for it.
    const third = await fetchInit(h.listener.url, TOKENS['0xWORKER'] as string);
    expect(third.status).toBe(429);
    expect(await third.text()).toMatch(/Too many sessions: 0xWORKER has 2 open/);
    // The churn: every further initialize is refused by the rate, with how long to wait.
    for (let i = 0; i < 20; i++) {
      const r = await fetchInit(h.listener.url, TOKENS['0xWORKER'] as string);
      expect(r.status).toBe(429);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await r.text()).toMatch(/Too many sessions opened: 0xWORKER may open 3 at once/);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(starts(pids)).toBe(2);
    expect((await first.listTools()).tools.length).toBeGreaterThan(0);
    expect((await second.listTools()).tools.length).toBeGreaterThan(0);
    // Another seat has a bucket of its own.
    const other = await h.client('0xOTHER');
    await other.listTools();
    expect(starts(pids)).toBe(3);
  }, 30_000);

  it('counts a seat\'s bucket back up with time', () => {
    let now = 0;
    const rate = new SessionRate({ burst: 2, refillMs: 1_000, clock: () => now });
    expect([rate.take('a'), rate.take('a')]).toEqual([0, 0]);
    expect(rate.take('a')).toBe(1_000);
    expect(rate.take('b')).toBe(0);
    now = 500;
    expect(rate.take('a')).toBe(500);
    now = 1_000;
    expect(rate.take('a')).toBe(0);
    expect(() => new SessionRate({ burst: 0 })).toThrow(/burst/);
  });
});

function fetchInit(url: string, token: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
}
