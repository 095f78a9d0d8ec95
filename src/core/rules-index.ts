/**
 * The rules as the policy reads them: the rules document with the indexes
 * the host computes once per rules revision (tool patterns by shape, and the
 * settings each rule sets, described), so that no evaluation redoes that work.
 */
import { withMatchIndex } from './patterns.js';
import type { RulesData } from './rules.js';
import { settingsIndex, type SettingsIndex } from './settings-index.js';

/** A rules document with its indexes (`tools.match`, `index.settings`). */
export type IndexedRules = RulesData & { index: { settings: SettingsIndex } };

/**
 * The data document's `plangate.rules`: the rules with their indexes. The
 * settings index is always recomputed, so it never describes other rules.
 *
 * @example
 * policy.setData({ plangate: { rules: withIndexes(rules) } });
 */
export function withIndexes(data: RulesData): IndexedRules {
  return { ...withMatchIndex(data), index: { settings: settingsIndex(data) } };
}
