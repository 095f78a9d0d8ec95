/**
 * Request bodies and configuration files are checked against the JSON
 * Schemas in `schemas/http/` (ajv, strict, every error collected). A body
 * that fails never reaches the gate; the answer names each field.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { ErrorCode, PlangateError, type Problem } from '../../core/errors.js';
import { createAjv } from '../../rules/ajv.js';

const SCHEMAS = new URL('../../../schemas/', import.meta.url);
const HTTP_SCHEMAS = new URL('http/', SCHEMAS);

let compiled: Map<string, ValidateFunction> | undefined;

/**
 * Every schema of `schemas/http/`, compiled on first use: a command that
 * never checks a request or a configuration file (a hook) does not pay for
 * compiling them.
 */
function validators(): Map<string, ValidateFunction> {
  if (compiled) return compiled;
  const ajv = createAjv({ allErrors: true, strict: true });
  // The call schema is shared with the gate, so ids and tool names have one definition.
  ajv.addSchema(JSON.parse(readFileSync(new URL('call.schema.json', SCHEMAS), 'utf8')));
  const byName = new Map<string, ValidateFunction>();
  for (const file of readdirSync(HTTP_SCHEMAS).filter((f) => f.endsWith('.schema.json')).sort()) {
    const schema = JSON.parse(readFileSync(new URL(file, HTTP_SCHEMAS), 'utf8'));
    ajv.addSchema(schema);
    byName.set(file.replace(/\.schema\.json$/, ''), ajv.getSchema(schema.$id) as ValidateFunction);
  }
  compiled = byName;
  return byName;
}

/**
 * Checks `value` against the named schema; throws `invalid_input` listing
 * every problem, each with its JSON pointer and a message naming the field.
 * Values are never echoed (a token or a message body could be one).
 *
 * @example
 * checkSchema('say', body, 'body'); // throws: body.kind is required; body: unknown field "author"
 */
export function checkSchema<T>(name: string, value: unknown, where = 'body'): T {
  const validate = validators().get(name);
  if (!validate) throw new Error(`no schema named ${name}`);
  if (validate(value)) return value as T;
  const errors = validate.errors ?? [];
  const telling = errors.filter(relevant);
  const problems = dedupe((telling.length ? telling : errors).map((e) => toProblem(e, where)));
  throw new PlangateError(ErrorCode.InvalidInput, `invalid ${where}: ${problems.map((p) => p.message).join('; ')}`, problems);
}

/** `oneOf`/`if` wrappers only repeat what their branches already said. */
function relevant(e: ErrorObject): boolean {
  return e.keyword !== 'if' && e.keyword !== 'oneOf' && e.keyword !== 'anyOf' && e.keyword !== 'not';
}

function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => (seen.has(p.message) ? false : (seen.add(p.message), true)));
}

function toProblem(e: ErrorObject, where: string): Problem {
  const field = where + e.instancePath.split('/').slice(1).map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`)).join('');
  const path = e.instancePath || '/';
  switch (e.keyword) {
    case 'additionalProperties':
      return { path, message: `${field}: unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"` };
    case 'required': {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      return { path: `${e.instancePath}/${missing}`, message: `${field}.${missing} is required` };
    }
    case 'type':
      return { path, message: `${field} must be ${(e.params as { type: string }).type}` };
    case 'enum':
      return { path, message: `${field} must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')}` };
    default:
      return { path, message: `${field} ${e.message ?? 'is invalid'}` };
  }
}
