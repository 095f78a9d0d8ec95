/**
 * Rules: YAML files → parse → validate (schemas/rules.schema.json) →
 * normalized `RulesData`, and in-place edits of the rule files.
 */
export { decodeRuleText } from './decode.js';
export { clearPlanRule, NEW_RULE_FILE, setPlanRule, type EditResult, type RuleScope } from './edit.js';
export {
  checkRules,
  compileRules,
  loadRules,
  rulesError,
  type CompiledRules,
  type LoadedRules,
  type RuleSource,
  type RulesCheck,
} from './load.js';
export { emptyRulesData, normalizeRules } from './normalize.js';
export { MAX_ALIAS_COUNT, MAX_ALIASES } from './aliases.js';
export { parseRuleFile, type ParsedRuleFile, type Pos } from './parse.js';
export { isRuleFileName, MAX_RULE_FILE_BYTES, MAX_RULE_FILES, readRuleDir, type RawRuleFile, type RuleDirRead } from './read.js';
export { RULES_SCHEMA_URL, rulesSchema, validateRuleFile } from './schema.js';
export { BLUEPRINT_SCHEMA_URL, loadBlueprint, parseBlueprint, type Blueprint } from './blueprint.js';
