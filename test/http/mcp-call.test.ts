/**
 * POST /mcp/call, the tool-call route of a gateway, over real HTTP: a call
 * refused by plan-required is a 409 with the exact code and the executor is
 * never called (asserted on the upstream's own record); an allowed call goes
 * to its executor and the executor's answer comes back.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, serve, TOKENS, type Served } from './support.js';

let s: Served;
beforeAll(async () => {
  s = await serve({
    executors: (up) => ({
      timeoutMs: 2000,
      tools: {
        'github.*': `${up}/github`,
        'github.merge_pull_request': `${up}/merge`,
        'wallet.propose_spend': { url: `${up}/wallet`, headers: { 'x-executor-key': 'k-1' } },
        'slow.op': { url: `${up}/slow`, timeoutMs: 150 },
        'down.op': 'http://127.0.0.1:1/',
        'fs.*': `${up}/fs`,
      },
    }),
  });
  // desk ← trading (0xWORKER). 0xMGR is not in the org: only the workspace rule (spends_only) applies to it.
  for (const [path, body] of [
    ['/v1/org/crews/desk', {}],
    ['/v1/org/crews/trading', { parent: 'desk' }],
    ['/v1/org/agents/0xWORKER', { crew: 'trading' }],
  ] as const) {
    expect((await call(s.url, 'PUT', path, { token: TOKENS.operator, json: body })).status).toBe(200);
  }
});
afterAll(async () => {
  await s?.close();
});

const mcp = (token: string, body: unknown) => call(s.url, 'POST', '/mcp/call', { token, json: body });
const blocked = () => s.audit().filter((e) => e['type'] === 'PlanRequiredBlocked');

describe('POST /mcp/call', () => {
  it('409 plan_required:<tool>:none with the instruction; the executor is never called; one audit event', async () => {
    const r = await mcp(TOKENS.worker, { name: 'github.merge_pull_request', arguments: { pr: 12 } });
    expect(r.status).toBe(409);
    expect(r.json).toEqual({
      allowed: false,
      check: 'plan_required',
      code: 'plan_required:github.merge_pull_request:none',
      reason: 'none',
      message: expect.stringContaining('Post a message of kind `plan`'),
      tool: 'github.merge_pull_request',
      agent: '0xWORKER',
      class: 'effect',
      mode: 'side_effects',
      rule: { scope: 'agent', id: '0xWORKER', source: 'seats.yaml:10:5' },
    });
    expect(r.json.message).toMatch(/approves nothing/);
    expect(s.upstream.received).toHaveLength(0);
    expect(blocked()).toEqual([expect.objectContaining({ agent: '0xWORKER', code: 'plan_required:github.merge_pull_request:none', mode: 'side_effects' })]);
  });

  it('409 plan_required:<tool>:stale when the only plan is older than the window; the same run still counts', async () => {
    await s.pg.store.startRun({ id: 'run-7', seat: '0xWORKER', startedBy: 'host', startedAt: Date.now() - 60 * 60_000, expiresAt: Date.now() + 60 * 60_000 });
    await s.pg.gate.say({ thread: 'agent:0xWORKER', author: '0xWORKER', authorKind: 'agent', kind: 'plan', body: 'create the issue', runId: 'run-7', at: Date.now() - 45 * 60_000 });
    const r = await mcp(TOKENS.worker, { name: 'github.create_issue', arguments: { title: 't' } });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({ code: 'plan_required:github.create_issue:stale', reason: 'stale' });
    expect(r.json.message).toMatch(/45 minutes old/);
    expect(s.upstream.received).toHaveLength(0);
    const sameRun = await mcp(TOKENS.worker, { name: 'github.create_issue', arguments: { title: 't' }, runId: 'run-7' });
    expect(sameRun.status).toBe(200);
    expect(s.upstream.received).toHaveLength(1);
    expect(s.upstream.received[0]).toMatchObject({ url: '/github', headers: { 'x-plangate-agent': '0xWORKER', 'x-plangate-run': 'run-7' } });
    s.upstream.received.length = 0;
  });

  it('409 in spends_only for a spend; an ungated effect goes straight to its executor', async () => {
    const spend = await mcp(TOKENS.mgr, { name: 'wallet.propose_spend', arguments: { usd: 40 } });
    expect(spend.status).toBe(409);
    expect(spend.json).toMatchObject({ code: 'plan_required:wallet.propose_spend:none', mode: 'spends_only', class: 'spend', rule: { scope: 'workspace' } });
    expect(s.upstream.received).toHaveLength(0);
    const merge = await mcp(TOKENS.mgr, { name: 'github.merge_pull_request', arguments: { pr: 3 } });
    expect(merge.status).toBe(200);
    expect(merge.headers.get('x-plangate-decision')).toBe('allowed');
    expect(s.upstream.received.map((r) => r.url)).toEqual(['/merge']); // the exact entry beats github.*
    s.upstream.received.length = 0;
  });

  it('a manager\'s plan counts for a delegated worker under acceptUpstream; the configured executor headers are sent', async () => {
    expect((await call(s.url, 'POST', '/v1/say', { token: TOKENS.mgr, json: { thread: 'agent:0xMGR', kind: 'plan', body: 'the worker proposes the spend' } })).status).toBe(201);
    const alone = await mcp(TOKENS.worker, { name: 'wallet.propose_spend' });
    expect(alone.status).toBe(409);
    expect(alone.json.code).toBe('plan_required:wallet.propose_spend:stale');
    // Claimed but not on record: refused, and nothing reaches the executor.
    const claimed = await mcp(TOKENS.worker, { name: 'wallet.propose_spend', delegatedBy: ['0xMGR'] });
    expect(claimed.status).toBe(403);
    expect(claimed.json.error.code).toBe('claim_refused');
    expect(s.upstream.received).toHaveLength(0);
    // The manager records the delegation with its own token; now it counts.
    const recorded = await call(s.url, 'POST', '/v1/delegations', { token: TOKENS.mgr, json: { worker: '0xWORKER' } });
    expect(recorded.status).toBe(201);
    const delegated = await mcp(TOKENS.worker, { name: 'wallet.propose_spend', delegatedBy: ['0xMGR'] });
    expect(delegated.status).toBe(200);
    expect(s.upstream.received).toHaveLength(1);
    expect(s.upstream.received[0]!.headers['x-executor-key']).toBe('k-1');
    expect(JSON.parse(s.upstream.received[0]!.body)).toMatchObject({ agent: '0xWORKER', delegatedBy: ['0xMGR'] });
    s.upstream.received.length = 0;
  });

  it('an allowed call is sent with the seat from the token, the arguments and _meta, and the executor\'s answer comes back as is', async () => {
    const said = await call(s.url, 'POST', '/v1/say', { token: TOKENS.worker, json: { thread: 'crew:trading', kind: 'plan', body: 'merge PR 12 after CI' } });
    expect(said.status).toBe(201);
    s.upstream.answer = () => ({ status: 201, body: 'merged', contentType: 'text/plain; charset=utf-8' });
    const r = await mcp(TOKENS.worker, { name: 'github.merge_pull_request', arguments: { pr: 12, nested: { a: [1] } }, _meta: { progressToken: 't1' } });
    expect(r.status).toBe(201);
    expect(r.text).toBe('merged');
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(s.upstream.received).toHaveLength(1);
    const got = s.upstream.received[0]!;
    expect(got.method).toBe('POST');
    expect(got.headers['authorization']).toBeUndefined(); // the agent's token is not forwarded
    expect(JSON.parse(got.body)).toEqual({ name: 'github.merge_pull_request', arguments: { pr: 12, nested: { a: [1] } }, agent: '0xWORKER', _meta: { progressToken: 't1' } });

    s.upstream.answer = () => ({ status: 500, body: '{"error":"boom"}' });
    const failed = await mcp(TOKENS.worker, { name: 'github.merge_pull_request' });
    expect(failed.status).toBe(500); // the executor's own answer, passed through
    expect(failed.json).toEqual({ error: 'boom' });
    expect(JSON.parse(s.upstream.received[1]!.body).arguments).toEqual({});
    s.upstream.answer = (r) => ({ status: 200, body: JSON.stringify({ ok: true, echo: JSON.parse(r.body) }) });
    s.upstream.received.length = 0;
  });

  it('403 when the body names another seat, 400/413 for malformed or oversized bodies: the executor is never called', async () => {
    const other = await mcp(TOKENS.worker, { name: 'github.merge_pull_request', agent: '0xBOT' });
    expect(other.status).toBe(403);
    expect(other.json.error.code).toBe('seat_mismatch');
    expect((await mcp(TOKENS.worker, { name: 'github.merge_pull_request', arguments: [1] })).status).toBe(400);
    expect((await mcp(TOKENS.worker, { tool: 'github.merge_pull_request' })).json.error.message).toMatch(/body\.name is required.*unknown field "tool"|unknown field "tool".*body\.name is required/);
    const big = await mcp(TOKENS.worker, { name: 'github.merge_pull_request', arguments: { blob: 'x'.repeat(200 * 1024) } });
    expect(big.status).toBe(413);
    const bad = await call(s.url, 'POST', '/mcp/call', { token: TOKENS.worker, body: '{', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect((await call(s.url, 'POST', '/mcp/call', { json: { name: 'github.merge_pull_request' } })).status).toBe(401);
    expect(s.upstream.received).toHaveLength(0);
  });

  it('large argument values reach the executor (the policy is shown only small ones); only a recorded open run is passed on', async () => {
    const content = 'y'.repeat(5000);
    // A run nobody started is the agent's word only: the executor is not told it.
    const unrecorded = await mcp(TOKENS.bot, { name: 'github.create_issue', arguments: { title: 'x', body: content }, runId: 'run-nobody-started' });
    expect(unrecorded.status).toBe(200);
    const first = s.upstream.received[0]!;
    expect(JSON.parse(first.body).arguments.body).toBe(content);
    expect(first.headers['x-plangate-run']).toBeUndefined();
    expect(JSON.parse(first.body).runId).toBeUndefined();
    // A recorded open run of the seat is, in the header and the body.
    await s.pg.store.startRun({ id: 'run-bot-1', seat: '0xBOT', startedBy: 'host', startedAt: Date.now() - 1000, expiresAt: Date.now() + 60 * 60_000 });
    const r = await mcp(TOKENS.bot, { name: 'github.create_issue', arguments: { title: 'x' }, runId: 'run-bot-1' });
    expect(r.status).toBe(200);
    const got = s.upstream.received[1]!;
    expect(got.headers['x-plangate-run']).toBe('run-bot-1');
    expect(JSON.parse(got.body).runId).toBe('run-bot-1');
    // Nor a run named under plangate's own _meta key (the MCP gateway's): the rest of _meta goes on as it is.
    const meta = await mcp(TOKENS.bot, { name: 'github.create_issue', arguments: { title: 'x' }, _meta: { 'plangate/runId': 'run-of-another-seat', trace: 't-9' } });
    expect(meta.status).toBe(200);
    const sent = s.upstream.received[2]!;
    expect(JSON.parse(sent.body)._meta).toEqual({ trace: 't-9' });
    expect(sent.headers['x-plangate-run']).toBeUndefined();
    s.upstream.received.length = 0;
  });

  it('404 no_executor for an allowed tool nothing is configured for; 502 when the executor is down; 504 when it is too slow', async () => {
    const none = await mcp(TOKENS.worker, { name: 'docs.search', arguments: { q: 'a' } });
    expect(none.status).toBe(404);
    expect(none.json.error.code).toBe('no_executor');
    const down = await mcp(TOKENS.bot, { name: 'down.op' });
    expect(down.status).toBe(502);
    expect(down.json.error.code).toBe('upstream_failed');
    // Where the executors live is the operators' to know (the executors file), not the agent's.
    expect(down.json.error.message).toMatch(/^executor down\.op failed: ECONNREFUSED$/);
    s.upstream.answer = () => ({ status: 200, body: '{}', delayMs: 1000 });
    const slow = await mcp(TOKENS.bot, { name: 'slow.op' });
    expect(slow.status).toBe(504);
    expect(slow.json.error.code).toBe('upstream_timeout');
    expect(slow.text).not.toContain(new URL(s.upstream.url).host);
    s.upstream.answer = (r) => ({ status: 200, body: JSON.stringify({ ok: true, echo: JSON.parse(r.body) }) });
    s.upstream.received.length = 0;
  });

  it('409 read_guard:<tool> for a whole-file read over the ceiling; a ranged read goes through', async () => {
    const big = join(s.dir, 'big.log');
    writeFileSync(big, Buffer.alloc(2 * 1024 * 1024, 'x')); // the examples refuse whole-file reads over 1 MiB
    const whole = await mcp(TOKENS.mgr, { name: 'fs.read_file', arguments: { path: big } });
    expect(whole.status).toBe(409);
    expect(whole.json).toMatchObject({ allowed: false, check: 'read_guard', code: 'read_guard:fs.read_file', tool: 'fs.read_file', agent: '0xMGR' });
    expect(whole.json.message).toMatch(/search|part/);
    expect(s.upstream.received).toHaveLength(0);
    const ranged = await mcp(TOKENS.mgr, { name: 'fs.read_file', arguments: { path: big, offset: 0, limit: 100 } });
    expect(ranged.status).toBe(200);
    expect(s.upstream.received.map((r) => r.url)).toEqual(['/fs']);
    s.upstream.received.length = 0;
  });

  it('every refused attempt is one PlanRequiredBlocked event, without message bodies or tokens', async () => {
    const events = blocked();
    expect(events.map((e) => e['code'])).toEqual([
      'plan_required:github.merge_pull_request:none',
      'plan_required:github.create_issue:stale',
      'plan_required:wallet.propose_spend:none',
      'plan_required:wallet.propose_spend:stale', // the worker alone: only its stale run-7 plan
    ]);
    const text = JSON.stringify(events);
    expect(text).not.toContain('merge PR 12 after CI');
    for (const t of Object.values(TOKENS)) expect(text).not.toContain(t);
  });
});
