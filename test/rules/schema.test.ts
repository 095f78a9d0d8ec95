import { describe, expect, test } from 'vitest';
import { ID_PATTERN, RESERVED_IDS } from '../../src/core/threads.js';
import { MAX_WINDOW_MIN, MODES, TOOL_CLASSES } from '../../src/core/types.js';
import { checkRules } from '../../src/rules/load.js';
import { rulesSchema } from '../../src/rules/schema.js';

type Json = Record<string, unknown>;
const schema = rulesSchema() as Json & { $defs: Record<string, Json> };
const defs = schema.$defs;

/** Every subschema, with its JSON pointer. */
function* subschemas(node: unknown, at = '#'): Generator<[string, Json]> {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
  const s = node as Json;
  yield [at, s];
  for (const key of ['properties', '$defs'] as const) {
    for (const [name, sub] of Object.entries((s[key] as Json | undefined) ?? {})) yield* subschemas(sub, `${at}/${key}/${name}`);
  }
  for (const key of ['items', 'additionalProperties', 'propertyNames', 'not'] as const) yield* subschemas(s[key], `${at}/${key}`);
}

describe('schemas/rules.schema.json', () => {
  test('is draft 2020-12 with an $id', () => {
    expect(schema['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema['$id']).toEqual(expect.any(String));
  });

  test('agrees with the core vocabulary', () => {
    expect(defs['mode']?.['enum']).toEqual([...MODES]);
    expect(defs['toolClass']?.['enum']).toEqual([...TOOL_CLASSES]);
    const windowMin = (defs['planRule']?.['properties'] as Record<string, Json>)['windowMin'];
    expect(windowMin).toMatchObject({ type: 'integer', minimum: 1, maximum: MAX_WINDOW_MIN });
    expect(defs['id']?.['pattern']).toBe(ID_PATTERN.source);
    expect((defs['id']?.['not'] as Json)['enum']).toEqual([...RESERVED_IDS]);
  });

  test('closes every object and describes every property and definition', () => {
    for (const [at, s] of subschemas(schema)) {
      if (s['properties']) expect(s['additionalProperties'], at).toBe(false);
      if (/\/(properties|\$defs)\/[^/]+$/.test(at)) expect(s['description'], at).toEqual(expect.any(String));
    }
  });

  test('tool entries: exact names as specified, and * ? patterns', () => {
    const entries = ['github.merge_pull_request', '_private', 'a:b/c@d-e', 'x'.repeat(256), 'github.get_*', '*.search', 'a?c', '0x1'];
    const bad = ['', '-x', '.x', 'a b', 'x'.repeat(257), '[ab]', '{a,b}', 'a\\*', '!x'];
    for (const e of entries) expect(checkRules([{ file: 'a.yaml', text: `tools:\n  read: [${JSON.stringify(e)}]\n` }]).problems, e).toEqual([]);
    for (const e of bad) expect(checkRules([{ file: 'a.yaml', text: `tools:\n  read: [${JSON.stringify(e)}]\n` }]).problems, e).toHaveLength(1);
  });

  test('ids: the core id rules', () => {
    const ok = ['desk', '0xWORKER', 'a.b_c:d@e/f-g', 'x'.repeat(128)];
    const bad = ['-desk', '_desk', 'x'.repeat(129), 'a b', 'constructor', 'prototype', '__proto__'];
    const text = (id: string) => `planRequired:\n  crews:\n    ${JSON.stringify(id)}: { mode: off }\n`;
    for (const id of ok) expect(checkRules([{ file: 'a.yaml', text: text(id) }]).problems, id).toEqual([]);
    for (const id of bad) expect(checkRules([{ file: 'a.yaml', text: text(id) }]).problems, id).toHaveLength(1);
  });
});
