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
  /**
   * The call's arguments as the policy should see them (at most 64 keys and
   * 64 KiB as JSON). The read guard reads the path and range arguments the
   * rules name; a host may leave out large values such as file contents.
   */
  args?: Record<string, unknown>;
}

/** One plan-required rule as written in a rule file. */
export interface PlanRule {
  mode: Mode;
  /** Freshness window in minutes; inherited from a broader rule when absent. */
  windowMin?: number;
  /** Whether a plan by a manager up the delegation chain counts; inherited when absent. */
  acceptUpstream?: boolean;
  /**
   * `false`: shadow mode — a call this rule would refuse goes through, and the
   * would-be refusal is decided, audited and counted. Inherited when absent; true by default.
   */
  enforce?: boolean;
}

/** The settings a plan-required rule can carry. */
export type PlanRuleField = 'mode' | 'windowMin' | 'acceptUpstream' | 'enforce';

/** A rule with the place it was defined, `file:line:col`. */
export interface SourcedPlanRule extends PlanRule {
  source: string;
  /**
   * Where single settings come from when that is not `source`, e.g.
   * `env:PLANGATE_WORKSPACE_WINDOW_MIN` for a workspace rule pinned by the environment.
   */
  sources?: Partial<Record<PlanRuleField, string>>;
}

/** A tool-class pattern: `*` matches any run of characters, `?` exactly one. */
export interface ToolPattern {
  pattern: string;
  class: ToolClass;
  source: string;
}

/** Planning-gate settings, in the defaults or in a named profile. An unset field is inherited. */
export interface PlanningSettings {
  /** Whether the reviewer may place holds (an operator's on-demand hold works regardless). */
  enabled?: boolean;
  /** Tools (exact names or `*`/`?` patterns) that stay open during a hold. */
  whitelist?: string[];
  /** The tool through which a held agent sends its plan; `plangate.submit_plan` when unset. */
  reviewerChannel?: string;
  /** Whole-file reads larger than this many bytes are refused; 0 (the default) turns the read guard off. */
  readGuardMaxBytes?: number;
}

/** Where the read guard finds the path and the range of a read tool's call. */
export interface ReadGuardTool {
  /** The argument holding the file's path. */
  path: string;
  /** Arguments that ask for a part of the file; a call setting any of them is not a whole-file read. */
  range: string[];
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
  /** Planning-gate settings; absent when no rule file sets any (everything built in). */
  planningGate?: {
    defaults?: PlanningSettings & { source: string };
    profiles: Record<string, PlanningSettings & { source: string }>;
    /** The profile each crew picks (its child crews inherit the pick unless they have their own). */
    crews: Record<string, { profile: string; source: string }>;
    agents: Record<string, { profile: string; source: string }>;
  };
  /** The read tools the read guard watches; absent when no rule file lists any. */
  readGuard?: { tools: Record<string, ReadGuardTool> };
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

/** What the policy sees of an agent's active planning hold. */
export interface HoldFact {
  id: string;
  kind: HoldKind;
  task: string | null;
  placedBy: string;
  placedAt: number;
  /** Plans sent through the reviewer channel so far, and the reviewer's push-backs. */
  plans: number;
  pushBacks: number;
}

/** Who placed a hold: the reviewer (only where the planning gate is on) or an operator on demand. */
export type HoldKind = 'reviewer' | 'on_demand';

/**
 * What the host found at the path a read names, resolved against its base
 * directory with symlinks followed. `path` is the argument as given.
 */
export type FileFact =
  | { path: string; resolved: string; kind: 'file'; size: number }
  | { path: string; resolved: string; kind: 'missing' | 'other' };

/** The policy input: the facts gathered for one call. */
export interface PolicyInput {
  /** Decision time, epoch milliseconds. */
  now: number;
  call: { agent: string; tool: string; runId?: string; delegatedBy: string[]; args?: Record<string, unknown> };
  agent: Lineage;
  /** The delegation chain's lineages, in `delegatedBy` order. */
  upstream: Lineage[];
  messages: MessageFact[];
  /** The agent's active planning hold, when it is held. */
  hold?: HoldFact;
  /** The file a whole-file read names, once the decision asked for it (`Decision.needs`). */
  file?: FileFact;
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
  /** False in shadow mode: would-be refusals go through (see `Decision.shadow`). */
  enforce: SettingSource<boolean>;
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

/** The checks a call goes through, in this order; the first that refuses decides. */
export const CHECKS = ['read_guard', 'planning_hold', 'plan_required'] as const;
export type Check = (typeof CHECKS)[number];

/** Where a planning-gate setting came from. */
export interface PlanningSettingSource<T> {
  value: T;
  from: 'profile' | 'defaults' | 'builtin';
  /** The profile's name, when it came from one. */
  profile?: string;
  source?: string;
}

/** The planning-gate settings in force for one seat, and the profile it uses. */
export interface EffectivePlanningSettings {
  /** `name` is null when no agent or crew picks a profile for the seat. */
  profile: { name: string | null; scope: 'agent' | 'crew' | 'default'; id?: string; source?: string };
  enabled: PlanningSettingSource<boolean>;
  whitelist: PlanningSettingSource<string[]>;
  reviewerChannel: PlanningSettingSource<string>;
  readGuardMaxBytes: PlanningSettingSource<number>;
}

/** Whether a hold may be placed now (the policy's `hold_allowed`). */
export interface HoldAllowed {
  allowed: boolean;
  kind: HoldKind;
  enabled: PlanningSettingSource<boolean>;
  /** When refused: `planning_gate_off` or `already_held`. */
  code?: string;
  message?: string;
}

/** How far the read guard got: only `over` refuses. */
export type ReadGuardStatus =
  | 'off'
  | 'not_listed'
  | 'not_read'
  | 'no_path'
  | 'ranged'
  | 'needs_size'
  | 'not_a_file'
  | 'over'
  | 'under';

/** Each check's own verdict on a call, whichever decided it. */
export interface CheckVerdicts {
  readGuard: {
    status: ReadGuardStatus;
    applies: boolean;
    refused: boolean;
    maxBytes: number;
    path?: string;
    file?: FileFact;
  };
  planningHold: {
    held: boolean;
    refused: boolean;
    /** The agent's reviewer channel (a call to it is a plan for the reviewer). */
    channel: string;
    /** Whether this call is to the reviewer channel (the host records the plan instead of forwarding it). */
    channelCall: boolean;
    /** Why the tool stays open during the hold. */
    exempt?: 'whitelist' | 'reviewer_channel';
    hold?: { id: string; kind: HoldKind };
  };
  planRequired: {
    allowed: boolean;
    gated: boolean;
    code?: string;
    /** The reviewer channel is never refused by plan-required: sending a plan never needs a plan. */
    exempt?: 'reviewer_channel';
  };
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
  /** Present when refused: the check that refused (the first in {@link CHECKS} order). */
  check?: Check;
  /**
   * Present when refused: `read_guard:<tool>`, `planning_hold:<tool>` or
   * `plan_required:<tool>:<none|stale>`.
   */
  code?: string;
  reason?: 'none' | 'stale';
  /** Present when refused: what is refused and why, and what to do. */
  message?: string;
  /** Present when allowed because of a plan. */
  plan?: SatisfyingPlan;
  candidates: Candidate[];
  /** Every check's own verdict (absent only from a fail-open decision). */
  checks?: CheckVerdicts;
  /**
   * A fact the policy needs before its answer is final: the size of the file
   * a whole-file read names. The gate gathers it and decides again.
   */
  needs?: { file: { arg: string; path: string } };
  /**
   * Present when the rules or the policy could not be loaded: the call went
   * through as if the mode were off, and this says why.
   */
  failOpen?: { reason: string };
  /**
   * Shadow mode: true when the rule in force does not enforce (`enforce:
   * false`) and the call would have been refused. The call is allowed;
   * `code`, `reason` and `message` say what would have happened.
   */
  shadow?: boolean;
}
