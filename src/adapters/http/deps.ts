/**
 * What the routes need, as narrow interfaces. The app builds these from its
 * options; `plangate.ts` builds the options from an opened plangate.
 */
import type { AuditReader } from '../../audit/port.js';
import type { Call, Decision, PlanRule, RulesData } from '../../core/types.js';
import type { DecideOptions, Gate } from '../../gate/gate.js';
import type { OrgStore } from '../../facts/port.js';
import type { RuleScope, EditResult } from '../../rules/edit.js';
import type { RuntimeStatus } from '../../main/status.js';
import type { Executors } from './executors.js';
import type { Metrics } from './metrics.js';

/** The gate methods the routes use. */
export type HttpGate = Pick<Gate, 'decide' | 'explain' | 'say' | 'sayAsAgent' | 'settingsFor' | 'holds' | 'runs' | 'delegations' | 'approvals'> & Partial<Pick<Gate, 'quota'>>;

/** The org methods the routes use. */
export type HttpOrg = Pick<OrgStore, 'putCrew' | 'putAgent' | 'listCrews' | 'listAgents' | 'lineage'>;

/** The compiled policy, evaluated on a raw input by the OPA-compatible data API. */
export interface PolicyEvaluator {
  /** The entrypoint's value, or undefined when the policy leaves it undefined. */
  evaluate(entrypoint: string, input: unknown): unknown;
}

/** The rules in force. */
export interface RulesInForce {
  dir: string;
  revision: string;
  files: string[];
  loadedAt: Date | null;
  data: RulesData;
}

/** The outcome of a rules edit over HTTP. */
export interface RuleEdit extends EditResult {
  /** The revision in force after the edit (null when unknown). */
  revision: string | null;
  /** Whether the rules in force were reloaded after the file edit. */
  reloaded: boolean;
}

/** Reading and editing the rules. */
export interface RulesAccess {
  /** The rules in force, or undefined while none are (failing open). */
  inForce(): RulesInForce | undefined;
  /** Same validation and file edits as `plangate plan-required set`. */
  set(scope: RuleScope, rule: PlanRule): Promise<RuleEdit>;
  /** Same as `plangate plan-required clear`. */
  clear(scope: RuleScope): Promise<RuleEdit>;
}

/** Everything a route module receives. */
export interface HttpDeps {
  gate: HttpGate;
  org: HttpOrg;
  rules: RulesAccess;
  /** The policy in force, or undefined while there is none (failing open). */
  policy(): PolicyEvaluator | undefined;
  executors: Executors | undefined;
  status(): RuntimeStatus;
  metrics: Metrics;
  /** Reads the audit trail back (`GET /v1/audit`); undefined when the sink cannot be read. */
  audit: AuditReader | undefined;
  /** The seat's reviewer channel as the rules name it (for an agent host's hook); undefined: the built-in name. */
  channelFor?(seat: string): Promise<string>;
  /** `gate.decide`, timed and counted in the metrics. */
  decide(call: Call, options?: DecideOptions): Promise<Decision>;
  /** The operator's log for what a route meets outside a request (the app's `onError`). */
  onError(error: unknown, where: { method: string; route: string }): void;
}
