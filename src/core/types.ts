/**
 * The vocabulary of plangate: calls, rules, facts and decisions.
 * This module imports nothing; every other layer depends on it.
 */

/** Plan-required modes, weakest first. */
export const MODES = ['off', 'spends_only', 'side_effects'] as const;
export type Mode = (typeof MODES)[number];

/** How a tool is classified. Only `effect` and `spend` can ever be gated. */
export const TOOL_CLASSES = ['read', 'effect', 'spend', 'say'] as const;
export type ToolClass = (typeof TOOL_CLASSES)[number];

/** Default freshness window of a plan, in minutes. */
export const DEFAULT_WINDOW_MIN = 30;
/** Largest window a rule may set: one week. */
export const MAX_WINDOW_MIN = 10_080;

/** Where a rule or setting comes from. */
export type ScopeKind = 'workspace' | 'crew' | 'agent';

/**
 * A tool call to be decided.
 *
 * @example
 * const call: Call = { agent: '0xWORKER', tool: 'github.merge_pull_request', runId: 'run-7' };
 */
export interface Call {
  /** The acting agent (seat) id. */
  agent: string;
  /** The tool name, e.g. `github.merge_pull_request`. */
  tool: string;
  /** The run this call belongs to; a plan tagged with the same run counts however old. */
  runId?: string;
  /** The delegation chain, nearest manager first. */
  delegatedBy?: string[];
  /** When the call happens; defaults to now. A Date, epoch milliseconds or an ISO-8601 string. */
  at?: Date | number | string;
}

/** One plan-required rule as written in a rule file. */
export interface PlanRule {
  mode: Mode;
  /** Freshness window in minutes; inherited from a broader rule when absent. */
  windowMin?: number;
  /** Whether a plan by a manager up the delegation chain counts; inherited when absent. */
  acceptUpstream?: boolean;
}

/** A rule with the place it was defined, `file:line:col`. */
export interface SourcedPlanRule extends PlanRule {
  source: string;
}

/** A tool-class pattern: `*` matches any run of characters, `?` exactly one. */
export interface ToolPattern {
  pattern: string;
  class: ToolClass;
  source: string;
}

/**
 * The normalized rules: the policy's data document under `data.plangate.rules`.
 * Built by `rules/`, consumed by the Rego policy. Plain JSON only.
 */
export interface RulesData {
  planRequired: {
    workspace?: SourcedPlanRule;
    crews: Record<string, SourcedPlanRule>;
    agents: Record<string, SourcedPlanRule>;
  };
  tools: {
    /** The class of a tool no name or pattern matches. */
    default: ToolClass;
    /** Exact tool names. */
    exact: Record<string, ToolClass>;
    /** Glob patterns; the policy picks the most specific match. */
    patterns: ToolPattern[];
  };
}

/** Who wrote a message. */
export type AuthorKind = 'agent' | 'human';

/** A message as posted (`say`). Posting is never an effect. */
export interface NewMessage {
  /** `agent:<id>`, `crew:<id>` or `org`. */
  thread: string;
  author: string;
  authorKind: AuthorKind;
  /** `plan`, `note`, or any other word. Only `plan` can satisfy plan-required. */
  kind: string;
  body: string;
  /** Epoch milliseconds; defaults to now. */
  at?: number;
  runId?: string;
}

/** A stored message. */
export interface StoredMessage extends Omit<NewMessage, 'at'> {
  id: string;
  at: number;
}

/** What the policy sees of a message: never its body. */
export interface MessageFact {
  id: string;
  thread: string;
  author: string;
  authorKind: AuthorKind;
  kind: string;
  at: number;
  runId?: string;
}

/** An agent's place in the org: its crew and every ancestor crew, nearest first. */
export interface Lineage {
  id: string;
  /** False when the org does not know this agent. */
  known: boolean;
  crews: string[];
}

/** The policy input: the facts gathered for one call. */
export interface PolicyInput {
  /** Decision time, epoch milliseconds. */
  now: number;
  call: { agent: string; tool: string; runId?: string; delegatedBy: string[] };
  agent: Lineage;
  /** The delegation chain's lineages, in `delegatedBy` order. */
  upstream: Lineage[];
  messages: MessageFact[];
}

/** Where one effective setting came from. */
export interface SettingSource<T> {
  value: T;
  /** `default` when no rule sets it. */
  scope: ScopeKind | 'default';
  /** The crew or agent id, for crew and agent scopes. */
  id?: string;
  /** `file:line:col` of the rule, when a rule sets it. */
  source?: string;
}

/** The plan-required settings in force for one seat. */
export interface EffectiveSettings {
  mode: SettingSource<Mode>;
  windowMin: SettingSource<number>;
  acceptUpstream: SettingSource<boolean>;
}

/** Why a candidate message did not count as a plan. */
export type CandidateReason =
  | 'not_plan'
  | 'human_author'
  | 'other_author'
  | 'upstream_not_accepted'
  | 'wrong_thread'
  | 'stale'
  | 'future';

/** One message the policy considered, and why it did or did not count. */
export interface Candidate extends MessageFact {
  counts: boolean;
  reasons: CandidateReason[];
  ageMs: number;
  sameRun: boolean;
}

/** The plan that satisfied the gate. */
export interface SatisfyingPlan extends MessageFact {
  via: 'fresh' | 'same_run';
}

/** The answer for one call. A refusal is a normal decision, not an error. */
export interface Decision {
  allowed: boolean;
  tool: string;
  class: ToolClass;
  /** Whether plan-required applies to this call at all. */
  gated: boolean;
  agent: string;
  agentKnown: boolean;
  settings: EffectiveSettings;
  /** Present when refused: `plan_required:<tool>:<none|stale>`. */
  code?: string;
  reason?: 'none' | 'stale';
  /** Present when refused: what is gated and why, who has not planned, what to do. */
  message?: string;
  /** Present when allowed because of a plan. */
  plan?: SatisfyingPlan;
  candidates: Candidate[];
  /**
   * Present when the rules or the policy could not be loaded: the call went
   * through as if the mode were off, and this says why.
   */
  failOpen?: { reason: string };
}
