/**
 * The person at the agent's own client answers a request: where the policy
 * says they may (the verdict's `atClient`: the approvals rule opts in with
 * `approvers.client: true`, and the request is open or pending), the
 * adapter asks them about the very call that was refused (MCP elicitation,
 * adapters/mcp/elicit.ts), and their answer is recorded on that call's
 * request as `client:<seat>`. The refused call is then decided once more by
 * the caller. No answer, an unusable one, or any failure leaves the refusal
 * as it was and the request pending for a separate approver: asking the
 * client never lets a call through on its own.
 */
import type { Approval, ClientAnswer } from '../core/approvals.js';
import { argsDigest } from '../core/digest.js';
import type { Decision } from '../core/types.js';
import type { ApprovalDesk } from './approvals.js';

/** What asking the client needs: the desk that reads and answers requests. */
export type ClientDesk = Pick<ApprovalDesk, 'get' | 'answerAtClient'>;

/** Asks the person at the client about one request; undefined when there is no usable answer. */
export type AskClient = (request: Approval, decision: Decision) => Promise<ClientAnswer | undefined>;

/**
 * Whether the refused call's request was answered at the client (granted or
 * denied): then the caller decides the call again, once.
 *
 * @example
 * if (await answeredAtClient(desk, call, decision, ask)) decision = await gate.decide(call);
 */
export async function answeredAtClient(
  desk: ClientDesk,
  call: { seat: string; tool: string; runId?: string; args?: Record<string, unknown> },
  decision: Decision,
  ask: AskClient,
): Promise<boolean> {
  const verdict = decision.approval;
  if (decision.allowed || decision.check !== 'approval' || decision.failClosed || verdict?.atClient !== true) return false;
  if (verdict.status !== 'pending' && verdict.status !== 'expired' && verdict.status !== 'used') return false;
  const digest = argsDigest(call.args);
  const runId = call.runId ?? null;
  let request: Approval;
  try {
    request = await desk.get(verdict.request);
  } catch {
    return false;
  }
  // Only the pending request of this very call: the seat's own, as the gateway knows it.
  if (request.status !== 'pending' || request.seat !== call.seat || request.tool !== call.tool || request.runId !== runId || request.digest !== digest) return false;
  let answer: ClientAnswer | undefined;
  try {
    answer = await ask(request, decision);
  } catch {
    return false;
  }
  if (!answer) return false;
  try {
    await desk.answerAtClient(request.id, { seat: call.seat, tool: call.tool, runId, digest }, answer);
    return true;
  } catch {
    return false; // answered meanwhile by an approver or another attempt, or the store failed: the refusal stands
  }
}
