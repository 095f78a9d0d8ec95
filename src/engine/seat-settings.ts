/**
 * The described plan-required settings of each seat, for one engine. The
 * hot answer gives the settings in force as bare values; a decision reports
 * each with its scope and source. Those depend only on the rules (fixed for
 * an engine's life) and on the seat's id and crews, so the policy is asked
 * for them (`plangate/effective`) once per seat, and asked again whenever
 * the kept ones do not carry the values the hot answer gave. Seats with
 * equal settings share one frozen object.
 */
import { ErrorCode, PlangateError } from '../core/errors.js';
import type { EffectiveSettings, Lineage, ReadonlySettings, SettingValues } from '../core/types.js';

/**
 * Most seats one engine keeps the settings of; past it, the kept ones are
 * dropped and asked for again. As many as the SQLite store keeps crew chains
 * for: an org larger than the bound would ask the policy twice per call.
 */
export const SEAT_SETTINGS_KEPT = 100_000;

/** Returns the described settings of a seat whose hot answer gave `values`. */
export type SeatSettings = (seat: Lineage, values: SettingValues) => ReadonlySettings;

/**
 * @example
 * const described = seatSettings((seat) => engine.effective(seat));
 * described(input.agent, hot.settings); // { mode: { value, scope, id?, source? }, … }
 */
export function seatSettings(describe: (seat: Lineage) => EffectiveSettings, most = SEAT_SETTINGS_KEPT): SeatSettings {
  // By seat id, with the crews they were asked for: a seat whose chain changed is asked again.
  const kept = new Map<string, { crews: readonly string[]; settings: ReadonlySettings }>();
  // Seats under the same rules have equal settings: one object for each distinct answer, so
  // that a large org costs a map entry per seat, not a copy of its settings.
  const distinct = new Map<string, ReadonlySettings>();
  return (seat, values) => {
    const known = kept.get(seat.id);
    if (known !== undefined && sameCrews(known.crews, seat.crews) && carries(known.settings, values)) return known.settings;
    const answer = describe(seat);
    if (!carries(answer, values)) {
      throw new PlangateError(ErrorCode.PolicyResultInvalid, `the policy answered other settings for ${seat.id} than its decision used`);
    }
    if (kept.size >= most) {
      kept.clear();
      distinct.clear();
    }
    const text = JSON.stringify(answer);
    let shared = distinct.get(text);
    if (shared === undefined) {
      // Frozen: every decision of these seats carries this one object.
      for (const setting of Object.values(answer)) Object.freeze(setting);
      shared = Object.freeze(answer);
      distinct.set(text, shared);
    }
    kept.set(seat.id, { crews: Array.isArray(seat.crews) ? [...seat.crews] : [], settings: shared });
    return shared;
  };
}

function sameCrews(a: readonly string[], b: readonly string[] | undefined): boolean {
  if (!Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function carries(s: ReadonlySettings, v: SettingValues): boolean {
  return s.mode.value === v.mode && s.windowMin.value === v.windowMin && s.acceptUpstream.value === v.acceptUpstream && s.enforce.value === v.enforce;
}
