/**
 * Least disclosure for `/v1/explain` and `/v1/decide` with an agent's token: the agent sees
 * its own facts only — its lineage, its own messages, its own run and the
 * delegations made to it — never another seat's lineage, messages or plan
 * times, nor what a failure's own text says (its cause only). An operator
 * sees everything.
 */
import { forAgents } from '../../core/failopen.js';
import type { Decision, Explanation, PolicyInput, RunStatus, SatisfyingPlan } from '../../core/types.js';

/** What an agent is told of a plan by another seat that counted for it: whose it was and how it counted. */
export type OthersPlan = Pick<SatisfyingPlan, 'author' | 'via'>;

/**
 * The explanation an agent may see of its own call.
 *
 * @example
 * const shown = explainForSeat('0xWORKER', decision, input);
 * shown.input.upstream // []
 */
export function explainForSeat(seat: string, decision: Explanation, input: PolicyInput): { decision: Explanation; input: PolicyInput } {
  const own = (m: { author: string; authorKind: string }): boolean => m.author === seat && m.authorKind === 'agent';
  const { run, delegations, ...rest } = input;
  const shownInput: PolicyInput = {
    ...rest,
    upstream: [],
    messages: input.messages.filter(own),
    ...(run && run.seat === seat ? { run } : {}),
    ...(delegations ? { delegations: delegations.filter((d) => d.worker === seat) } : {}),
  };
  return { decision: decisionForSeat(seat, decision), input: shownInput };
}

/**
 * A decision as an agent may see it: its own candidates only, of a plan by
 * another seat that counted, only whose it was and how it counted, and of a
 * failure, only its cause.
 *
 * @example
 * decisionForSeat('0xWORKER', decision).candidates.every((c) => c.author === '0xWORKER') // true
 */
export function decisionForSeat<D extends Decision | Explanation>(seat: string, decision: D): D {
  const own = (m: { author: string; authorKind: string }): boolean => m.author === seat && m.authorKind === 'agent';
  const { plan, ...rest } = decision;
  const shownPlan: SatisfyingPlan | OthersPlan | undefined = plan && !own(plan) ? { author: plan.author, via: plan.via } : plan;
  // A decision (the hot answer) has no candidates; an explanation shows the agent its own only.
  return forAgents({
    ...rest,
    ...(decision.candidates ? { candidates: decision.candidates.filter(own) } : {}),
    ...(shownPlan ? { plan: shownPlan as SatisfyingPlan } : {}),
    ...(decision.run ? { run: runForAgents(decision.run) } : {}),
  } as D);
}

/**
 * A call's run as an agent may see it: another seat's run is `unknown`, as
 * one never started is, so that naming run ids cannot tell an agent which
 * exist (the routes of runs answer it 404 alike).
 *
 * @example
 * runForAgents({ id: 'payroll', status: 'foreign' }) // { id: 'payroll', status: 'unknown' }
 */
export function runForAgents(run: { id: string; status: RunStatus }): { id: string; status: RunStatus } {
  return run.status === 'foreign' ? { id: run.id, status: 'unknown' } : run;
}
