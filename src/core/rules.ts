/**
 * The rules' vocabulary: modes, tool classes, plan-required rules, tool
 * patterns, planning-gate settings and the normalized data document.
 */

/** Plan-required modes, weakest first. */
import type { ToolMatchIndex } from './patterns.js';
import type { QuotaKind, QuotaRule } from './quotas.js';
import type { ApprovalRule } from './approvals.js';

export const MODES = ['off', 'spends_only', 'side_effects'] as const;
export type Mode = (typeof MODES)[number];

/** How a tool is classified. Only `effect` and `spend` can ever be gated. */
export const TOOL_CLASSES = ['read', 'effect', 'spend', 'say'] as const;
export type ToolClass = (typeof TOOL_CLASSES)[number];

/** Default freshness window of a plan, in minutes. */
export const DEFAULT_WINDOW_MIN = 30;
/** Largest window a rule may set: one week. */
export const MAX_WINDOW_MIN = 10_080;

/** Default longest run, in minutes (24 hours), when the rules set no `runs.maxMinutes`. */
export const DEFAULT_MAX_RUN_MIN = 1440;

/** Where a rule or setting comes from. */
export type ScopeKind = 'workspace' | 'crew' | 'agent';


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
  /** The tool through which a held agent sends its plan; `plangate_submit_plan` when unset. */
  reviewerChannel?: string;
  /** Whole-file reads larger than this many bytes are refused; 0 (the default) turns the read guard off. */
  readGuardMaxBytes?: number;
}

/** Where the read guard finds the path and the range of a read tool's call. */
export interface ReadGuardTool {
  /** The argument holding the file's path (a tool that reads one file). */
  path?: string;
  /** The argument holding an array of paths (a tool that reads several files, each checked). */
  paths?: string;
  /** Arguments that ask for a part of the file; a call setting any of them is not a whole-file read. */
  range: string[];
  /**
   * Arguments that ask for the first (`head`) or last (`tail`) N lines. Lines
   * do not bound bytes: the host measures them in a file over the ceiling.
   */
  lines?: { head?: string; tail?: string };
  /**
   * Arguments that say where the read starts (an offset): they do not bound
   * it, so a call giving only them reads the rest of the file.
   */
  skip?: string[];
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
    /** The patterns as shapes, prefixes and suffixes, for matching without compiling them (see core/patterns.ts). */
    match?: ToolMatchIndex;
  };
  /** Planning-gate settings; absent when no rule file sets any (everything built in). */
  planningGate?: {
    defaults?: PlanningSettings & { source: string };
    profiles: Record<string, PlanningSettings & { source: string }>;
    /** The profile each crew picks (its child crews inherit the pick unless they have their own). */
    crews: Record<string, { profile: string; source: string }>;
    agents: Record<string, { profile: string; source: string }>;
  };
  /** Bounds on runs; absent when no rule file sets any (a run then stays open at most {@link DEFAULT_MAX_RUN_MIN} minutes). */
  runs?: { maxMinutes: number; source: string };
  /** The read tools the read guard watches; absent when no rule file lists any. */
  /** The read tools the guard knows, and the directories it may look in (`roots`, when the rules set them). */
  readGuard?: { tools: Record<string, ReadGuardTool>; roots?: string[] };
  /** The human gate's rules by scope (policies/plangate/approval.rego); absent when no rule file has any. */
  approvals?: { workspace?: ApprovalRule; crews: Record<string, ApprovalRule>; agents: Record<string, ApprovalRule> };
  /**
   * The MCP gateway's upstream tools: the upstreams whose annotations may
   * classify their tools, and each upstream's pins (tool name there →
   * `sha256:…` of its definition); absent when no rule file sets any.
   */
  mcp?: { trustAnnotations: string[]; pins: Record<string, Record<string, string>> };
  /** Per-seat quotas by kind of write; absent when no rule file sets any (the policy's defaults apply). */
  quotas?: Partial<Record<QuotaKind, QuotaRule>>;
}

