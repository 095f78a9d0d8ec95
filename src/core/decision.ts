/**
 * The policy's answer: decisions, the settings in force with their sources,
 * candidates, and each check's verdict.
 */
import type { MessageFact, HoldKind, FileFact, LineCount, LineSpan } from './facts.js';
import type { Mode, ScopeKind, ToolClass } from './rules.js';
import type { ApprovalVerdict } from './approvals.js';

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

/** {@link EffectiveSettings} as a decision carries them: one frozen object for every seat with the same settings. */
export type ReadonlySettings = { readonly [K in keyof EffectiveSettings]: Readonly<EffectiveSettings[K]> };

/** The plan-required settings in force as bare values: the policy's hot answer gives them so. */
export interface SettingValues {
  mode: Mode;
  windowMin: number;
  acceptUpstream: boolean;
  enforce: boolean;
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
export const CHECKS = ['tool_pin', 'read_guard', 'planning_hold', 'plan_required', 'approval'] as const;
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

/** How far the read guard got: `withheld`, `bad_path`, `outside_roots`, `unsized`, `lines_unmeasured`, `lines_over` and `over` refuse. */
export type ReadGuardStatus =
  | 'off'
  | 'not_listed'
  | 'not_read'
  | 'withheld'
  | 'bad_path'
  | 'ranged'
  | 'needs_size'
  | 'outside_roots'
  | 'unsized'
  | 'lines_unmeasured'
  | 'lines_over'
  | 'over'
  | 'not_a_file'
  | 'under';

/** Each check's own verdict on a call, whichever decided it. */
export interface CheckVerdicts {
  /** Whether the call's MCP tool matches its pin (`unpinned` for a call not through the gateway, or a tool not pinned). */
  toolPin?: {
    state: 'pinned' | 'unpinned' | 'changed';
    refused: boolean;
    /** The pin it compared with (`sha256:…`), when the tool has one. */
    pinned?: string;
  };
  readGuard: {
    status: ReadGuardStatus;
    applies: boolean;
    refused: boolean;
    maxBytes: number;
    /** The path, for a tool that reads one file (once it is a plain path). */
    path?: string;
    /** The paths, for a tool that reads several. */
    paths?: string[];
    /** The host's facts about them (never where a path resolved to). */
    files?: FileFact[];
    /** Why the path argument is not a plain path (`bad_path`). */
    problem?: string;
    /** The guarded arguments left out for their size (`withheld`). */
    withheld?: string[];
    /**
     * The asked lines that take more than the ceiling (`lines_over`), or could
     * not be measured (`lines_unmeasured`), with the bytes the host measured.
     */
    lines?: Array<LineSpan & { path: string }>;
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

/**
 * What the record says about the call's run: `open` only when it belongs to
 * the acting seat (or a seat of its recorded delegation chain), has started,
 * was not ended and has not outlived its bound. Any other status simply
 * means the same-run exception does not apply.
 */
export type RunStatus = 'open' | 'unknown' | 'foreign' | 'ended' | 'expired' | 'not_started';

/** The call's claimed delegation chain against the record. */
export interface DelegationVerdict {
  claimed: string[];
  /** The recorded prefix of `claimed`: only these seats count as upstream. */
  chain: string[];
  /** The first claimed manager without a live recorded delegation, when there is one. */
  unrecorded?: string;
}

/** What failed when a decision was made without the policy or the store: the rules or the compiled policy, or the store. */
export type FailureCause = 'policy' | 'store';

/**
 * What failed, and why: `reason` is the failure's own text (a file and
 * line, a database error) for the operator (the log, the status, the explanation); an agent
 * is told only what its `cause` means.
 */
export interface Failure {
  cause: FailureCause;
  reason: string;
}

/**
 * The answer for one call: what a gate acts on. It is the policy's hot
 * answer (`plangate/decide`, a {@link HotAnswer}) with its settings
 * described, each with its scope and source (`plangate/effective` for the
 * seat). A refusal is a normal decision, not an error. The shape is
 * `schemas/decision.schema.json`; an {@link Explanation} adds every
 * candidate and every check's verdict.
 */
export interface Decision {
  allowed: boolean;
  tool: string;
  class: ToolClass;
  /** Whether plan-required applies to this call at all. */
  gated: boolean;
  agent: string;
  agentKnown: boolean;
  /** The plan-required settings in force, each with where it came from; shared between decisions, so read-only. */
  settings: ReadonlySettings;
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
  /**
   * Present when the call needs a person's approval (and the checks in
   * front of the human gate let it through): the request, its status, and
   * who may approve (see core/approvals.ts).
   */
  approval?: ApprovalVerdict;
  /** Every message considered, with why it did or did not count: in an {@link Explanation}. */
  candidates?: Candidate[];
  /** Every check's own verdict: in an {@link Explanation} (absent from a fail-open one). */
  checks?: CheckVerdicts;
  /** Present when the call names a run: its id and what the record says about it. */
  run?: { id: string; status: RunStatus };
  /** Present when the call claims a delegation chain: how far the record backs it. */
  delegation?: DelegationVerdict;
  /** Present when the agent is held: its reviewer channel (hot answer only; an explanation has it in `checks.planningHold`). */
  reviewerChannel?: string;
  /** Present (true) when the call is to the agent's reviewer channel: the host records the plan instead of forwarding the call. */
  channelCall?: true;
  /** The read guard's verdict, when the read guard refused (hot answer only; an explanation has it in `checks.readGuard`). */
  readGuard?: CheckVerdicts['readGuard'];
  /** The pin's verdict, when a changed pinned tool was refused (hot answer only; an explanation has it in `checks.toolPin`). */
  toolPin?: CheckVerdicts['toolPin'];
  /**
   * Facts the policy needs before its answer is final: the paths a guarded
   * read names, whose size the host looks up (inside the read roots), and
   * for a line-counted read the lines to measure in a file over `upTo`
   * bytes. The gate gathers them and decides again.
   */
  needs?: { files: string[]; spans?: LineCount[]; upTo?: number };
  /**
   * Present when the rules or the policy could not be loaded, or the store
   * failed while the facts were gathered: the call went through as if the
   * mode were off, and this says what failed (`cause`) and why (`reason`,
   * for the operator: an agent is shown only its cause, see
   * `FAILURE_SHOWN_TO_AGENTS` in core/failopen.ts).
   */
  failOpen?: Failure;
  /**
   * Present when a held agent's call was decided without the policy or the
   * store (they failed): it is refused unless it is to the reviewer channel
   * (see core/failclosed.ts), and this says what failed, as `failOpen` does.
   */
  failClosed?: Failure;
  /**
   * Shadow mode: true when the rule in force does not enforce (`enforce:
   * false`) and the call would have been refused. The call is allowed;
   * `code`, `reason` and `message` say what would have happened.
   */
  shadow?: boolean;
}

/**
 * The policy's hot answer (`plangate/decide`, `schemas/hot.schema.json`): a
 * {@link Decision} with the settings in force as bare values, without the
 * call's tool and seat and whether the seat is on record (the gate's own
 * facts, which the policy does not repeat).
 */
export type HotAnswer = Omit<Decision, 'settings' | 'tool' | 'agent' | 'agentKnown'> & { settings: SettingValues };

/** The fields of an answer that the approvals on record decide (see plangate.compose.settled). */
export const SETTLED_FIELDS = ['allowed', 'check', 'code', 'message', 'reason', 'shadow', 'approval'] as const;

/**
 * What the approvals on record decide of a call whose first answer asked
 * for them (`plangate/approval_settled`): the fields of the hot answer they
 * can change. The gate sets them over the first answer, in place of that
 * answer's {@link SETTLED_FIELDS}.
 */
export type SettledAnswer = Pick<HotAnswer, Exclude<(typeof SETTLED_FIELDS)[number], 'approval'>> & { approval: ApprovalVerdict };

/**
 * The explanation of one call (the policy's explain entrypoint
 * `plangate/decision`): the decision's fields, every candidate message with
 * why it did or did not count, and every check's verdict
 * (`schemas/explanation.schema.json`).
 */
export interface Explanation extends Omit<Decision, 'channelCall' | 'readGuard' | 'reviewerChannel' | 'toolPin'> {
  candidates: Candidate[];
}
