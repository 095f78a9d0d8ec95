/**
 * Planning holds from the command line: `hold`, `release`, `unblock`,
 * `holds`, and the two sides of the reviewer channel, `submit-plan` (the
 * agent's plan) and `push-back` (the reviewer's answer).
 */
import type { Command } from 'commander';
import type { Hold } from '../../../facts/port.js';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import { EXIT } from '../exit.js';
import { printable } from '../printable.js';
import { json } from '../io.js';
import type { CommandContext } from '../main.js';
import { actor, withPlangate } from '../shared.js';


const at = (ms: number | null): string => (ms === null ? '?' : new Date(ms).toISOString());

/**
 * One line per hold, e.g.
 * `hold 3  0xWORKER  active  on demand by ops-alice at 2026-06-01T12:00:00.000Z  "Refactor auth"  plans 1, push-backs 0`.
 */
export function holdLine(h: Hold): string {
  const placed = `${h.kind === 'on_demand' ? 'on demand' : 'by the reviewer'} ${h.placedBy} at ${at(h.placedAt)}`;
  const ended = h.state === 'released' ? `  released by ${h.releasedBy} at ${at(h.releasedAt)}`
    : h.state === 'cleared' ? `  cleared by ${h.clearedBy} at ${at(h.clearedAt)}` : '';
  const task = h.task !== null ? `  ${JSON.stringify(h.task)}` : '';
  return printable(`hold ${h.id}  ${h.agent}  ${h.state}  ${placed}${task}  plans ${h.plans}, push-backs ${h.pushBacks}${ended}`);
}

export function registerHolds(program: Command, { io, wrap }: CommandContext): void {
  program
    .command('hold')
    .description('place a planning hold on an agent: on demand (whatever the settings), or as the reviewer with --reviewer (only where the planning gate is on)')
    .argument('<agent>', 'the agent to hold')
    .option('--task <text>', 'the task the hold is for')
    .option('--reviewer', 'place it as the reviewer (needs the planning gate on for the agent)')
    .option('--by <name>', 'who places it (default: $PLANGATE_USER, $USER or "operator")')
    .option('--json', 'print the hold as JSON')
    .action(wrap(async (agent: string, opts: { task?: string; reviewer?: boolean; by?: string; json?: boolean }, cmd: Command) =>
      withPlangate(cmd, io, async (pg) => {
        const hold = await pg.gate.holds.place(agent, {
          by: actor(io, opts.by, 'operator'),
          kind: opts.reviewer ? 'reviewer' : 'on_demand',
          ...(opts.task !== undefined ? { task: opts.task } : {}),
        });
        const channel = (await pg.gate.holds.settingsFor(agent).catch(() => undefined))?.reviewerChannel.value;
        io.out(opts.json ? json(hold) : `${holdLine(hold)}\n${agent} is held until a reviewer releases it${channel ? `; it sends its plan through ${channel}` : ''}.`);
        return EXIT.ok;
      })));

  for (const [name, verb, state] of [['release', 'release a held agent: the reviewer approves its direction (not its work)', 'released'], ['unblock', 'clear a hold (an operator lifting it); needed before holding an already-held agent', 'cleared']] as const) {
    const cmd = program
      .command(name)
      .description(verb)
      .argument('<agent>', 'the held agent')
      .option('--by <name>', 'who does it (default: $PLANGATE_USER, $USER or "operator")')
      .option('--json', 'print the hold as JSON');
    if (state === 'released') cmd.option('--plan <id>', 'the newest plan you read, which the release approves ("none" when none was sent); refused if the agent sent a newer one');
    cmd.action(wrap(async (agent: string, opts: { by?: string; json?: boolean; plan?: string }, c: Command) =>
      withPlangate(c, io, async (pg) => {
        const by = actor(io, opts.by, 'operator');
        const hold = state === 'released' ? await pg.gate.holds.release(agent, { by, only: { lastPlanId: await planRead(pg, agent, opts.plan) } }) : await pg.gate.holds.unblock(agent, { by });
        io.out(opts.json ? json(hold) : holdLine(hold));
        return EXIT.ok;
      })));
  }

  program
    .command('holds')
    .description('list the active planning holds, newest first (--all: with the released and cleared ones)')
    .option('--all', 'include released and cleared holds')
    .option('--agent <id>', 'only this agent\'s holds')
    .option('--limit <n>', 'at most this many (default 100)', (v) => Number(v))
    .option('--before <id>', 'only holds placed before hold <id> (the next page)')
    .option('--json', 'print as JSON')
    .action(wrap(async (opts: { all?: boolean; agent?: string; limit?: number; before?: string; json?: boolean }, cmd: Command) =>
      withPlangate(cmd, io, async (pg) => {
        const holds = await pg.gate.holds.list({
          all: opts.all === true,
          ...(opts.agent !== undefined ? { agent: opts.agent } : {}),
          ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
          ...(opts.before !== undefined ? { before: opts.before } : {}),
        });
        if (opts.json) io.out(json(holds));
        else if (holds.length === 0) io.out(opts.all ? 'no holds' : 'no active holds');
        else for (const h of holds) io.out(holdLine(h));
        return EXIT.ok;
      })));

  program
    .command('submit-plan')
    .description('the reviewer channel: a held agent sends its plan (recorded as a `plan` message in its own thread, linked to the hold)')
    .argument('<agent>', 'the held agent, who writes the plan')
    .argument('<body>', 'the plan: the approach, and the reads, searches and tools it expects to use')
    .option('--run <id>', 'tag the plan with a run id')
    .action(wrap(async (agent: string, body: string, opts: { run?: string }, cmd: Command) =>
      withPlangate(cmd, io, async (pg) => {
        const { hold, message } = await pg.gate.holds.submitPlan(agent, { body, ...(opts.run !== undefined ? { runId: opts.run } : {}) });
        io.out(`plan #${message.id} sent on hold ${hold.id} (${hold.plans} so far); ${agent} stays held until a reviewer releases it`);
        return EXIT.ok;
      })));

  program
    .command('push-back')
    .description('the reviewer answers a held agent\'s plan without releasing it (a `pushback` message in its thread)')
    .argument('<agent>', 'the held agent')
    .argument('<body>', 'what to reconsider')
    .option('--by <name>', 'the reviewer (default: $PLANGATE_USER, $USER or "operator")')
    .option('--as-agent', 'the reviewer is an agent seat, not a person')
    .action(wrap(async (agent: string, body: string, opts: { by?: string; asAgent?: boolean }, cmd: Command) =>
      withPlangate(cmd, io, async (pg) => {
        const { hold, message } = await pg.gate.holds.pushBack(agent, { by: actor(io, opts.by, 'operator'), body, byKind: opts.asAgent ? 'agent' : 'human' });
        io.out(`push-back #${message.id} on hold ${hold.id}; ${agent} stays held`);
        return EXIT.ok;
      })));
}

/**
 * The plan a release approves, from `--plan`: a message id, or null for
 * "none was sent". Without it, the error names the agent's newest plan, so a
 * reviewer never releases an approach it did not read.
 */
async function planRead(pg: { gate: { holds: { get(agent: string): Promise<{ state: string; lastPlanId: string | null } | undefined> } } }, agent: string, plan: string | undefined): Promise<string | null> {
  if (plan === 'none') return null;
  if (plan !== undefined) {
    if (!/^[1-9][0-9]{0,15}$/.test(plan)) throw new PlangateError(ErrorCode.InvalidInput, `--plan: "${plan}" is not a plan id (a number, or none)`);
    return plan;
  }
  const hold = await pg.gate.holds.get(agent);
  if (!hold || hold.state !== 'active') return null; // the release answers "not held"
  const newest = hold?.lastPlanId ? `plan #${hold.lastPlanId}: --plan ${hold.lastPlanId}` : 'none yet: --plan none';
  throw new PlangateError(ErrorCode.InvalidInput, `plangate release needs --plan, the newest plan you read (${agent}'s newest is ${newest})`);
}
