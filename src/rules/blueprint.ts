/**
 * Crew blueprints: a YAML file describing a crew (its parent, its agents)
 * and the controls it *recommends* (a plan-required rule). Parsed and
 * validated like rule files — strict UTF-8, the same YAML options, a JSON
 * Schema (`schemas/blueprint.schema.json`), every problem as file:line:col.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv } from './ajv.js';
import { isScalar } from 'yaml';
import { ErrorCode, formatProblem, PlangateError, type Problem } from '../core/errors.js';
import type { PlanRule } from '../core/types.js';
import { decodeRuleText } from './decode.js';
import { deref, parseRuleFile, walk, isRecord } from './parse.js';
import { readRuleFile, unreadReason } from './read.js';
import { rulesSchema, validateParsed } from './schema.js';

/** Where the blueprint schema lives in the package. */
export const BLUEPRINT_SCHEMA_URL = new URL('../../schemas/blueprint.schema.json', import.meta.url);

/** A validated crew blueprint. */
export interface Blueprint {
  /** The file it was read from, as given. */
  file: string;
  name: string;
  description?: string;
  /** The parent crew, if any. */
  parent?: string;
  /** Agents to put in the crew. */
  agents: string[];
  /** The recommended plan-required rule for the crew, if any (with its `file:line:col`). */
  recommends: { planRequired?: PlanRule & { source: string } };
}

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (!compiled) {
    const ajv = createAjv({ allErrors: true, strict: true, verbose: true });
    ajv.addSchema(rulesSchema());
    compiled = ajv.compile(JSON.parse(readFileSync(BLUEPRINT_SCHEMA_URL, 'utf8')) as object);
  }
  return compiled;
}

/**
 * Parses and validates a blueprint held in memory.
 *
 * @example
 * const { blueprint, problems } = parseBlueprint('desk.yaml', 'name: desk\nrecommends:\n  planRequired: { mode: side_effects }\n');
 * blueprint?.recommends.planRequired // { mode: 'side_effects', source: 'desk.yaml:3:3' }
 */
export function parseBlueprint(file: string, text: string | Uint8Array): { blueprint?: Blueprint; problems: Problem[] } {
  const label = path.basename(file);
  let source: string;
  if (typeof text === 'string') source = text;
  else {
    const decoded = decodeRuleText(label, text);
    if (!decoded.ok) return { problems: [decoded.problem] };
    source = decoded.text;
  }
  const { parsed, problems } = parseRuleFile(label, source);
  if (!parsed) return { problems };
  // Ids are read as written (0x10 stays the text "0x10"), as in rule files.
  const { doc, data } = parsed;
  if (isRecord(data)) {
    const asWritten = (at: Array<string | number>): string | undefined => {
      const node = deref(doc, walk(doc, at).node);
      return isScalar(node) && typeof node.source === 'string' && typeof node.value !== 'string' ? node.source : undefined;
    };
    if (Array.isArray(data['agents'])) {
      data['agents'] = data['agents'].map((id: unknown, i) => asWritten(['agents', i]) ?? id);
    }
    if (isRecord(data['crew']) && data['crew']['parent'] !== undefined) {
      data['crew']['parent'] = asWritten(['crew', 'parent']) ?? data['crew']['parent'];
    }
  }
  const invalid = validateParsed(validator(), parsed);
  if (invalid.length > 0) return { problems: invalid };

  const bp = data as { name: string; description?: string; crew?: { parent?: string }; agents?: string[]; recommends?: { planRequired?: PlanRule } };
  const rule = bp.recommends?.planRequired;
  const at = parsed.locate(['recommends', 'planRequired'], 'key');
  return {
    problems: [],
    blueprint: {
      file,
      name: bp.name,
      ...(bp.description !== undefined ? { description: bp.description } : {}),
      ...(bp.crew?.parent !== undefined ? { parent: bp.crew.parent } : {}),
      agents: bp.agents ?? [],
      recommends: rule ? { planRequired: { ...pickRule(rule), source: `${label}:${at.line}:${at.col}` } } : {},
    },
  };
}

/**
 * Reads a blueprint file. Throws `invalid_input` with every problem
 * (file:line:col) when it cannot be read or is invalid.
 *
 * @example
 * const bp = await loadBlueprint('blueprints/trading-desk.yaml');
 */
export async function loadBlueprint(file: string): Promise<Blueprint> {
  // Read as a rule file is: a FIFO does not hang the command, and the size is checked before the read.
  const read = await readRuleFile(file, path.basename(file), 'blueprints');
  if (read.kind !== 'file') {
    const message = `cannot read the blueprint: ${unreadReason(read)}`;
    throw new PlangateError(ErrorCode.InvalidInput, `${file}: ${message}`, [{ file, message }]);
  }
  const { blueprint, problems } = parseBlueprint(file, read.bytes);
  if (!blueprint) throw new PlangateError(ErrorCode.InvalidInput, problems.map(formatProblem).join('\n'), problems);
  return blueprint;
}

function pickRule(r: PlanRule): PlanRule {
  return {
    mode: r.mode,
    ...(r.windowMin !== undefined ? { windowMin: r.windowMin } : {}),
    ...(r.acceptUpstream !== undefined ? { acceptUpstream: r.acceptUpstream } : {}),
    ...(r.enforce !== undefined ? { enforce: r.enforce } : {}),
  };
}
