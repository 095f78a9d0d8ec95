/**
 * Applying a crew blueprint: the crew (with its parent) and its agents go
 * into the store; the controls the blueprint recommends are reported, and
 * written into the rule files only when asked (`applyRecommendedControls`),
 * never implied.
 */
import type { Blueprint } from '../rules/blueprint.js';
import { ErrorCode, PlangateError } from '../core/errors.js';
import { isValidId } from '../core/threads.js';
import type { PlanRule } from '../core/types.js';
import type { OrgStore } from '../facts/port.js';
import { setPlanRule, type EditResult } from '../rules/edit.js';

export interface ApplyBlueprintOptions {
  blueprint: Blueprint;
  /** The crew id to set up. */
  crew: string;
  store: Pick<OrgStore, 'putCrew' | 'putAgent'>;
  /** The rules directory the recommended crew rule is written to. */
  rulesDir: string;
  /** Also write the recommended crew rule into the rule files. Off unless asked. */
  applyRecommendedControls?: boolean;
}

/** What applying a blueprint did. */
export interface ApplyBlueprintResult {
  crew: { id: string; parent: string | null };
  agents: string[];
  /** The plan-required rule the blueprint recommends for the crew, if any. */
  recommended?: PlanRule & { source: string };
  /** Present when the recommended rule was written: the file and whether it changed. */
  applied?: EditResult;
}

/**
 * Sets up a crew from a blueprint.
 *
 * @example
 * const bp = await loadBlueprint('blueprints/trading-desk.yaml');
 * const r = await applyBlueprint({ blueprint: bp, crew: 'trading', store, rulesDir: 'rules' });
 * r.recommended // { mode: 'side_effects', windowMin: 15, source: 'trading-desk.yaml:9:3' } — not applied
 */
export async function applyBlueprint(options: ApplyBlueprintOptions): Promise<ApplyBlueprintResult> {
  const { blueprint, crew } = options;
  if (!isValidId(crew)) throw new PlangateError(ErrorCode.InvalidInput, `${JSON.stringify(crew)} is not a valid crew id`);
  const parent = blueprint.parent ?? null;
  const recommended = blueprint.recommends.planRequired;
  const result: ApplyBlueprintResult = { crew: { id: crew, parent }, agents: [...blueprint.agents], ...(recommended ? { recommended } : {}) };
  // The controls asked for go in first: a refused edit (a pinned workspace, an aliased rule) then
  // leaves no crew behind whose agents would run without them.
  if (options.applyRecommendedControls && recommended) {
    const { source: _where, ...rule } = recommended;
    result.applied = await setPlanRule(options.rulesDir, { kind: 'crew', id: crew }, rule);
  }
  await options.store.putCrew({ id: crew, parent });
  for (const agent of blueprint.agents) await options.store.putAgent({ id: agent, crew });
  return result;
}
