/**
 * JSON Schema validation of one parsed rule file (ajv, draft 2020-12), with
 * every error turned into a located, human sentence.
 */
import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { Problem } from '../core/errors.js';
import { validate as generatedRulesValidator } from './generated/rules-validator.js';
import { describePath, isRecord, toPointer, type ParsedRuleFile, type PathSegment } from './parse.js';

/** Where the rule-file schema lives (`schemas/rules.schema.json` in the package). */
export const RULES_SCHEMA_URL = new URL('../../schemas/rules.schema.json', import.meta.url);

/**
 * The rule-file schema as a standalone validator (allErrors, strict,
 * verbose), generated at build time (scripts/build-validators.mjs): nothing
 * compiles it when a process starts.
 */
const validateRulesSchema = generatedRulesValidator as ValidateFunction;

/**
 * The rule-file schema as a plain object.
 *
 * @example
 * rulesSchema().$id // 'urn:plangate:schema:rules:v1'
 */
export function rulesSchema(): Record<string, unknown> {
  return JSON.parse(readFileSync(RULES_SCHEMA_URL, 'utf8')) as Record<string, unknown>;
}

/**
 * Validates one parsed rule file; returns one problem per violation, each
 * located at the offending node (or key), e.g.
 * `plan.yaml:4:11: planRequired.crews.0xDESK.mode: must be one of off, spends_only, side_effects (got "sometimes")`.
 *
 * @example
 * const problems = validateRuleFile(parsed); // [] when valid
 */
export function validateRuleFile(parsed: ParsedRuleFile): Problem[] {
  return validateParsed(validateRulesSchema, parsed);
}

/**
 * Validates a parsed YAML file against any compiled schema (e.g. a crew
 * blueprint), with the same located, human problems as rule files. The
 * validator must be compiled with `allErrors` and `verbose`.
 *
 * @example
 * const problems = validateParsed(new Ajv2020({ allErrors: true, verbose: true }).compile(schema), parsed);
 */
export function validateParsed(validate: ValidateFunction, parsed: ParsedRuleFile): Problem[] {
  if (validate(parsed.data)) return [];
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const e of pickErrors(validate.errors ?? [])) {
    const p = toProblem(parsed, e);
    const key = `${p.line}:${p.col}:${p.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      problems.push(p);
    }
  }
  return problems;
}

/** Drops the `propertyNames` summaries and, per bad key, keeps `not` (reserved) over `pattern`. */
function pickErrors(errors: ErrorObject[]): ErrorObject[] {
  const reserved = new Set(errors.filter((e) => e.keyword === 'not').map((e) => `${e.instancePath}\0${e.propertyName}`));
  return errors.filter((e) => {
    if (e.keyword === 'propertyNames') return false;
    if (e.propertyName !== undefined && e.keyword !== 'not') return !reserved.has(`${e.instancePath}\0${e.propertyName}`);
    return true;
  });
}

function toProblem(parsed: ParsedRuleFile, e: ErrorObject): Problem {
  const path = pointerToPath(e.instancePath);
  const params = e.params as Record<string, unknown>;
  const schema = (e.parentSchema ?? {}) as Record<string, unknown>;
  const problem = (at: readonly PathSegment[], part: 'key' | 'value', subject: readonly PathSegment[], message: string): Problem => ({
    file: parsed.file,
    ...parsed.locate(at, part),
    path: toPointer(e.propertyName !== undefined ? [...path, e.propertyName] : path),
    message: `${subject.length > 0 ? describePath(parsed.data, subject) : '(top level)'}: ${message}`,
  });

  if (e.propertyName !== undefined) {
    const last = path[path.length - 1];
    const id = JSON.stringify(e.propertyName);
    if (last === 'tools') {
      const message = `${id} is not a tool name (letters, digits and _.:/@-, at most 256 characters; no wildcards)`;
      return problem([...path, e.propertyName], 'key', path, message);
    }
    const kind = last === 'agents' ? 'agent' : last === 'profiles' ? 'profile' : 'crew';
    const what = kind === 'profile' ? 'profile name' : `${kind} id`;
    const message =
      e.keyword === 'not'
        ? `${id} is a reserved name and cannot be ${kind === 'agent' ? 'an' : 'a'} ${what}`
        : `${id} is not a valid ${what} (letters, digits and ._:@/-, starting with a letter or digit, at most 128 characters)`;
    return problem([...path, e.propertyName], 'key', path, message);
  }
  switch (e.keyword) {
    case 'additionalProperties': {
      const name = String(params['additionalProperty']);
      const allowed = Object.keys((schema['properties'] as object | undefined) ?? {});
      const hint = allowed.length > 0 ? ` (expected ${allowed.join(', ')})` : '';
      return problem([...path, name], 'key', path, `unknown key ${JSON.stringify(name)}${hint}`);
    }
    case 'required':
      return problem(path, 'value', path, `missing required key ${JSON.stringify(params['missingProperty'])}`);
    case 'enum':
      return problem(path, 'value', path, `must be one of ${(params['allowedValues'] as unknown[]).join(', ')} (got ${got(e.data)})`);
    case 'type':
    case 'minimum':
    case 'maximum':
      if (schema['type'] === 'integer' && typeof schema['minimum'] === 'number' && typeof schema['maximum'] === 'number') {
        // Worded around the setting: "planRequired.workspace: windowMin must be an integer from 1 to 10080 (got -5)".
        const range = `must be an integer from ${schema['minimum']} to ${schema['maximum']} (got ${got(e.data)})`;
        return problem(path, 'value', path.slice(0, -1), `${String(path[path.length - 1])} ${range}`);
      }
      if (e.keyword === 'type') return problem(path, 'value', path, `must be ${typeWord(params['type'])} (got ${got(e.data)})`);
      return problem(path, 'value', path, `${e.message ?? 'is out of range'} (got ${got(e.data)})`);
    case 'pattern':
      if (e.schemaPath.includes('toolList')) {
        return problem(
          path,
          'value',
          path,
          `${e.data === '' ? 'an empty entry' : JSON.stringify(e.data)} is not a tool name or pattern (letters, digits and _.:/@-, with * and ? as wildcards, at most 256 characters)`,
        );
      }
      return problem(path, 'value', path, `must match ${String(params['pattern'])} (got ${got(e.data)})`);
    default:
      return problem(path, 'value', path, `${e.message ?? 'is invalid'}`);
  }
}

function typeWord(type: unknown): string {
  const words: Record<string, string> = {
    object: 'a map',
    array: 'a list',
    string: 'text',
    integer: 'an integer',
    number: 'a number',
    boolean: 'true or false',
  };
  return words[String(type)] ?? String(type);
}

/** A short rendering of a value for "(got …)". */
function got(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (isRecord(value)) return 'a map';
  if (typeof value === 'number') return String(value);
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** `/planRequired/crews/a~1b` → ['planRequired', 'crews', 'a/b'] */
function pointerToPath(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}
