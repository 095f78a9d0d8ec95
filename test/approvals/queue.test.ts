/**
 * The approvers' queue over HTTP (the console's view): pending requests with
 * their arguments, those above ARGS_BYTES_IN_QUEUE left out (with their
 * size) and read one by one; answered ones apart; the event stream sends
 * the view at once; an agent token reads neither.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARGS_BYTES_IN_QUEUE } from '../../src/adapters/http/routes/approvals.js';
import { call, serve, TOKENS, type Served } from '../http/support.js';

const MERGE = 'github.merge_pull_request';
let s: Served;

beforeAll(async () => {
  s = await serve({ prepare: (dir) => writeFileSync(join(dir, 'approvals.yaml'), `approvals: { workspace: { tools: [${MERGE}] } }\n`) });
});
afterAll(async () => {
  await s?.close();
});

const merge = (args: unknown) => call(s.url, 'POST', '/mcp/call', { token: TOKENS.bot, json: { name: MERGE, arguments: args } });
const op = { token: TOKENS.operator };

describe('the approvals queue', () => {
  it('carries small arguments, leaves large ones out with their size, lists answered requests apart', async () => {
    const small = (await merge({ pr: 1 })).json.approval.request as string;
    const bigArgs = { pr: 2, diff: 'x'.repeat(ARGS_BYTES_IN_QUEUE) };
    const big = (await merge(bigArgs)).json.approval.request as string;
    const denied = (await merge({ pr: 3 })).json.approval.request as string;
    expect((await call(s.url, 'POST', `/v1/approvals/${denied}/deny`, { ...op, json: { reason: 'no' } })).status).toBe(200);

    const q = await call(s.url, 'GET', '/v1/approvals/queue', op);
    expect(q.status).toBe(200);
    const byId = new Map((q.json.pending as Array<{ id: string }>).map((a) => [a.id, a]));
    expect(byId.get(small)).toMatchObject({ args: { pr: 1 }, argsBytes: 8, seat: '0xBOT', tool: MERGE });
    expect(byId.get(big)).not.toHaveProperty('args');
    expect(byId.get(big)).toMatchObject({ argsBytes: JSON.stringify(bigArgs).length });
    expect(byId.has(denied)).toBe(false);
    expect(q.json.answered).toEqual([expect.objectContaining({ id: denied, status: 'denied', reason: 'no' })]);
    expect((await call(s.url, 'GET', `/v1/approvals/${big}`, op)).json.approval.args).toEqual(bigArgs);
  });

  it('the stream opens with the view; an agent token reads neither', async () => {
    const ac = new AbortController();
    const res = await fetch(`${s.url}/v1/approvals/queue/events`, { headers: { authorization: `Bearer ${TOKENS.operator}` }, signal: ac.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('\n\n')) text += (await reader.read()).value ?? '';
    expect(text).toMatch(/^retry: 2000\nevent: approvals\ndata: \{"pending":/);
    ac.abort();
    for (const path of ['/v1/approvals/queue', '/v1/approvals/queue/events']) {
      expect((await call(s.url, 'GET', path, { token: TOKENS.bot })).status).toBe(403);
    }
  });
});
