/**
 * The approver reads the plan that counted, not only its id: `GET
 * /v1/approvals/:id` answers its text to an approver or an operator, never
 * to an agent token (403, the text nowhere in the answer); the text is the
 * agent's, as written (markup and invisible characters included, for the
 * reader to show as text); a plan pruned by retention reads as pruned, not
 * as an error; a request without a plan has none.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenSet } from '../../src/adapters/http/auth.js';
import { DEFAULT_RETENTION } from '../../src/facts/retention.js';
import { pruneOnce } from '../../src/main/retention.js';
import { call, serve, TOKEN_ENTRIES, TOKENS, type Served } from '../http/support.js';

const APPROVER = 'approver-token-plan-0123456789abcdef';
const MERGE = 'github.merge_pull_request';
const DAY = 24 * 60 * 60 * 1000;
const PLAN = 'Merge PR 12 once CI is green.\n<img src=x onerror="window.pwned=1"> CANARY-plan-5521\u202Egnp.exe';
let now = Date.UTC(2026, 5, 1, 12);
let s: Served;

beforeAll(async () => {
  s = await serve({
    clock: () => now,
    prepare: (dir) => writeFileSync(join(dir, 'approvals.yaml'), `approvals: { workspace: { tools: [${MERGE}] } }\n`),
    app: { tokens: createTokenSet([...TOKEN_ENTRIES, { role: 'approver', name: 'ops-alice', token: APPROVER }]) },
  });
});
afterAll(async () => {
  await s?.close();
});

const merge = (token: string, args: unknown) => call(s.url, 'POST', '/mcp/call', { token, json: { name: MERGE, arguments: args } });
const read = (id: string, token: string) => call(s.url, 'GET', `/v1/approvals/${id}`, { token });

describe('the plan that counted, for the approver', () => {
  it('is read with the request by an approver or an operator, never by an agent; once pruned it reads as pruned', async () => {
    const said = await call(s.url, 'POST', '/v1/say', { token: TOKENS.worker, json: { thread: 'agent:0xWORKER', kind: 'plan', body: PLAN } });
    expect(said.status).toBe(201);
    const refused = await merge(TOKENS.worker, { repo: 'acme/site', pr: 12 });
    expect(refused.json).toMatchObject({ check: 'approval', code: `approval_required:${MERGE}:pending` });
    const id = refused.json.approval.request as string;

    for (const token of [APPROVER, TOKENS.operator, TOKENS.reviewer]) {
      const shown = await read(id, token);
      expect(shown.status).toBe(200);
      expect(shown.json.approval.planId).toBe(said.json.id);
      expect(shown.json.plan).toEqual({
        id: said.json.id, pruned: false, thread: 'agent:0xWORKER', author: '0xWORKER', authorKind: 'agent', kind: 'plan', at: now, body: PLAN,
      });
    }
    // An agent's token, the requesting seat's own or another's, reads neither the request nor its plan.
    for (const token of [TOKENS.worker, TOKENS.bot]) {
      const denied = await read(id, token);
      expect(denied.status).toBe(403);
      expect(denied.text).not.toContain('CANARY-plan');
    }
    // The plan's text is never in the queue nor in the audit.
    expect((await call(s.url, 'GET', '/v1/approvals/queue', { token: APPROVER })).text).not.toContain('CANARY-plan');
    expect(JSON.stringify(s.audit())).not.toContain('CANARY-plan');

    // 0xBOT is carved out of plan-required: its request names no plan.
    const bot = (await merge(TOKENS.bot, { pr: 7 })).json.approval.request as string;
    expect((await read(bot, APPROVER)).json).toMatchObject({ approval: { planId: null }, plan: null });

    // Forty days on, retention prunes the plan (messages, 30 days); the request is still pending and reads.
    now += 40 * DAY;
    const pruned = await pruneOnce(s.pg, DEFAULT_RETENTION, { now });
    expect(pruned.messages).toBeGreaterThanOrEqual(1);
    const after = await read(id, APPROVER);
    expect(after.status).toBe(200);
    expect(after.json.approval.status).toBe('pending');
    expect(after.json.plan).toEqual({ id: said.json.id, pruned: true });
  });
});
