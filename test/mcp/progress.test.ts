/**
 * Progress through plangate mcp: every progress notification of a request
 * reaches the client before its result, even when the upstream sends the
 * last one and the result together (after the result a client no longer
 * knows the token, and drops what comes).
 */
import { describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { recorderHttp } from './recorder.js';
import { closeAfterEach, httpHarness, makeWorld, recorderUpstream, textOf, type World } from './support.js';
import type { UpstreamSpec } from '../../src/adapters/mcp/upstream.js';

const STEPS = 40;

/** Calls `burst` and returns the progress the client saw by the time the result came. */
async function burst(c: Client): Promise<{ text: string; seen: number[] }> {
  const seen: number[] = [];
  const result = await c.callTool({ name: 'burst', arguments: { steps: STEPS } }, undefined, { onprogress: (p) => void seen.push(p.progress) });
  return { text: textOf(result as never), seen: [...seen] };
}

describe('progress through plangate mcp', () => {
  const closers = closeAfterEach();

  async function client(w: World, upstream: UpstreamSpec) {
    const h = await httpHarness(w, [upstream], 100, []);
    closers.push(() => h.close());
    const c = await h.client('0xWORKER');
    return c;
  }

  const all = Array.from({ length: STEPS }, (_, i) => i + 1);

  it('relays every step before the result, from an upstream over stdio', async () => {
    const w = makeWorld();
    const c = await client(w, recorderUpstream(w));
    for (let round = 0; round < 5; round++) expect(await burst(c)).toEqual({ text: `burst ${STEPS}`, seen: all });
  }, 60_000);

  it('relays every step before the result, from an upstream over Streamable HTTP', async () => {
    const w = makeWorld();
    const up = await recorderHttp(w.record);
    closers.push(() => up.close());
    const c = await client(w, { name: 'rec', kind: 'http', url: up.url });
    for (let round = 0; round < 5; round++) expect(await burst(c)).toEqual({ text: `burst ${STEPS}`, seen: all });
  }, 60_000);
});
