/**
 * What an agent is told when plangate decided without its policy or its
 * store: the cause, in plangate's words, on every surface an agent reads (a
 * refusal's body and message, a decision over HTTP, a hook's answer). The
 * failure's own text (a database's address, a rule file's path) stays with
 * the operator.
 */
import { describe, expect, it } from 'vitest';
import { decisionForSeat } from '../../src/adapters/http/disclosure.js';
import { refusalBody } from '../../src/adapters/http/refusal.js';
import { answerFor } from '../../src/adapters/hook/pretooluse.js';
import { heldWhileFailing, unreadHoldsWhileFailing } from '../../src/core/failclosed.js';
import { failOpenDecision, FAILURE_SHOWN_TO_AGENTS } from '../../src/core/failopen.js';

const call = { agent: '0xWORKER', tool: 'github.merge_pull_request', agentKnown: true };
const secret = 'the store failed while gathering the facts: postgres store: the database at db.internal:5432 cannot be reached (password authentication failed for user "plangate")';
const hold = { id: '7', kind: 'on_demand' as const };

describe('a failure as an agent sees it', () => {
  it('a held agent refused while the store fails: the message and the body name the cause only', () => {
    const refused = heldWhileFailing(call, hold, 'plangate_submit_plan', { cause: 'store', reason: secret });
    expect(refused.failClosed).toEqual({ cause: 'store', reason: secret }); // the operator's (audit, log)
    const body = refusalBody(refused);
    expect(body.failClosed).toEqual({ cause: 'store', reason: FAILURE_SHOWN_TO_AGENTS.store });
    expect(body.message).toContain(FAILURE_SHOWN_TO_AGENTS.store);
    expect(JSON.stringify(body)).not.toMatch(/db\.internal|password|postgres/);
  });

  it('any agent refused while no hold has been read: the message does not repeat the store error', () => {
    const refused = unreadHoldsWhileFailing(call, secret);
    expect(refused.failClosed?.reason).toContain('db.internal');
    expect(JSON.stringify(refusalBody(refused))).not.toMatch(/db\.internal|password/);
  });

  it('a decision over HTTP: failOpen and failClosed carry the cause and its words', () => {
    const open = decisionForSeat('0xWORKER', failOpenDecision(call, { cause: 'policy', reason: 'rules/plan.yaml:3:9: invalid YAML' }));
    expect(open.failOpen).toEqual({ cause: 'policy', reason: "plangate's rules or policy cannot be read" });
    const closed = decisionForSeat('0xWORKER', heldWhileFailing(call, hold, 'plangate_submit_plan', { cause: 'store', reason: secret }));
    expect(closed.failClosed).toEqual({ cause: 'store', reason: "plangate's store is failing" });
    expect(JSON.stringify(closed)).not.toContain('db.internal');
  });

  it("a hook's answer: a refusal's reason is its message, an allowed fail-open call's note its cause", () => {
    const denied = answerFor(heldWhileFailing(call, hold, 'plangate_submit_plan', { cause: 'store', reason: secret }), {});
    expect(JSON.stringify(denied)).not.toContain('db.internal');
    const allowed = answerFor(failOpenDecision(call, { cause: 'store', reason: secret }), { grant: true }) as { hookSpecificOutput: { permissionDecisionReason: string } };
    expect(allowed.hookSpecificOutput.permissionDecisionReason).toBe("plangate failed open: plangate's store is failing");
  });
});
