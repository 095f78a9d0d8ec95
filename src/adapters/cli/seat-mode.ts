/**
 * What a seat runs under, as the commands that set a seat up or serve it
 * say it: its plan-required settings and where each comes from, and a
 * warning when nothing is refused for want of a plan (mode `off`, or shadow
 * mode), so that a seat is never left ungated without a word.
 */
import type { EffectiveSettings, SettingSource } from '../../core/decision.js';

/** Where a setting comes from, as the user reads it. */
function origin(s: SettingSource<unknown>): string {
  if (s.scope === 'default') return 'the default';
  const rule = s.scope === 'workspace' ? 'the workspace rule' : `the ${s.scope} rule for ${s.id}`;
  return s.source ? `${rule}, ${s.source}` : rule;
}

/**
 * One line: the seat's mode, window and shadow mode, with where the mode comes from.
 *
 * @example
 * describeSeat('0xDEV', settings) // 'plan-required for 0xDEV: mode side_effects (the agent rule for 0xDEV, seats.yaml:10:5), window 10 min'
 */
export function describeSeat(seat: string, s: EffectiveSettings): string {
  return `plan-required for ${seat}: mode ${s.mode.value} (${origin(s.mode)}), window ${s.windowMin.value} min${s.enforce.value ? '' : ', shadow (enforce: false)'}`;
}

/** The warning for a seat whose calls are never refused for want of a plan; undefined when some are. */
export function ungatedWarning(seat: string, s: EffectiveSettings): string | undefined {
  if (s.mode.value === 'off') return `${seat} runs under mode off (${origin(s.mode)}): none of its calls is refused for want of a plan; to gate it: plangate plan-required set --agent ${seat} --mode side_effects`;
  if (!s.enforce.value) return `${seat} is in shadow mode (${origin(s.enforce)}): a call without a plan is audited and counted, and goes through`;
  return undefined;
}
