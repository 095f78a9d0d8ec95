import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { generate, VALIDATORS } from '../../scripts/validators.mjs';
import { checkCall } from '../../src/gate/call.js';
import { validateRuleFile } from '../../src/rules/schema.js';
import { parseRuleFile } from '../../src/rules/parse.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('the generated schema validators', () => {
  it('are those the schemas give now (npm run build writes them again)', () => {
    for (const v of VALIDATORS) {
      expect({ file: v.file, source: readFileSync(join(ROOT, v.file), 'utf8') }).toEqual({ file: v.file, source: generate(v) });
    }
  });

  it('judge a call as the schema compiled at run time does, errors included', () => {
    const schema = JSON.parse(readFileSync(join(ROOT, 'schemas', 'call.schema.json'), 'utf8'));
    const compiled = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
    const calls: unknown[] = [
      { agent: '0xW', tool: 'github.merge' },
      { agent: '0xW', tool: 'x', runId: '', delegatedBy: ['bad id'], at: -1, args: JSON.parse('{"__proto__": 1, "a b": 2}'), omittedArgs: ['p', 'p'] },
      { agent: 7, tool: 'x', annotations: { readOnlyHint: 'yes', other: true }, extra: 1 },
      'not an object',
    ];
    for (const call of calls) {
      const valid = compiled(call);
      let thrown: unknown;
      try {
        checkCall(call, 0);
      } catch (error) {
        thrown = error;
      }
      expect({ call, refused: thrown !== undefined }).toEqual({ call, refused: !valid });
      if (!valid) expect({ call, problems: (thrown as { details?: unknown[] }).details?.length, thrown: String(thrown) }).toEqual({ call, problems: compiled.errors?.length, thrown: String(thrown) });
    }
  });

  it('word a rule file\'s errors at their place, with the schema the error names (verbose)', () => {
    const { parsed } = parseRuleFile('bad.yaml', 'planRequired:\n  workspace:\n    mode: sometimes\n    windowMin: 0\n');
    const problems = validateRuleFile(parsed as NonNullable<typeof parsed>);
    expect(problems.map((p) => `${p.line}:${p.col} ${p.message}`)).toEqual([
      expect.stringMatching(/^3:11 .*must be one of off, spends_only, side_effects \(got "sometimes"\)/),
      expect.stringMatching(/^4:16 .*must be an integer from 1 to \d+ \(got 0\)/),
    ]);
  });
});
