/**
 * Approving through MCP elicitation, with the SDK's Client over Streamable
 * HTTP in front of the real filesystem server: where the approvals rule
 * opts in (approvers.client) and the client declared elicitation, the
 * gateway asks the person at the client with a form naming the exact call.
 * Accepted, the call goes through once; declined, cancelled, a malformed
 * answer, an error or no answer in time leave the refusal and the request
 * pending for a separate approver. Without the opt-in or the capability,
 * nothing is asked. A seat's client never answers another seat's request.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { argsDigest } from '../../src/core/digest.js';
import { APPROVAL_FORM } from '../../src/adapters/mcp/elicit.js';
import { auditEvents, call, fsUpstream, httpHarness, makeWorld, RULES, textOf, type Harness, type World } from '../mcp/support.js';
import { readRootsOf } from '../../src/adapters/mcp/config.js';

const codeOf = (r: Awaited<ReturnType<typeof call>>): string | undefined => (r.structuredContent as { code?: string } | undefined)?.code;
const requestOf = (r: Awaited<ReturnType<typeof call>>): string | undefined => /approve request (\S+?)[;,. ]/.exec(textOf(r))?.[1];

const OPTED_IN = `${RULES}\napprovals:\n  workspace: { tools: [write_file], approvers: { client: true } }\n`;
const NOT_OPTED_IN = `${RULES}\napprovals:\n  workspace: { tools: [write_file] }\n`;
const ELICITATION = { elicitation: {} };

type Answer = (req: ElicitRequest) => ElicitResult | Promise<ElicitResult>;

/** A client for `seat` that answers each form with the next of `answers` (the last one again when they run out), and the forms it saw. */
async function answering(h: Harness, seat: string, answers: Answer[], capabilities: Record<string, unknown> = ELICITATION) {
  const seen: ElicitRequest['params'][] = [];
  const client: Client = await h.client(seat, { capabilities });
  if ('elicitation' in capabilities) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      seen.push(req.params);
      const next = answers[Math.min(seen.length, answers.length) - 1] as Answer;
      return await next(req);
    });
  }
  expect((await call(client, 'plangate_say', { body: 'write the release notes to notes.txt' })).isError).toBeFalsy();
  return { client, seen };
}

const approve: Answer = () => ({ action: 'accept', content: { approve: true } });
const decline: Answer = () => ({ action: 'decline' });

describe('approvals through MCP elicitation', () => {
  let h: Harness | undefined;
  let w: World;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  const open = async (rules: string, more: { clientApprovalTimeoutMs?: number } = {}) => {
    w = makeWorld(rules);
    const upstreams = [fsUpstream(w)];
    h = await httpHarness(w, upstreams, 100, readRootsOf(upstreams), {}, more);
    return h;
  };

  it('accepted at the client: the call goes through once, naming the exact call; the next identical call is refused used; changed arguments need a new approval', async () => {
    const h = await open(OPTED_IN);
    const { client, seen } = await answering(h, '0xWORKER', [approve, decline, approve, decline]);
    const target = join(w.files, 'notes.txt');
    const args = { path: target, content: 'v1.2: faster startup' };

    const through = await call(client, 'write_file', args);
    expect(through.isError, textOf(through)).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe(args.content);
    expect(seen).toHaveLength(1);
    const form = seen[0]!;
    expect(form.mode ?? 'form').toBe('form');
    expect((form as { requestedSchema: unknown }).requestedSchema).toEqual(APPROVAL_FORM);
    const [request] = await h.operator.gate.approvals.list();
    expect(request).toMatchObject({ status: 'used', decidedBy: 'client:0xWORKER', digest: argsDigest(args) });
    for (const part of ['Tool: write_file', 'Seat: 0xWORKER', 'Run: (none)', `Request: ${request!.id}`, `Digest (SHA-256 of the canonical arguments): ${argsDigest(args)}`, '"content": "v1.2: faster startup"']) {
      expect(form.message).toContain(part);
    }
    const granted = auditEvents(w).filter((e) => e.type === 'ApprovalGranted');
    expect(granted).toEqual([expect.objectContaining({ by: 'client:0xWORKER', approvalId: request!.id })]);
    expect(JSON.stringify(auditEvents(w))).not.toContain('faster startup');
    rmSync(target);

    // The same call again: the approval was used; a new request is asked about, and declined.
    const again = await call(client, 'write_file', args);
    expect(codeOf(again)).toBe('approval_required:write_file:used');
    expect(existsSync(target)).toBe(false);
    expect(seen).toHaveLength(2);

    // Approved at the client once more, then the arguments change: that is another call, with its own request.
    expect((await call(client, 'write_file', args)).isError).toBeFalsy();
    rmSync(target);
    const changed = await call(client, 'write_file', { ...args, content: 'v1.2: faster startup, fewer bugs' });
    expect(codeOf(changed)).toBe('approval_required:write_file:pending');
    expect(existsSync(target)).toBe(false);
    expect(seen).toHaveLength(4);
    expect(seen[3]!.message).toContain('fewer bugs');
    // The request the declined retry left pending was the one approved next; only the changed call's waits.
    expect(await h.operator.gate.approvals.list({ status: 'pending' })).toEqual([expect.objectContaining({ digest: argsDigest({ ...args, content: 'v1.2: faster startup, fewer bugs' }) })]);
  }, 60_000);

  it('declined at the client: the refusal stands, the request waits, and a separate approver can still approve it', async () => {
    const h = await open(OPTED_IN);
    const { client, seen } = await answering(h, '0xWORKER', [decline]);
    const target = join(w.files, 'notes.txt');
    const args = { path: target, content: 'v1.2' };
    const refused = await call(client, 'write_file', args);
    expect(codeOf(refused)).toBe('approval_required:write_file:pending');
    const id = requestOf(refused)!;
    expect(seen).toHaveLength(1);
    expect(existsSync(target)).toBe(false);
    expect(await h.operator.gate.approvals.get(id)).toMatchObject({ status: 'pending', decidedBy: null });

    await h.operator.gate.approvals.approve(id, { role: 'approver', name: 'ops-alice' });
    expect((await call(client, 'write_file', args)).isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('v1.2');
    expect(seen).toHaveLength(1); // a granted call asks no one
  }, 60_000);

  it('denied at the client: the request is denied with the reason, and the denial stands', async () => {
    const h = await open(OPTED_IN);
    const { client, seen } = await answering(h, '0xWORKER', [() => ({ action: 'accept', content: { approve: false, reason: 'not before the freeze' } })]);
    const args = { path: join(w.files, 'notes.txt'), content: 'v1.2' };
    const refused = await call(client, 'write_file', args);
    expect(codeOf(refused)).toBe('approval_required:write_file:denied');
    expect(await h.operator.gate.approvals.get(requestOf(refused)!)).toMatchObject({ status: 'denied', reason: 'not before the freeze', decidedBy: 'client:0xWORKER' });
    expect(codeOf(await call(client, 'write_file', args))).toBe('approval_required:write_file:denied');
    expect(seen).toHaveLength(1);
  }, 60_000);

  it('cancel, an answer that does not match the form, an error and no answer in time are no answer', async () => {
    const h = await open(OPTED_IN, { clientApprovalTimeoutMs: 300 });
    const never: Answer = () => new Promise(() => {});
    const { client, seen } = await answering(h, '0xWORKER', [
      () => ({ action: 'cancel' }),
      () => ({ action: 'accept', content: { approve: 'yes' } }),
      () => ({ action: 'accept', content: { approve: true, extra: 'x' } }),
      () => ({ action: 'accept' }),
      () => {
        throw new Error('the person closed the window');
      },
      never,
    ]);
    const args = { path: join(w.files, 'notes.txt'), content: 'v1.2' };
    let id: string | undefined;
    for (let i = 1; i <= 6; i++) {
      const refused = await call(client, 'write_file', args);
      expect(codeOf(refused), `answer ${i}`).toBe('approval_required:write_file:pending');
      id ??= requestOf(refused);
      expect(requestOf(refused)).toBe(id);
      expect(seen).toHaveLength(i);
    }
    expect(existsSync(args.path)).toBe(false);
    expect(await h.operator.gate.approvals.list()).toEqual([expect.objectContaining({ id, status: 'pending' })]);
    expect(auditEvents(w).filter((e) => e.type === 'ApprovalGranted' || e.type === 'ApprovalDenied')).toEqual([]);
  }, 60_000);

  it('without the rule\'s opt-in, or without the client\'s capability, nothing is asked: as without elicitation', async () => {
    let h = await open(NOT_OPTED_IN);
    const { client, seen } = await answering(h, '0xWORKER', [approve]);
    const args = { path: join(w.files, 'notes.txt'), content: 'v1.2' };
    expect(codeOf(await call(client, 'write_file', args))).toBe('approval_required:write_file:pending');
    expect(seen).toHaveLength(0);
    await h.close();

    h = await open(OPTED_IN);
    const plain = await answering(h, '0xWORKER', [approve], {});
    const refused = await call(plain.client, 'write_file', { path: join(w.files, 'notes.txt'), content: 'v1.2' });
    expect(codeOf(refused)).toBe('approval_required:write_file:pending');
    expect(existsSync(join(w.files, 'notes.txt'))).toBe(false);
  }, 60_000);

  it('a seat\'s client cannot grant another seat\'s request, even for the same call', async () => {
    const h = await open(OPTED_IN);
    const worker = await answering(h, '0xWORKER', [decline]);
    const other = await answering(h, '0xOTHER', [approve]);
    const args = { path: join(w.files, 'notes.txt'), content: 'v1.2' };
    const refused = await call(worker.client, 'write_file', args);
    const id = requestOf(refused)!;

    // 0xOTHER's person approves 0xOTHER's own request for the same arguments: only that one.
    expect((await call(other.client, 'write_file', args)).isError).toBeFalsy();
    expect(other.seen[0]!.message).toContain('Seat: 0xOTHER');
    expect(other.seen[0]!.message).not.toContain(id);
    expect(await h.operator.gate.approvals.get(id)).toMatchObject({ status: 'pending', seat: '0xWORKER' });
    rmSync(args.path);
    const still = await call(worker.client, 'write_file', args);
    expect(codeOf(still)).toBe('approval_required:write_file:pending');
    expect(requestOf(still)).toBe(id);
    expect(existsSync(args.path)).toBe(false);
  }, 60_000);
});
