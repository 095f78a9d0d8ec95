/**
 * plangate's own tools, answered by the gateway and never gated:
 * `plangate_say` posts a message on the record (a plan unless `kind` says
 * otherwise), and the reviewer channel (`plangate_submit_plan` unless the
 * rules name another) sends a held seat's plan to its reviewer.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { PlangateError, storeErrorShown, toError } from '../../core/errors.js';
import { agentThread } from '../../core/threads.js';
import type { Gate } from '../../gate/gate.js';
import { errorResult } from './results.js';
import { SAY_TOOL } from './names.js';

/** What the own tools need from plangate. */
export interface OwnToolDeps {
  gate: Pick<Gate, 'sayAsAgent' | 'holds'>;
  /** The threads a seat speaks in: its own, its crews' up the chain, the org's. */
  threadsFor(agent: string): Promise<string[]>;
  /** The operator's log: a store error's own message goes here, never to the client. */
  log?(line: string): void;
}

/**
 * The tool error for a refused or failed post: the error's own message,
 * except a store error's, which the client is told in its code's words (the
 * message goes to the operator's log).
 */
function failed(deps: OwnToolDeps, tool: string, agent: string, error: PlangateError): CallToolResult {
  const shown = storeErrorShown(error);
  if (shown !== undefined) deps.log?.(`plangate mcp: ${error.code} in ${tool} for ${agent}: ${error.message}`);
  return errorResult(shown ?? error.message, { check: 'plangate', code: error.code, reason: error.code });
}

const NOT_GATED = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;

/** Message kinds: a short lowercase word. */
const KIND = /^[a-z][a-z0-9_-]{0,31}$/;

/** Longest message body, in characters. */
export const MAX_BODY_CHARS = 16_384;

/**
 * The tool list entries of plangate's own tools for a seat whose reviewer channel is `channel`.
 *
 * @example
 * ownTools('plangate_submit_plan').map((t) => t.name) // ['plangate_say', 'plangate_submit_plan']
 */
export function ownTools(channel: string): Tool[] {
  return [
    {
      name: SAY_TOOL,
      title: 'Say what you are about to do',
      description: 'Post a message on the record. Before a side effect, post a plan (the default kind) saying what you are about to do and why; '
        + 'a gated call goes ahead only after your plan. Posts to your own thread unless `thread` names another you speak in '
        + '(crew:<your crew>, a crew above it, or org). A plan approves nothing: every other check still applies.',
      inputSchema: {
        type: 'object',
        properties: {
          body: { type: 'string', description: 'What you are about to do, in your own words.' },
          kind: { type: 'string', description: 'plan (the default), note, or another word.', default: 'plan' },
          thread: { type: 'string', description: 'agent:<you> (the default), crew:<id> or org.' },
        },
        required: ['body'],
      },
      annotations: NOT_GATED,
    },
    {
      name: channel,
      title: 'Send your plan to the reviewer',
      description: 'While you are on a planning hold, send your plan here: how you mean to approach the work and which reads, searches and tools '
        + 'you expect to use. You stay on hold until the reviewer releases you; a push-back arrives in your thread.',
      inputSchema: {
        type: 'object',
        properties: { plan: { type: 'string', description: 'Your plan for the task.' } },
        required: ['plan'],
      },
      annotations: NOT_GATED,
    },
  ];
}

function text(args: Record<string, unknown>, key: string): string | undefined {
  const v = args[key];
  return typeof v === 'string' ? v : undefined;
}

function invalid(message: string): CallToolResult {
  return errorResult(message, { check: 'plangate', code: 'invalid_arguments', reason: 'invalid_arguments' });
}

/**
 * `plangate_say`: posts as the seat, in a thread it speaks in, tagged with the call's run.
 *
 * @example
 * await say(deps, '0xWORKER', { body: 'write notes.txt with the summary' }, 'run-7')
 */
export async function say(deps: OwnToolDeps, agent: string, args: Record<string, unknown>, runId: string | undefined): Promise<CallToolResult> {
  const body = text(args, 'body');
  const kind = args['kind'] === undefined ? 'plan' : text(args, 'kind');
  const thread = args['thread'] === undefined ? agentThread(agent) : text(args, 'thread');
  if (body === undefined || body.trim() === '') return invalid('plangate_say needs `body`: what you are about to do, as text.');
  if (body.length > MAX_BODY_CHARS) return invalid(`plangate_say: \`body\` is ${body.length} characters, more than ${MAX_BODY_CHARS}; say it shorter.`);
  if (kind === undefined || !KIND.test(kind)) return invalid('plangate_say: `kind` is a short lowercase word such as plan or note.');
  const threads = await deps.threadsFor(agent);
  if (thread === undefined || !threads.includes(thread)) {
    return invalid(`plangate_say: you speak in ${threads.join(', ')}; ${JSON.stringify(thread)} is not one of them.`);
  }
  let m;
  try {
    // The gate checks again where the seat speaks, refuses the reviewer's and the system's kinds, and stamps the time.
    m = await deps.gate.sayAsAgent({ thread, author: agent, kind, body, ...(runId !== undefined ? { runId } : {}) });
  } catch (error) {
    if (error instanceof PlangateError) return failed(deps, SAY_TOOL, agent, error);
    throw toError(error);
  }
  const tag = m.runId !== undefined ? `, run ${m.runId}` : '';
  return {
    content: [{ type: 'text', text: `Posted ${m.kind} #${m.id} to ${m.thread}${tag}. Now go ahead with what it says.` }],
    structuredContent: { id: m.id, thread: m.thread, kind: m.kind, at: new Date(m.at).toISOString(), ...(m.runId !== undefined ? { runId: m.runId } : {}) },
  };
}

/**
 * The reviewer channel: records the plan on the seat's active hold.
 *
 * @example
 * await submitPlan(deps, '0xWORKER', { plan: 'Add an API-key branch; two callers change' }, undefined)
 */
export async function submitPlan(deps: OwnToolDeps, agent: string, args: Record<string, unknown>, runId: string | undefined): Promise<CallToolResult> {
  const plan = text(args, 'plan') ?? text(args, 'body');
  if (plan === undefined || plan.trim() === '') return invalid('the reviewer channel takes your plan as the text argument `plan`.');
  if (plan.length > MAX_BODY_CHARS) return invalid(`the plan is ${plan.length} characters, more than ${MAX_BODY_CHARS}; send it shorter.`);
  try {
    const { hold, message } = await deps.gate.holds.submitPlan(agent, { body: plan, ...(runId !== undefined ? { runId } : {}) });
    return {
      content: [{
        type: 'text',
        text: `Plan #${message.id} sent to the reviewer (hold ${hold.id}, ${hold.plans} plan${hold.plans === 1 ? '' : 's'} so far). `
          + 'You stay on hold until the reviewer releases you; watch for a push-back in your thread.',
      }],
      structuredContent: { holdId: hold.id, messageId: message.id, plans: hold.plans },
    };
  } catch (error) {
    if (error instanceof PlangateError) return failed(deps, 'the reviewer channel', agent, error);
    throw toError(error);
  }
}
