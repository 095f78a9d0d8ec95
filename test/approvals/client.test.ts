/**
 * The person at the agent's own client as an approver, below the MCP
 * protocol: the rule's opt-in (`approvers.client`) as the rule files and the
 * policy read it, the desk answering only the request of the very call it
 * was asked about, and the tool-call pipeline asking only where the policy
 * says so, then deciding the same call once more.
 */
import { describe, expect, it } from 'vitest';
import { CLIENT_DENIAL_REASON } from '../../src/core/approvals.js';
import { argsDigest } from '../../src/core/digest.js';
import type { Decision } from '../../src/core/types.js';
import { checkRules, compileRules } from '../../src/rules/load.js';
import { runToolCall, type CallOutcome } from '../../src/gate/tool-call.js';
import type { AskClient } from '../../src/gate/client-approval.js';
import { planningWorld, type PlanningWorld } from '../planning/support.js';

const MERGE = 'github.merge_pull_request';
const OPTED_IN = `approvals: { workspace: { tools: [${MERGE}], approvers: { client: true } } }\n`;
const NOT_OPTED_IN = `approvals: { workspace: { tools: [${MERGE}] } }\n`;
const args = { repo: 'acme/site', pr: 12 };

/** Runs one merge call through the pipeline with `ask` as the client port; what ran upstream and how the call was counted. */
async function run(w: PlanningWorld, ask: AskClient | undefined, seat = '0xWORKER', callArgs: Record<string, unknown> = args) {
  const forwarded: Decision[] = [];
  const counted: CallOutcome[] = [];
  type Outcome = { refused?: string; own?: true; ran?: true };
  const result = await runToolCall<Outcome>(
    { gate: w.gate, approvals: w.gate.approvals, count: (_tool, outcome) => counted.push(outcome) },
    { seat, tool: MERGE, args: callArgs },
    {
      refuse: (r) => ({ refused: r.code }),
      own: () => ({ own: true as const }),
      forward: (d) => {
        forwarded.push(d);
        return { ran: true as const };
      },
      ...(ask ? { askClient: ask } : {}),
    },
  );
  return { result, forwarded, counted };
}

describe('approvers.client in the rule files', () => {
  it('is a boolean, reported with file:line:col otherwise; set alone it keeps the approver role', async () => {
    const bad = checkRules([{ file: 'a.yaml', text: `approvals:\n  workspace:\n    tools: [x.y]\n    approvers: { client: "true" }\n` }]);
    expect(bad.data).toBeUndefined();
    const text = bad.problems.map((p) => `${p.file}:${p.line}:${p.col}: ${p.message}`).join('\n');
    expect(text).toContain(`a.yaml:4:26: approvals.workspace.approvers.client: must be true or false (got "true")`);

    const data = compileRules([{ file: 'a.yaml', text: OPTED_IN }]).data;
    expect(data.approvals?.workspace?.approvers).toEqual({ client: true });
    const w = await planningWorld(OPTED_IN);
    const d = await w.gate.decide({ agent: '0xWORKER', tool: MERGE, args });
    expect(d.approval).toMatchObject({ status: 'pending', atClient: true, approvers: { roles: ['approver'], names: [] } });
    // Named approvers beside it are kept as before: names alone name no role.
    const named = await planningWorld(`approvals: { workspace: { tools: [${MERGE}], approvers: { client: true, names: [ops-alice] } } }\n`);
    expect((await named.gate.decide({ agent: '0xWORKER', tool: MERGE, args })).approval).toMatchObject({ atClient: true, approvers: { roles: [], names: ['ops-alice'] } });
    // Without the key, the client may not answer.
    const plain = await planningWorld(NOT_OPTED_IN);
    expect((await plain.gate.decide({ agent: '0xWORKER', tool: MERGE, args })).approval).toMatchObject({ status: 'pending', atClient: false });
  });
});

describe('the desk answering at the client', () => {
  it('grants only the request of that very call, recorded as client:<seat>; a denial without a reason gets the default', async () => {
    const w = await planningWorld(OPTED_IN);
    const mine = (await w.gate.decide({ agent: '0xWORKER', tool: MERGE, args })).approval!.request;
    const theirs = (await w.gate.decide({ agent: '0xOPS', tool: MERGE, args })).approval!.request;
    const call = { seat: '0xWORKER', tool: MERGE, runId: null, digest: argsDigest(args) };

    // Another seat's request, though the call is the same: forbidden, nothing answered.
    await expect(w.gate.approvals.answerAtClient(theirs, call, { approve: true })).rejects.toMatchObject({ code: 'not_approver' });
    // Another call's digest or run: forbidden.
    await expect(w.gate.approvals.answerAtClient(mine, { ...call, digest: argsDigest({ ...args, pr: 13 }) }, { approve: true })).rejects.toMatchObject({ code: 'not_approver' });
    await expect(w.gate.approvals.answerAtClient(mine, { ...call, runId: 'run-1' }, { approve: true })).rejects.toMatchObject({ code: 'not_approver' });
    expect((await w.store.getApproval(theirs))!.status).toBe('pending');
    expect((await w.store.getApproval(mine))!.status).toBe('pending');

    expect(await w.gate.approvals.answerAtClient(mine, call, { approve: true })).toMatchObject({ status: 'granted', decidedBy: 'client:0xWORKER' });
    expect(w.audit.events.at(-1)).toMatchObject({ type: 'ApprovalGranted', by: 'client:0xWORKER', approvalId: mine });
    // No longer pending: a second answer is a conflict.
    await expect(w.gate.approvals.answerAtClient(mine, call, { approve: false })).rejects.toMatchObject({ code: 'conflict' });

    const opsCall = { ...call, seat: '0xOPS' };
    expect(await w.gate.approvals.answerAtClient(theirs, opsCall, { approve: false, reason: '  ' })).toMatchObject({ status: 'denied', reason: CLIENT_DENIAL_REASON, decidedBy: 'client:0xOPS' });
  });
});

describe('the pipeline asking the client', () => {
  it('asks where the rule opts in; a grant lets the same call through once, counted once', async () => {
    const w = await planningWorld(OPTED_IN);
    const asked: string[] = [];
    const ask: AskClient = async (request) => {
      asked.push(request.id);
      return { approve: true };
    };
    const first = await run(w, ask);
    expect(first.result).toEqual({ ran: true });
    expect(first.forwarded).toHaveLength(1);
    expect(first.forwarded[0]!.approval).toMatchObject({ status: 'granted', request: asked[0] });
    expect(first.counted).toEqual(['allowed']);
    expect((await w.store.getApproval(asked[0]!))!.status).toBe('used');
    expect(w.audit.events.map((e) => e.type)).toEqual(['ApprovalRequested', 'ApprovalGranted', 'ApprovalUsed']);

    // The next identical call opens a new request (the approval was used), and the client is asked anew.
    const declined = await run(w, async (request) => {
      asked.push(request.id);
      return undefined;
    });
    expect(declined.result).toEqual({ refused: `approval_required:${MERGE}:used` });
    expect(declined.forwarded).toHaveLength(0);
    expect(asked).toHaveLength(2);
    expect((await w.store.getApproval(asked[1]!))!.status).toBe('pending');
  });

  it('never asks without the opt-in, for a denial, or without the port; a failing ask leaves the refusal', async () => {
    const plain = await planningWorld(NOT_OPTED_IN);
    let asked = 0;
    const ask: AskClient = async () => {
      asked++;
      return { approve: true };
    };
    expect((await run(plain, ask)).result).toEqual({ refused: `approval_required:${MERGE}:pending` });
    expect(asked).toBe(0);

    const w = await planningWorld(OPTED_IN);
    expect((await run(w, undefined)).result).toEqual({ refused: `approval_required:${MERGE}:pending` });
    const failing = await run(w, async () => {
      throw new Error('the client went away');
    });
    expect(failing.result).toEqual({ refused: `approval_required:${MERGE}:pending` });
    expect(failing.counted).toEqual(['refused']);

    // Denied at the client: the call is decided again and refused denied; the denial stands, so no more asking.
    const denied = await run(w, async () => ({ approve: false, reason: 'not before the freeze ends' }));
    expect(denied.result).toEqual({ refused: `approval_required:${MERGE}:denied` });
    const [request] = await w.store.listApprovals();
    expect(request).toMatchObject({ status: 'denied', reason: 'not before the freeze ends', decidedBy: 'client:0xWORKER' });
    expect((await run(w, ask)).result).toEqual({ refused: `approval_required:${MERGE}:denied` });
    expect(asked).toBe(0);
  });
});
