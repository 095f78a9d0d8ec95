/**
 * The human gate from the command line: `plangate approvals list | show |
 * approve | deny`. Whoever runs the CLI on plangate's own store acts as an
 * operator (an operator may answer any request), under `--by`.
 */
import type { Command } from 'commander';
import type { Approval, ApprovalPlan, ApprovalStatus } from '../../../core/approvals.js';
import { EXIT } from '../exit.js';
import { printable } from '../printable.js';
import { json } from '../io.js';
import type { CommandContext } from '../main.js';
import { actor, withPlangate } from '../shared.js';

const at = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString());

/**
 * One line per request, e.g.
 * `approval 5f1c…  pending  0xWORKER  github.merge_pull_request  run -  plan 12  asked 2026-06-01T12:00:00.000Z`.
 */
export function approvalLine(a: Approval): string {
  const answered = a.status === 'pending' ? '' : `  ${a.status === 'denied' ? 'denied' : 'granted'} by ${a.decidedBy} at ${at(a.decidedAt)}`;
  const used = a.usedAt !== null ? `  used at ${at(a.usedAt)}` : '';
  return printable(`approval ${a.id}  ${a.status}  ${a.seat}  ${a.tool}  run ${a.runId ?? '-'}  plan ${a.planId ?? '-'}  asked ${at(a.requestedAt)}${answered}${used}`);
}

/** The plan that counted, for the approver to read: its text line by line (invisible characters spelled out), or that it was pruned. */
function planLines(plan: ApprovalPlan | null): string[] {
  if (plan === null) return ['  plan       none (no plan was required)'];
  if (plan.pruned) return [`  plan       ${printable(plan.id)}: pruned by retention, its text is no longer kept`];
  return [
    printable(`  plan       ${plan.id} by ${plan.author} in ${plan.thread} at ${at(plan.at)}${plan.runId !== undefined ? ` (run ${plan.runId})` : ''}`),
    ...plan.body.split('\n').map((l) => `    ${printable(l)}`),
  ];
}

/** A request in full: the exact call with its arguments pretty-printed and the plan that counted, for the approver to read. */
export function approvalText(a: Approval, plan: ApprovalPlan | null = null): string {
  const lines = [
    approvalLine(a),
    `  digest     sha256:${a.digest}`,
    `  window     ${a.windowMin} minutes once granted${a.expiresAt !== null ? ` (until ${at(a.expiresAt)})` : ''}`,
    `  approvers  ${[...a.approvers.roles.map((r) => `role ${r}`), ...a.approvers.names].join(', ') || 'operators only'}`,
    ...(a.reason !== null ? [`  reason     ${printable(a.reason)}`] : []),
    ...planLines(plan),
    '  arguments',
    ...JSON.stringify(a.args, null, 2).split('\n').map((l) => `    ${printable(l)}`),
  ];
  return lines.join('\n');
}

export function registerApprovals(program: Command, { io, wrap }: CommandContext): void {
  const approvals = program
    .command('approvals')
    .description('the human gate: list, show, approve or deny the requests for a person\'s approval of one exact call');

  approvals
    .command('list')
    .description('the requests, newest first (default: the pending ones)')
    .option('--status <status>', 'pending, granted, denied, used or all (default pending)')
    .option('--agent <id>', 'only this seat\'s requests')
    .option('--limit <n>', 'at most this many (default 100)', (v) => Number(v))
    .option('--json', 'print as JSON')
    .action(wrap(async (opts: { status?: string; agent?: string; limit?: number; json?: boolean }, cmd: Command) =>
      withPlangate(cmd, io, async (pg) => {
        const status = opts.status ?? 'pending';
        const list = await pg.gate.approvals.list({
          ...(status !== 'all' ? { status: status as ApprovalStatus } : {}),
          ...(opts.agent !== undefined ? { seat: opts.agent } : {}),
          ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
        });
        if (opts.json) io.out(json(list));
        else if (list.length === 0) io.out(status === 'all' ? 'no approval requests' : `no ${status} approval requests`);
        else for (const a of list) io.out(approvalLine(a));
        return EXIT.ok;
      })));

  approvals
    .command('show')
    .description('one request: the exact call, its arguments, the plan that counted, who may approve')
    .argument('<id>', 'the request\'s id')
    .option('--json', 'print as JSON')
    .action(wrap(async (id: string, opts: { json?: boolean }, cmd: Command) =>
      withPlangate(cmd, io, async (pg) => {
        const a = await pg.gate.approvals.get(id);
        const plan = await pg.gate.approvals.planOf(a);
        io.out(opts.json ? json({ approval: a, plan }) : approvalText(a, plan));
        return EXIT.ok;
      })));

  approvals
    .command('approve')
    .description('grant a pending request: that exact call may go through once, within the rule\'s window')
    .argument('<id>', 'the request\'s id')
    .option('--by <name>', 'who approves (default: $PLANGATE_USER, $USER or "operator")')
    .option('--json', 'print the request as JSON')
    .action(wrap(async (id: string, opts: { by?: string; json?: boolean }, cmd: Command) =>
      withPlangate(cmd, io, async (pg) => {
        const a = await pg.gate.approvals.approve(id, { role: 'operator', name: actor(io, opts.by, 'operator') });
        io.out(opts.json ? json(a) : `${approvalLine(a)}\n${a.seat} may now make this exact call once, until ${at(a.expiresAt)}.`);
        return EXIT.ok;
      })));

  approvals
    .command('deny')
    .description('deny a pending request, saying why; retrying the same call does not ask again')
    .argument('<id>', 'the request\'s id')
    .requiredOption('--reason <text>', 'why the call is denied')
    .option('--by <name>', 'who denies (default: $PLANGATE_USER, $USER or "operator")')
    .option('--json', 'print the request as JSON')
    .action(wrap(async (id: string, opts: { reason: string; by?: string; json?: boolean }, cmd: Command) =>
      withPlangate(cmd, io, async (pg) => {
        const a = await pg.gate.approvals.deny(id, { role: 'operator', name: actor(io, opts.by, 'operator') }, opts.reason);
        io.out(opts.json ? json(a) : approvalLine(a));
        return EXIT.ok;
      })));
}
