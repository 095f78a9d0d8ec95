/**
 * Asking the person at the agent's own MCP client to approve the very call
 * that was refused, through MCP elicitation in form mode (MCP specification
 * 2025-11-25, client/elicitation: `elicitation/create` with a `message` and a
 * flat `requestedSchema`; the client answers `accept` with `content`,
 * `decline` or `cancel`). Sent with the SDK server's `elicitInput`, related
 * to the client's `tools/call`, so it travels on that request's stream.
 *
 * Only where the client declared form-mode elicitation at initialize, and
 * only when the pipeline asks (the policy's `atClient`, gate/client-approval.ts).
 * The form names the exact call: tool, seat, run, request, digest, the plan
 * that counted, and the arguments pretty-printed. An answer that is not
 * `accept` with content matching the form (approve a boolean, an optional
 * reason of bounded length, nothing else) is no answer: the refusal stands.
 */
import type { ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';
import type { Approval, ClientAnswer } from '../../core/approvals.js';
import type { Decision } from '../../core/types.js';
import { MAX_APPROVAL_REASON } from '../../facts/approvals.js';
import type { AskClient } from '../../gate/client-approval.js';
import { printable } from '../cli/printable.js';
import type { Extra, GatewaySession } from './session.js';

/** How long the gateway waits for the person at the client to answer the form. */
export const CLIENT_APPROVAL_TIMEOUT_MS = 300_000;

/**
 * The most characters of pretty-printed arguments the form shows. A call
 * with more is not put to the client at all (the person must read the whole
 * call they approve): a separate approver answers it.
 */
export const MAX_ELICITED_ARGS_CHARS = 16_384;

/** The form: approve yes or no, and an optional reason. */
export const APPROVAL_FORM: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    approve: { type: 'boolean', title: 'Approve this exact call', description: 'Yes lets this one call through once; no denies it.' },
    reason: { type: 'string', title: 'Reason', description: 'Recorded with your answer (optional).', maxLength: MAX_APPROVAL_REASON },
  },
  required: ['approve'],
};

/**
 * The asker for one `tools/call`, or undefined where the client cannot be
 * asked: it declared no form-mode elicitation, or the call is task-augmented
 * (its answer is a task, not a wait for a person).
 */
export function clientAsker(session: GatewaySession, extra: Extra, task: unknown, timeoutMs = CLIENT_APPROVAL_TIMEOUT_MS): AskClient | undefined {
  if (task !== undefined || !session.server.getClientCapabilities()?.elicitation?.form) return undefined;
  return async (request, decision) => {
    const message = approvalMessage(request, decision);
    if (message === undefined) return undefined;
    const result = await session.server.elicitInput(
      { mode: 'form', message, requestedSchema: APPROVAL_FORM },
      { relatedRequestId: extra.requestId, signal: extra.signal, timeout: timeoutMs },
    );
    return result.action === 'accept' ? formAnswer(result.content) : undefined;
  };
}

/**
 * The answer in an accepted form's content, or undefined when it does not
 * match the form.
 *
 * @example
 * formAnswer({ approve: 'yes' }) // undefined
 */
export function formAnswer(content: Record<string, unknown> | undefined): ClientAnswer | undefined {
  if (!content || typeof content.approve !== 'boolean') return undefined;
  if (Object.keys(content).some((k) => k !== 'approve' && k !== 'reason')) return undefined;
  const reason = content.reason;
  if (reason !== undefined && (typeof reason !== 'string' || reason.length > MAX_APPROVAL_REASON)) return undefined;
  return { approve: content.approve, ...(reason !== undefined ? { reason } : {}) };
}

/**
 * What the person at the client reads: the exact call, its arguments
 * pretty-printed (control and bidirectional characters spelled out), and
 * what each answer does; undefined when the arguments are too long to show.
 */
export function approvalMessage(request: Approval, decision: Decision): string | undefined {
  const args = JSON.stringify(request.args, null, 2).split('\n').map(printable).join('\n');
  if (args.length > MAX_ELICITED_ARGS_CHARS) return undefined;
  return [
    `plangate: ${printable(request.seat)} asks to run ${printable(request.tool)}, which needs a person's approval of this exact call.`,
    '',
    `Tool: ${printable(request.tool)}`,
    `Seat: ${printable(request.seat)}`,
    `Run: ${request.runId === null ? '(none)' : printable(request.runId)}`,
    `Request: ${request.id}`,
    `Digest (SHA-256 of the canonical arguments): ${request.digest}`,
    `Plan that counted: ${request.planId ?? '(none)'}`,
    'Arguments:',
    args,
    '',
    `Approve: this call, with exactly these arguments, goes through once (within ${decision.approval?.windowMin ?? request.windowMin} minutes). ` +
      'Deny: the request is denied, with your reason. Decline or cancel: nothing is recorded, and the request waits for a separate approver.',
  ].join('\n');
}
