/** `plangate decide` and `plangate explain`: decide one call. */
import type { Command } from 'commander';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import type { Call } from '../../../core/types.js';
import { EXIT } from '../exit.js';
import { json } from '../io.js';
import type { CommandContext } from '../main.js';
import { collect, parseAt, withPlangate } from '../shared.js';
import { renderExplanation } from '../explain.js';

interface CallOptions {
  agent: string;
  tool: string;
  run?: string;
  delegatedBy?: string[];
  at?: string;
  args?: string;
}

/** Parses `--args`: a JSON object of the call's arguments. */
function parseArgs(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new PlangateError(ErrorCode.InvalidInput, `--args must be a JSON object, e.g. '{"path": "big.log"}'`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new PlangateError(ErrorCode.InvalidInput, `--args must be a JSON object, e.g. '{"path": "big.log"}'`);
  }
  return value as Record<string, unknown>;
}

function toCall(o: CallOptions): Call {
  const at = parseAt(o.at);
  const args = parseArgs(o.args);
  return {
    agent: o.agent,
    tool: o.tool,
    ...(o.run !== undefined ? { runId: o.run } : {}),
    ...(o.delegatedBy?.length ? { delegatedBy: o.delegatedBy } : {}),
    ...(at !== undefined ? { at } : {}),
    ...(args !== undefined ? { args } : {}),
  };
}

function callOptions(cmd: Command): Command {
  return cmd
    .requiredOption('--agent <id>', 'the acting agent')
    .requiredOption('--tool <name>', 'the tool being called')
    .option('--run <id>', 'the run the call belongs to')
    .option('--delegated-by <id>', 'a manager up the delegation chain, nearest first (repeatable)', collect)
    .option('--at <time>', 'decision time: ISO-8601 or epoch ms (default: now)')
    .option('--args <json>', 'the call\'s arguments as a JSON object, e.g. \'{"path": "big.log"}\' (the read guard reads them)');
}

export function registerDecide(program: Command, { io, wrap }: CommandContext): void {
  callOptions(program.command('decide'))
    .description('decide a call and print the decision as JSON; exit 0 allowed, 3 refused, 1 error')
    .action(wrap(async (opts: CallOptions, cmd: Command) =>
      withPlangate(cmd, io, async (pg) => {
        const decision = await pg.gate.decide(toCall(opts));
        io.out(json(decision));
        return decision.allowed ? EXIT.ok : EXIT.refused;
      })));

  callOptions(program.command('explain'))
    .description('explain, for people, why a call would be allowed or refused; exit 0 allowed, 3 refused, 1 error')
    .action(wrap(async (opts: CallOptions, cmd: Command) =>
      withPlangate(cmd, io, async (pg) => {
        const { decision, input } = await pg.gate.explain(toCall(opts));
        io.out(renderExplanation(decision, input));
        return decision.allowed ? EXIT.ok : EXIT.refused;
      })));
}
