/**
 * The workspace rule from the environment, for a deployment that wants one
 * fixed setting and no runtime edits.
 *
 * `PLANGATE_WORKSPACE_MODE` pins the workspace rule: the rule in force for
 * the workspace is exactly the one the environment describes, and a
 * workspace rule in the rule files is overridden (reported, not merged).
 * The other `PLANGATE_WORKSPACE_*` variables set the rule's other fields and
 * need `PLANGATE_WORKSPACE_MODE`. Crew and agent rules still come from the
 * files and still beat the workspace rule, as always. An empty variable
 * counts as unset.
 */
import { createHash } from 'node:crypto';
import { ErrorCode, PlangateError, type Problem } from '../core/errors.js';
import { MAX_WINDOW_MIN, MODES, type Mode, type PlanRuleField, type RulesData, type SourcedPlanRule } from '../core/types.js';

/** The variable behind each field of the workspace rule. */
export const WORKSPACE_ENV: Readonly<Record<PlanRuleField, string>> = {
  mode: 'PLANGATE_WORKSPACE_MODE',
  windowMin: 'PLANGATE_WORKSPACE_WINDOW_MIN',
  acceptUpstream: 'PLANGATE_WORKSPACE_ACCEPT_UPSTREAM',
  enforce: 'PLANGATE_WORKSPACE_ENFORCE',
};

/** What the environment says about the workspace rule. */
export interface WorkspaceEnv {
  /** The pinned workspace rule, when `PLANGATE_WORKSPACE_MODE` is set and every variable is valid. */
  rule?: SourcedPlanRule;
  /** The `PLANGATE_WORKSPACE_*` variables that are set (non-empty), by name. */
  variables: Record<string, string>;
  /** One problem per invalid variable, located as `env:NAME`. */
  problems: Problem[];
}

/**
 * Reads the `PLANGATE_WORKSPACE_*` variables.
 *
 * @example
 * readWorkspaceEnv({ PLANGATE_WORKSPACE_MODE: 'side_effects', PLANGATE_WORKSPACE_WINDOW_MIN: '10' }).rule
 * // { mode: 'side_effects', windowMin: 10, source: 'env:PLANGATE_WORKSPACE_MODE',
 * //   sources: { mode: 'env:PLANGATE_WORKSPACE_MODE', windowMin: 'env:PLANGATE_WORKSPACE_WINDOW_MIN' } }
 */
export function readWorkspaceEnv(env: NodeJS.ProcessEnv): WorkspaceEnv {
  const variables: Record<string, string> = {};
  for (const name of Object.values(WORKSPACE_ENV)) {
    const value = env[name];
    if (value !== undefined && value !== '') variables[name] = value;
  }
  const problems: Problem[] = [];
  const problem = (field: PlanRuleField, message: string): void => {
    problems.push({ file: `env:${WORKSPACE_ENV[field]}`, message });
  };
  const raw = (field: PlanRuleField): string | undefined => variables[WORKSPACE_ENV[field]]?.trim();

  const rule: Partial<SourcedPlanRule> = {};
  const sources: Partial<Record<PlanRuleField, string>> = {};
  const mode = raw('mode');
  if (mode !== undefined) {
    if ((MODES as readonly string[]).includes(mode)) rule.mode = mode as Mode;
    else problem('mode', `must be one of ${MODES.join(', ')} (got ${JSON.stringify(mode)})`);
  }
  const window = raw('windowMin');
  if (window !== undefined) {
    const n = /^\d+$/.test(window) ? Number(window) : NaN;
    if (Number.isSafeInteger(n) && n >= 1 && n <= MAX_WINDOW_MIN) rule.windowMin = n;
    else problem('windowMin', `must be a whole number of minutes from 1 to ${MAX_WINDOW_MIN} (got ${JSON.stringify(window)})`);
  }
  for (const field of ['acceptUpstream', 'enforce'] as const) {
    const value = raw(field);
    if (value === undefined) continue;
    if (value === 'true' || value === 'false') rule[field] = value === 'true';
    else problem(field, `must be true or false (got ${JSON.stringify(value)})`);
  }
  for (const field of Object.keys(rule) as PlanRuleField[]) sources[field] = `env:${WORKSPACE_ENV[field]}`;

  const others = Object.keys(variables).filter((name) => name !== WORKSPACE_ENV.mode);
  if (mode === undefined && others.length > 0) {
    for (const name of others) {
      problems.push({ file: `env:${name}`, message: `is set but ${WORKSPACE_ENV.mode} is not; the environment pins the whole workspace rule, so set the mode too` });
    }
  }
  if (problems.length > 0 || rule.mode === undefined) return { variables, problems };
  return { variables, problems, rule: { ...(rule as SourcedPlanRule), source: `env:${WORKSPACE_ENV.mode}`, sources } };
}

/**
 * The rules with the environment's workspace rule in force: a copy of `data`
 * whose workspace rule is `rule` (whatever the files said), or `data` itself
 * when the environment pins nothing.
 *
 * @example
 * const inForce = applyWorkspaceEnv(loaded.data, readWorkspaceEnv(process.env).rule);
 */
export function applyWorkspaceEnv(data: RulesData, rule: SourcedPlanRule | undefined): RulesData {
  if (!rule) return data;
  const { workspace: _fromFiles, ...rest } = data.planRequired;
  return { ...data, planRequired: { workspace: rule, ...rest } };
}

/**
 * The revision of the rules in force: the files' revision, combined with the
 * environment's rule when it pins one (so a changed pin is a new revision).
 *
 * @example
 * effectiveRevision(loaded.revision, undefined) === loaded.revision // true
 */
export function effectiveRevision(filesRevision: string, rule: SourcedPlanRule | undefined): string {
  if (!rule) return filesRevision;
  return createHash('sha256').update(`${filesRevision}\0env\0${JSON.stringify(rule)}`).digest('hex');
}

/**
 * Refuses an edit of the workspace rule while the environment pins it: the
 * environment overrides the rule files, so the edit would have no effect.
 * Throws `rules_edit_refused` naming the variables; crew and agent edits pass.
 *
 * @example
 * refuseIfWorkspacePinned({ kind: 'workspace' }, process.env); // throws when PLANGATE_WORKSPACE_MODE is set
 */
export function refuseIfWorkspacePinned(scope: { kind: 'workspace' | 'crew' | 'agent' }, env: NodeJS.ProcessEnv): void {
  refuseIfPinnedBy(scope, readWorkspaceEnv(env).variables);
}

/**
 * The same refusal, from the pinned variables a running plangate reports
 * (`status().env.pinned`).
 *
 * @example
 * refuseIfPinnedBy({ kind: 'crew', id: 'desk' }, { PLANGATE_WORKSPACE_MODE: 'off' }); // passes: only the workspace rule is pinned
 */
export function refuseIfPinnedBy(scope: { kind: 'workspace' | 'crew' | 'agent' }, pinned: Record<string, string>): void {
  if (scope.kind !== 'workspace') return;
  const entries = Object.entries(pinned);
  if (entries.length === 0) return;
  const vars = entries.map(([name, value]) => `${name}=${value}`).join(', ');
  throw new PlangateError(
    ErrorCode.RulesEditRefused,
    `refused: the workspace rule is pinned by the environment (${vars}). The environment overrides the rule files, so this edit would have no effect; change the deployment's environment instead. Crew and agent rules can still be edited.`,
  );
}
