/**
 * The operations snippets of docs/ run as written: the environment's worked
 * example (commands and their output, docs/reference/environment.md), the
 * blueprint and the shadow-mode YAML (docs/guides/rules-and-blueprints.md).
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBlueprint } from '../../src/rules/blueprint.js';
import { checkRules } from '../../src/rules/load.js';
import { cli, tempDir } from '../cli/run.js';
import { snippet } from './snippets.js';

describe('the operations docs', () => {
  it('environment precedence: the worked example prints what it shows', async () => {
    const lines = snippet('environment').trimEnd().split('\n');
    const dir = tempDir();
    const rules = join(dir, 'rules');
    cpSync(join(import.meta.dirname, '..', '..', 'examples', 'rules'), rules, { recursive: true });
    const env: Record<string, string> = { PLANGATE_RULES: rules, PLANGATE_STORE: join(dir, 'store.db'), PLANGATE_AUDIT: join(dir, 'audit.jsonl') };
    await cli(['org', 'crew', 'ops'], env);
    await cli(['org', 'agent', '0xOPS', '--crew', 'ops'], env);

    let ran = 0;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string;
      if (!line.startsWith('$ ')) continue;
      const command = line.slice(2).replace(/\s+#.*$/, '');
      const expected: string[] = [];
      while (i + 1 < lines.length && !(lines[i + 1] as string).startsWith('$ ')) expected.push(lines[++i] as string);
      if (command.startsWith('export ')) {
        for (const pair of command.slice(7).split(/\s+/)) {
          const [name, value] = pair.split('=');
          env[name as string] = value as string;
        }
        continue;
      }
      const args = command.split(/\s+/).slice(1); // drop "plangate"
      const r = await cli(args, env);
      expect((r.out + r.err).trimEnd().split('\n')).toEqual(expected);
      ran += 1;
    }
    expect(ran).toBe(4);
  });

  it('the blueprint example is a valid blueprint', () => {
    const { blueprint, problems } = parseBlueprint('trading-desk.yaml', snippet('blueprint'));
    expect(problems).toEqual([]);
    expect(blueprint).toMatchObject({ name: 'trading-desk', parent: 'desk', agents: ['0xTRADER1', '0xTRADER2'] });
    expect(blueprint?.recommends.planRequired).toMatchObject({ mode: 'side_effects', windowMin: 15, acceptUpstream: true });
  });

  it('the shadow-mode example is a valid rule file with enforce: false', () => {
    const check = checkRules([{ file: 'shadow.yaml', text: snippet('shadow') }]);
    expect(check.problems).toEqual([]);
    expect(check.data?.planRequired.crews['desk']).toMatchObject({ mode: 'side_effects', enforce: false });
  });
});
