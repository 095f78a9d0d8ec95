/**
 * The gate: decide(call) = validate → gather facts → evaluate the policy →
 * audit a refusal. It declares the narrow interfaces it needs; the
 * composition root (src/main) picks the concrete store, engine and sink.
 */
import { ErrorCode, PlangateError, toError } from '../core/errors.js';
import { FAIL_CLOSED_REVIEWER_CHANNEL, heldWhileFailing, HOLD_ON_STORE_FAILURE, UNREAD_HOLDS_ON_STORE_FAILURE, unreadHoldsWhileFailing } from '../core/failclosed.js';
import { failOpenDecision, PLAN_REQUIRED_ON_STORE_FAILURE } from '../core/failopen.js';
import type { Call, Decision, DelegationVerdict, EffectiveSettings, Explanation, McpToolFact, NewMessage, PolicyInput, StoredMessage } from '../core/types.js';
import type { AuditEvent, AuditSink } from '../audit/port.js';
import type { Evaluator } from '../engine/policy.js';
import type { DelegationStore, HoldStore, MessageStore, OrgStore, QuotaStore, RunStore, SnapshotReads, StoreProbe } from '../facts/port.js';
import type { CountedQuotaKind, QuotaLimit } from '../core/quotas.js';
import { isValidId } from '../core/threads.js';
import { createQuotaCheck, type QuotaCheck } from './quotas.js';
import { checkCall } from './call.js';
import { gatherInput } from './facts.js';
import { createHolds, type Holds } from './holds.js';
import { KnownHolds } from './known-holds.js';
import { blockedEvent, claimRefusedEvent, heldBlockedEvent, planningRefusalEvent, refusalError, storeFailureEvent } from './refusals.js';
import { decideWithFacts, explainWithFacts, type Resolutions } from './with-facts.js';
import { createRuns, type Delegations, type Runs } from './runs.js';
import { outageJudge, requestFailure, withinBudget } from './store-failures.js';
import { checkAgentPost } from './posting.js';
import { approvalWhileFailing, createApprovalDesk, settleApproval, type ApprovalDesk } from './approvals.js';
import type { ApprovalStore } from '../facts/approvals.js';
import type { DecisionObserver, DecisionWatch } from './observe.js';

/** The store methods the gate uses. */
export type GateStore = Pick<OrgStore, 'lineage'> & Pick<MessageStore, 'candidates' | 'postMessage' | 'getMessage'> & HoldStore & RunStore & DelegationStore & QuotaStore & ApprovalStore & Partial<SnapshotReads> & Partial<StoreProbe>;

export interface GateOptions {
  /** The compiled policy with its rules; read once per decision, so a swap never mixes rule sets. */
  engine: Evaluator | { current(): Evaluator };
  store: GateStore;
  /** Where `PlanRequiredBlocked` events go; a failing sink never changes a decision. */
  audit?: AuditSink;
  /** Epoch milliseconds; defaults to Date.now. */
  clock?: () => number;
  /** Called when the audit sink fails (the decision stands). Defaults to a line on stderr. */
  onAuditError?: (error: unknown, event: AuditEvent) => void;
  /**
   * The directories the read guard may look in (read roots); a relative path
   * in a call resolves against the first, and a whole-file read outside every
   * root is refused. A function is asked at each decision (the roots may come
   * from the rules in force). Defaults to `[readBase]`, else the working directory.
   */
  readRoots?: readonly string[] | (() => readonly string[]);
  /** One read root (kept for older hosts): the same as `readRoots: [readBase]`. */
  readBase?: string;
  /** Called with every decision `decide`/`guard` return (not `explain`), e.g. to count them. */
  onDecision?: (decision: Decision) => void;
  /**
   * Called with the input and the decision of every call `decide`/`guard`
   * evaluated (not `explain`), e.g. to write a decision log; a failure is
   * logged and never changes the decision.
   */
  onDecided?: (input: PolicyInput, decision: Decision) => void;
  /**
   * Called when the store fails while gathering the facts; the call then
   * fails open (see core/failopen.ts), or, for an agent known to be held,
   * closed (core/failclosed.ts). Defaults to a line on stderr.
   */
  onStoreError?: (error: unknown, call: Call, closed?: 'approval') => void;
  /** Watches each decision (telemetry: a span per decision, one per step); none by default. */
  observer?: DecisionObserver;
  /** Told every write refused for a seat's quota (core/quotas.ts), e.g. to count it. */
  onQuotaRefused?: (kind: CountedQuotaKind, limit: QuotaLimit, seat: string) => void;
}

export interface DecideOptions {
  /** Also consider recent non-plan messages, so the decision's candidates explain more. */
  explain?: boolean;
  /**
   * What to do with a claimed delegation the record does not back.
   * `count_recorded` (the default): the chain stops at the first unrecorded
   * link, and `decision.delegation.unrecorded` names it. `refuse`: the call
   * is refused with `claim_refused` (a `ClaimRefused` audit event, no
   * decision) — what the HTTP adapter does for an agent's token.
   */
  unrecordedClaims?: 'count_recorded' | 'refuse';
  /**
   * The read roots of this call, in place of the gate's: the directories the
   * tool it goes to reads in (one MCP upstream's), so that a relative path is
   * resolved where that tool resolves it.
   */
  readRoots?: readonly string[];
  /**
   * The upstream MCP tool this call goes to, as the gateway knows it (for
   * the tool's pin and the trust of its annotations); only an in-process
   * adapter that talks to the upstream itself may give it.
   */
  mcpTool?: McpToolFact;
  /**
   * The directory the tool resolves a relative path in, when it is not the
   * first read root: an agent host's working directory, which the agent can
   * move. It widens nothing: a path that leads out of the roots is still refused.
   */
  relativeTo?: string;
}

/** The plan-required gate. */
export interface Gate {
  /** Decides a call. A refusal is a decision (`allowed: false`), not an error. */
  decide(call: Call, options?: DecideOptions): Promise<Decision>;
  /**
   * Runs `effect` only when the call is allowed; otherwise throws (a
   * `PlanRequiredError`, or a `CallRefusedError` for a planning hold or the
   * read guard) and never invokes `effect`.
   */
  guard<T>(call: Call, effect: () => T | Promise<T>): Promise<T>;
  /** Posts a message (a plan, a note, …) as the host: trusted as given. Posting is never an effect. */
  say(message: NewMessage): Promise<StoredMessage>;
  /**
   * Posts a message an agent sent with its own credential (`author` is its
   * seat): only into a thread it speaks in and never a reviewer's or the
   * system's kind; otherwise fails with `claim_refused` (audited as
   * `ClaimRefused`) and stores nothing.
   */
  sayAsAgent(message: Omit<NewMessage, 'authorKind' | 'at'>): Promise<StoredMessage>;
  /** The plan-required settings in force for an agent, with where each came from. */
  settingsFor(agent: string): Promise<EffectiveSettings>;
  /** The policy input a call would be decided on (for debugging). */
  inputFor(call: Call, options?: DecideOptions): Promise<PolicyInput>;
  /**
   * Decides a call for a person asking why, with recent context messages and
   * the facts used. Not an attempt: nothing is audited.
   */
  explain(call: Call, options?: Pick<DecideOptions, 'unrecordedClaims'>): Promise<{ decision: Explanation; input: PolicyInput }>;
  /** Planning holds: place, the reviewer channel (submitPlan), push back, release, unblock, list. */
  holds: Holds;
  /** Runs, started and ended by the host (or the CLI, an operator, an orchestrator), never by the agent. */
  runs: Runs;
  /** Delegations, recorded by the manager, the host, the CLI or an operator. */
  delegations: Delegations;
  /** The last known active holds, kept for when the store fails (core/failclosed.ts). */
  knownHolds: KnownHolds;
  /**
   * Checks one write of a seat against its quota of that kind; throws
   * `quota_exceeded` (a QuotaExceededError naming the quota) when over. Every
   * write method here checks it itself; a door may ask first (a hook refusing
   * plangate's own tool before the host calls it).
   */
  quota: QuotaCheck;
  /** The human gate's requests: list, read, approve, deny (an agent never answers one). */
  approvals: ApprovalDesk;
}

/** Messages of context per thread fetched for explanations. */
const EXPLAIN_CONTEXT = 5;

/**
 * Creates a gate.
 *
 * @example
 * const gate = createGate({ engine, store, audit });
 * const d = await gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request' });
 * if (!d.allowed) console.log(d.code, d.message);
 */
export function createGate(options: GateOptions): Gate {
  const clock = options.clock ?? Date.now;
  const current = (): Evaluator => ('current' in options.engine ? options.engine.current() : options.engine);
  const onAuditError = options.onAuditError ?? ((error: unknown) => {
    process.stderr.write(`plangate: audit sink failed, decision unchanged: ${String(error)}\n`);
  });
  const fixedRoots = Array.isArray(options.readRoots) ? [...options.readRoots] : [options.readBase ?? process.cwd()];
  const readRoots = typeof options.readRoots === 'function' ? options.readRoots : () => fixedRoots;
  const onStoreError = options.onStoreError ?? ((error: unknown, call: Call, closed?: 'approval') => {
    const held = closed === 'approval' ? 'may need approval, so it FAILS CLOSED'
      : known.get(call.agent) ? 'is held, so it FAILS CLOSED' : known.unread ? 'may be held (no hold has been read yet), so it FAILS CLOSED' : 'FAILS OPEN';
    process.stderr.write(`plangate: the store failed, ${call.agent} → ${call.tool} ${held}: ${toError(error).message}\n`);
  });
  const known = new KnownHolds();
  const quota = createQuotaCheck({ store: options.store, evaluator: current, clock, ...(options.onQuotaRefused ? { onRefused: options.onQuotaRefused } : {}) });
  // The human gate tells of its own quota refusals: an attempt over quota that joins another's request is not refused.
  const approvalQuota = createQuotaCheck({ store: options.store, evaluator: current, clock });
  const outages = outageJudge(options.store.probe ? () => (options.store.probe as () => Promise<void>)() : undefined);

  /** Whether any approvals rule could need approval for the call (asked while the store fails); false without a policy. */
  function approvalPossible(call: Call): boolean {
    try {
      return current().approvalPossible?.({ agent: { id: call.agent }, call: { tool: call.tool, ...(call.annotations ? { annotations: call.annotations } : {}) } }) === true;
    } catch {
      return false;
    }
  }

  async function inputFor(call: Call, opts: DecideOptions = {}): Promise<PolicyInput> {
    const checked = checkCall(call, clock());
    // Bounded in time as well as by indexes: a slow gathering is refused as this call's failure (core/store-failures.ts).
    const input = await withinBudget(gatherInput(options.store, checked, opts.explain ? { context: EXPLAIN_CONTEXT } : {}));
    if (opts.mcpTool) {
      const { upstream, tool, digest, own } = opts.mcpTool;
      input.call.mcp = { upstream, tool, ...(digest !== undefined ? { digest } : {}), ...(own ? { own } : {}) };
    }
    return input;
  }

  async function record(input: PolicyInput, decision: Decision, resolutions: Resolutions, watch: DecisionWatch | undefined): Promise<void> {
    // The human gate records its own events (ApprovalRequested and the rest, gate/approvals.ts).
    if (decision.check === 'approval') return;
    const event = planningRefusalEvent(input, decision, resolutions) ?? blockedEvent(input, decision);
    // A refusal names the trace it was decided in, so the console can lead to it.
    await audit(watch?.traceId !== undefined ? { ...event, traceId: watch.traceId } as AuditEvent : event);
  }

  async function audit(event: AuditEvent): Promise<void> {
    if (!options.audit) return;
    try {
      await options.audit.record(event);
    } catch (error) {
      onAuditError(error, event);
    }
  }

  /** The unrecorded manager a call claimed, when the caller asked for such claims to be refused. */
  function toRefuse(decision: { delegation?: DelegationVerdict }, opts: DecideOptions): string | undefined {
    return opts.unrecordedClaims === 'refuse' ? decision.delegation?.unrecorded : undefined;
  }

  /** Refuses a decision whose claimed chain the record does not back (audited, no bodies). */
  async function refuseUnrecorded(input: PolicyInput, unrecorded: string): Promise<never> {
    await audit(claimRefusedEvent(input, 'delegation', input.call.delegatedBy, unrecorded));
    const chain = input.call.delegatedBy;
    const worker = chain[chain.indexOf(unrecorded) - 1] ?? input.agent.id;
    throw new PlangateError(
      ErrorCode.ClaimRefused,
      `the claimed delegation by ${unrecorded} to ${worker} is not on record, or no longer live for this run; a delegation is recorded by the manager's own token, the host, the CLI or an operator`,
    );
  }

  /** Without an observer, a decision is the work itself; with one, it is watched from begin to end. */
  const decide = options.observer === undefined ? (call: Call, opts: DecideOptions = {}) => decideWatched(call, opts, undefined) : observed(options.observer);

  function observed(observer: DecisionObserver) {
    return (call: Call, opts: DecideOptions = {}): Promise<Decision> => {
      // The observer decides once, here, whether this decision is followed; one it does not follow costs no more than no observer.
      let watch: DecisionWatch | undefined;
      try {
        watch = observer.begin(call);
      } catch (error) {
        return Promise.reject(error);
      }
      return watch === undefined ? decideWatched(call, opts, undefined) : decideFollowed(call, opts, watch);
    };
  }

  async function decideFollowed(call: Call, opts: DecideOptions, watch: DecisionWatch): Promise<Decision> {
    let crews: readonly string[] | undefined;
    try {
      const decision = await decideWatched(call, opts, watch, (read) => { crews = read; });
      watch.end({ decision, ...(crews ? { crews } : {}) });
      return decision;
    } catch (error) {
      watch.end({ error });
      throw error;
    }
  }

  async function decideWatched(call: Call, opts: DecideOptions, watch: DecisionWatch | undefined, onCrews?: (crews: readonly string[]) => void): Promise<Decision> {
    let input: PolicyInput;
    // Holds learnt while the facts are read are newer than what the facts say.
    const mark = known.mark();
    try {
      input = await (watch ? watch.step('facts', () => inputFor(call, opts)) : inputFor(call, opts));
      onCrews?.(input.agent.crews);
    } catch (error) {
      // A malformed call is an error; a failing store fails open (plan-required guards legibility).
      if (error instanceof PlangateError && error.code === ErrorCode.InvalidInput) throw error;
      if (!(await outages.isOutage())) {
        // The store answers others: the failure is this request's, refused and audited, never let through.
        await audit(storeFailureEvent(call, toError(error).message, clock()));
        throw requestFailure(error);
      }
      const reason = `the store failed while gathering the facts: ${toError(error).message}`;
      const hold = known.get(call.agent);
      if (hold && HOLD_ON_STORE_FAILURE === 'fail_closed') {
        // A held agent stays held: the last known hold decides, by the host's one rule.
        onStoreError(error, call);
        const closed = heldWhileFailing(call, hold, hold.channel ?? FAIL_CLOSED_REVIEWER_CHANNEL, { cause: 'store', reason });
        if (!closed.allowed) await audit(heldBlockedEvent(call, closed, hold, clock()));
        options.onDecision?.(closed);
        return closed;
      }
      if (known.unread && UNREAD_HOLDS_ON_STORE_FAILURE === 'fail_closed') {
        // Nobody's hold is known: any agent may be held, so none is let through.
        onStoreError(error, call);
        const closed = unreadHoldsWhileFailing(call, reason);
        options.onDecision?.(closed);
        return closed;
      }
      if (approvalPossible(call)) {
        // A call that may need approval is refused while the store fails (APPROVAL_ON_STORE_FAILURE).
        onStoreError(error, call, 'approval');
        const closed = approvalWhileFailing({ agent: call.agent, tool: call.tool }, reason);
        options.onDecision?.(closed);
        return closed;
      }
      if (PLAN_REQUIRED_ON_STORE_FAILURE !== 'fail_open') throw error;
      onStoreError(error, call);
      const failed = failOpenDecision(call, { cause: 'store', reason });
      options.onDecision?.(failed);
      return failed;
    }
    const resolutions: Resolutions = new Map();
    const evaluator = current();
    const roots = opts.readRoots ?? readRoots;
    // Synchronous unless the policy asks for file facts (the read guard): no promise to wait for otherwise.
    // Unwatched, no closure is made for the step.
    const decided = watch
      ? watch.step('evaluate', () => decideWithFacts(evaluator, input, roots, resolutions, opts.relativeTo))
      : decideWithFacts(evaluator, input, roots, resolutions, opts.relativeTo);
    let decision = decided instanceof Promise ? await decided : decided;
    // The call needs a person's approval: its approvals on record decide (gate/approvals.ts).
    if (decision.approval && !decision.approval.gathered) {
      decision = await settleApproval(input, decision, {
        store: options.store,
        decide: (again) => decideWithFacts(evaluator, again, roots, resolutions, opts.relativeTo),
        ...(evaluator.approvalSettled ? { settle: (again: PolicyInput) => evaluator.approvalSettled!(again) } : {}),
        audit,
        args: call.callArgs ?? call.args,
        onStoreError: (error) => onStoreError(error, call, 'approval'),
        quota: approvalQuota,
        ...(options.onQuotaRefused ? { onQuotaRefused: options.onQuotaRefused } : {}),
      });
    }
    const unrecorded = toRefuse(decision, opts);
    if (unrecorded !== undefined) await refuseUnrecorded(input, unrecorded);
    // What the store said about the agent's hold, with its reviewer channel when the policy named it.
    const channel = decision.failClosed ? undefined : decision.reviewerChannel;
    known.set(input.agent.id, input.hold ? { ...input.hold, ...(channel !== undefined ? { channel } : {}) } : undefined, mark);
    // A refusal, and a shadow-mode would-be refusal, are audited alike (the latter marked shadow).
    if (!decision.allowed || decision.shadow === true) await record(input, decision, resolutions, watch);
    if (options.onDecided) {
      try {
        options.onDecided(input, decision);
      } catch (error) {
        process.stderr.write(`plangate: the decision log failed, decision unchanged: ${toError(error).message}\n`);
      }
    }
    options.onDecision?.(decision);
    return decision;
  }

  return {
    decide,
    inputFor,
    async explain(call, opts = {}) {
      const input = await inputFor(call, { explain: true });
      const decision = await explainWithFacts(current(), input, readRoots);
      const unrecorded = toRefuse(decision, opts);
      if (unrecorded !== undefined) await refuseUnrecorded(input, unrecorded);
      return { decision, input };
    },
    async guard<T>(call: Call, effect: () => T | Promise<T>): Promise<T> {
      const decision = await decide(call);
      if (!decision.allowed) throw refusalError(decision);
      return effect();
    },
    async say(message) {
      // A message posted as an agent counts against that seat's quota, whoever posts it.
      if (message.authorKind === 'agent' && isValidId(message.author)) await quota(message.author, 'messages');
      return options.store.postMessage(message);
    },
    async sayAsAgent(message) {
      const now = clock();
      const seat = await options.store.lineage(checkCall({ agent: message.author, tool: 'x' }, now).agent);
      await checkAgentPost(seat, message.thread, message.kind, now, message.runId, audit);
      await quota(seat.id, 'messages');
      return options.store.postMessage({ ...message, authorKind: 'agent', at: now });
    },
    holds: createHolds({ store: options.store, evaluator: current, clock, audit, quota, onHold: (agent, hold, since) => known.set(agent, hold, since), mark: () => known.mark() }),
    knownHolds: known,
    quota,
    approvals: createApprovalDesk({ store: options.store, evaluator: current, clock, audit }),
    ...createRuns(options.store, clock, quota),
    async settingsFor(agent) {
      const seat = await options.store.lineage(checkCall({ agent, tool: 'x' }, 0).agent);
      return current().effective(seat);
    },
  };
}
