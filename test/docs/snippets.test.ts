/**
 * The rule-file snippets of the docs that no feature's own test reads load as written, and the
 * CI recipe is a workflow whose plangate commands exist.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkRules } from '../../src/rules/load.js';
import { cli } from '../cli/run.js';
import { ROOT, snippet } from './snippets.js';

describe('the docs', () => {
  it('the run bound is a valid rule file', () => {
    const check = checkRules([{ file: 'runs.yaml', text: snippet('runsBound') }]);
    expect(check.problems).toEqual([]);
    expect(check.data?.runs?.maxMinutes).toBe(1440);
  });

  it('the rules example is a valid rule file with what it says', () => {
    const check = checkRules([{ file: 'rules.yaml', text: snippet('rules') }]);
    expect(check.problems).toEqual([]);
    expect(check.data?.planRequired.crews['desk']).toMatchObject({ mode: 'side_effects', windowMin: 15 });
    expect(check.data?.planRequired.agents['0xBOT']).toMatchObject({ mode: 'off' });
  });

  it("the gateway's trusted upstreams are a valid rule file", () => {
    const check = checkRules([{ file: 'trust.yaml', text: snippet('mcpTrust') }]);
    expect(check.problems).toEqual([]);
    expect(check.data?.mcp?.trustAnnotations).toEqual(['fs']);
  });

  it("the hook's rules for a host's tools are a valid rule file", () => {
    const check = checkRules([{ file: 'host.yaml', text: snippet('hookRules') }]);
    expect(check.problems).toEqual([]);
    expect(check.data?.readGuard?.tools['Read']).toMatchObject({ path: 'file_path' });
  });

  it('the CI recipe is YAML whose plangate commands exist, on a Node plangate supports', async () => {
    const text = snippet('ciRecipe');
    const workflow = parse(text) as { jobs: Record<string, { steps: Array<{ run?: string; uses?: string; with?: Record<string, unknown> }> }> };
    const node = Object.values(workflow.jobs).flatMap((j) => j.steps).find((s) => s.uses?.startsWith('actions/setup-node'));
    const engines = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node as string;
    const least = Number(/^>=(\d+)/.exec(engines)?.[1]);
    expect(Number(node?.with?.['node-version'])).toBeGreaterThanOrEqual(least); // setup-node takes a major's newest release
    const runs = Object.values(workflow.jobs).flatMap((j) => j.steps).map((s) => s.run ?? '').join('\n');
    const commands = [...runs.matchAll(/plangate (\w[\w-]*)/g)].map((m) => m[1] as string);
    expect(new Set(commands)).toEqual(new Set(['check', 'test', 'diff']));
    for (const command of new Set(commands)) {
      const r = await cli([command, '--help']);
      expect(r.status, `${command} --help: ${r.err}`).toBe(0);
    }
  });
});
