/**
 * The rules as the policy reads them: the rules document with the indexes
 * the host computes once per rules revision (tool patterns and whitelists by
 * shape, and the settings each rule sets, described), so that no evaluation
 * redoes that work.
 */
import { whitelistIndex, withMatchIndex, type WhitelistIndex } from './patterns.js';
import type { RulesData } from './rules.js';
import { settingsIndex, type SettingsIndex } from './settings-index.js';

/** Each planning-gate whitelist, indexed: the defaults' and each profile's that sets one. */
export interface WhitelistsIndex {
  defaults?: WhitelistIndex;
  profiles: Record<string, WhitelistIndex>;
}

/** A rules document with its indexes (`tools.match`, `index.settings`, `index.whitelists`). */
export type IndexedRules = RulesData & { index: { settings: SettingsIndex; whitelists: WhitelistsIndex } };

/**
 * The whitelists of the planning-gate settings, indexed, by where each is
 * set; a list the rules leave unset has no entry (the policy then takes the
 * next one, as it does the list itself).
 *
 * @example
 * whitelistsIndex(rules).profiles['strict']?.exact // { 'fs.read_file': true }
 */
export function whitelistsIndex(data: RulesData): WhitelistsIndex {
  const gate = data.planningGate;
  const profiles: Record<string, WhitelistIndex> = Object.create(null);
  for (const [name, profile] of Object.entries(gate?.profiles ?? {})) {
    if (Array.isArray(profile?.whitelist)) profiles[name] = whitelistIndex(profile.whitelist);
  }
  const defaults = gate?.defaults?.whitelist;
  return Array.isArray(defaults) ? { defaults: whitelistIndex(defaults), profiles } : { profiles };
}

/**
 * The data document's `plangate.rules`: the rules with their indexes. The
 * settings and whitelist indexes are always recomputed, so they never
 * describe other rules.
 *
 * @example
 * policy.setData({ plangate: { rules: withIndexes(rules) } });
 */
export function withIndexes(data: RulesData): IndexedRules {
  return { ...withMatchIndex(data), index: { settings: settingsIndex(data), whitelists: whitelistsIndex(data) } };
}
