/**
 * The human gate over HTTP, end to end on a served plangate: POST /mcp/call
 * refused 409 approval_required:<tool>:pending with the request's id, an
 * approver grants it, the same call goes through once (the executor called
 * once), a second identical call is refused `used`, changed arguments are
 * refused `pending` with a new request. An agent token never answers a
 * request, not even another seat's; a deny needs a reason.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenSet } from '../../src/adapters/http/auth.js';
import { call, serve, TOKEN_ENTRIES, TOKENS, type Served } from '../http/support.js';

const APPROVER = 'approver-token-0123456789abcdef';
const MERGE = 'github.merge_pull_request';
let s: Served;

beforeAll(async () => {
  s = await serve({
    prepare: (dir) => writeFileSync(join(dir, 'approvals.yaml'), `approvals: { workspace: { tools: [${MERGE}], approvers: { roles: [approver], names: [rev-ann] } } }\n`),
    app: { tokens: createTokenSet([...TOKEN_ENTRIES, { role: 'approver', name: 'ops-alice', token: APPROVER }]) },
  });
});
afterAll(async () => {
  await s?.close();
});

// 0xBOT is carved out of plan-required in the example rules: only the human gate decides.
const merge = (args: unknown, token: string = TOKENS.bot) => call(s.url, 'POST', '/mcp/call', { token, json: { name: MERGE, arguments: args } });

describe('approvals over HTTP', () => {
  it('refused pending → approved → goes through once → used → changed arguments pending with a new request', async () => {
    const args = { repo: 'acme/site', pr: 12, note: 'CANARY-http-4471' };
    const first = await merge(args);
    expect(first.status).toBe(409);
    expect(first.json).toMatchObject({ check: 'approval', code: `approval_required:${MERGE}:pending`, approval: { status: 'pending' } });
    const id = first.json.approval.request as string;
    expect(first.json.message).toContain(`approve request ${id}`);
    expect(s.upstream.received).toHaveLength(0);
    // The retry, keys in another order, joins the request.
    expect((await merge({ note: args.note, pr: 12, repo: 'acme/site' })).json.approval.request).toBe(id);

    const queue = await call(s.url, 'GET', '/v1/approvals?status=pending', { token: APPROVER });
    expect(queue.status).toBe(200);
    expect(queue.json.approvals).toEqual([expect.objectContaining({ id, seat: '0xBOT', tool: MERGE, args, status: 'pending' })]);
    expect((await call(s.url, 'GET', `/v1/approvals/${id}`, { token: TOKENS.operator })).json.approval.args).toEqual(args);

    const ok = await call(s.url, 'POST', `/v1/approvals/${id}/approve`, { token: APPROVER });
    expect(ok.status).toBe(200);
    expect(ok.json.approval).toMatchObject({ status: 'granted', decidedBy: 'ops-alice' });
    expect((await call(s.url, 'POST', `/v1/approvals/${id}/approve`, { token: APPROVER })).status).toBe(409);

    const through = await merge(args);
    expect(through.status).toBe(200);
    expect(s.upstream.received).toHaveLength(1);
    const used = await merge(args);
    expect(used.status).toBe(409);
    expect(used.json.code).toBe(`approval_required:${MERGE}:used`);
    expect(s.upstream.received).toHaveLength(1);

    const changed = await merge({ ...args, pr: 13 });
    expect(changed.json.code).toBe(`approval_required:${MERGE}:pending`);
    expect(changed.json.approval.request).not.toBe(id);
    expect(changed.json.approval.request).not.toBe(used.json.approval.request);

    const events = s.audit().filter((e) => String(e['type']).startsWith('Approval'));
    expect(events.map((e) => e['type'])).toEqual(['ApprovalRequested', 'ApprovalGranted', 'ApprovalUsed', 'ApprovalRequested', 'ApprovalRequested']);
    expect(JSON.stringify(s.audit())).not.toContain('CANARY');
    expect(s.audit().some((e) => e['type'] === 'PlanRequiredBlocked' && String(e['code']).startsWith('approval'))).toBe(false);
  });

  it('an agent token never answers a request, not even another seat’s; a deny needs a reason; the rule names who may approve', async () => {
    const id = (await merge({ pr: 99 })).json.approval.request as string;
    for (const token of [TOKENS.bot, TOKENS.worker]) {
      expect((await call(s.url, 'POST', `/v1/approvals/${id}/approve`, { token })).status).toBe(403);
      expect((await call(s.url, 'POST', `/v1/approvals/${id}/deny`, { token, json: { reason: 'x' } })).status).toBe(403);
      expect((await call(s.url, 'GET', '/v1/approvals', { token })).status).toBe(403);
    }
    // An orchestrator is not among the approvers; the reviewer rev-ann is named by the rule.
    expect((await call(s.url, 'POST', `/v1/approvals/${id}/approve`, { token: TOKENS.orchestrator })).status).toBe(403);
    expect((await call(s.url, 'POST', `/v1/approvals/${id}/deny`, { token: TOKENS.reviewer, json: {} })).status).toBe(400);
    expect((await call(s.url, 'POST', `/v1/approvals/${id}/deny`, { token: TOKENS.reviewer, json: { reason: '   ' } })).status).toBe(400);
    const denied = await call(s.url, 'POST', `/v1/approvals/${id}/deny`, { token: TOKENS.reviewer, json: { reason: 'not this PR' } });
    expect(denied.json.approval).toMatchObject({ status: 'denied', decidedBy: 'rev-ann', reason: 'not this PR' });
    expect((await merge({ pr: 99 })).json.code).toBe(`approval_required:${MERGE}:denied`);
    expect((await call(s.url, 'GET', '/v1/approvals/nope', { token: APPROVER })).status).toBe(404);
    expect((await call(s.url, 'GET', '/v1/approvals?status=bogus', { token: APPROVER })).status).toBe(400);
    expect((await call(s.url, 'POST', `/v1/approvals/${id}/approve`, { token: APPROVER, json: { by: 'someone' } })).status).toBe(400);
  });
});
