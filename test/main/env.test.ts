/**
 * The workspace rule from PLANGATE_WORKSPACE_*: parsing, errors named after
 * the variable, and precedence over the rule files (library level; the CLI
 * side is in test/cli/operations.test.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyWorkspaceEnv, readWorkspaceEnv } from '../../src/main/env.js';
import type { Plangate } from '../../src/main/open.js';
import { open, rulesText, tempRoot } from '../reload/support.js';

describe('readWorkspaceEnv', () => {
  it('pins nothing without PLANGATE_WORKSPACE_MODE, and treats empty variables as unset', () => {
    expect(readWorkspaceEnv({})).toEqual({ variables: {}, problems: [] });
    expect(readWorkspaceEnv({ PLANGATE_WORKSPACE_MODE: '' })).toEqual({ variables: {}, problems: [] });
  });

  it('reads every field, each with its own source', () => {
    const env = {
      PLANGATE_WORKSPACE_MODE: 'side_effects',
      PLANGATE_WORKSPACE_WINDOW_MIN: '10',
      PLANGATE_WORKSPACE_ACCEPT_UPSTREAM: 'true',
      PLANGATE_WORKSPACE_ENFORCE: 'false',
    };
    expect(readWorkspaceEnv(env).rule).toEqual({
      mode: 'side_effects',
      windowMin: 10,
      acceptUpstream: true,
      enforce: false,
      source: 'env:PLANGATE_WORKSPACE_MODE',
      sources: {
        mode: 'env:PLANGATE_WORKSPACE_MODE',
        windowMin: 'env:PLANGATE_WORKSPACE_WINDOW_MIN',
        acceptUpstream: 'env:PLANGATE_WORKSPACE_ACCEPT_UPSTREAM',
        enforce: 'env:PLANGATE_WORKSPACE_ENFORCE',
      },
    });
  });

  it('names the variable of every invalid value, and pins nothing then', () => {
    const r = readWorkspaceEnv({
      PLANGATE_WORKSPACE_MODE: 'always',
      PLANGATE_WORKSPACE_WINDOW_MIN: '0',
      PLANGATE_WORKSPACE_ACCEPT_UPSTREAM: 'yes',
    });
    expect(r.rule).toBeUndefined();
    expect(r.problems).toEqual([
      { file: 'env:PLANGATE_WORKSPACE_MODE', message: 'must be one of off, spends_only, side_effects (got "always")' },
      { file: 'env:PLANGATE_WORKSPACE_WINDOW_MIN', message: 'must be a whole number of minutes from 1 to 10080 (got "0")' },
      { file: 'env:PLANGATE_WORKSPACE_ACCEPT_UPSTREAM', message: 'must be true or false (got "yes")' },
    ]);
    expect(readWorkspaceEnv({ PLANGATE_WORKSPACE_WINDOW_MIN: '10' }).problems[0]?.message).toMatch(/PLANGATE_WORKSPACE_MODE is not/);
  });

  it('replaces the files\' workspace rule and keeps everything else', () => {
    const data = {
      planRequired: { workspace: { mode: 'spends_only' as const, windowMin: 60, source: 'a.yaml:2:3' }, crews: { desk: { mode: 'off' as const, source: 'a.yaml:5:5' } }, agents: {} },
      tools: { default: 'effect' as const, exact: {}, patterns: [] },
    };
    const rule = readWorkspaceEnv({ PLANGATE_WORKSPACE_MODE: 'side_effects' }).rule;
    const out = applyWorkspaceEnv(data, rule);
    expect(out.planRequired.workspace).toEqual(rule);
    expect(out.planRequired.workspace?.windowMin).toBeUndefined(); // not merged with the file's 60
    expect(out.planRequired.crews).toBe(data.planRequired.crews);
    expect(applyWorkspaceEnv(data, undefined)).toBe(data);
  });
});

describe('environment precedence in a running plangate', () => {
  let pg: Plangate | undefined;
  afterEach(async () => {
    await pg?.close();
    pg = undefined;
  });

  it('the environment\'s workspace rule is in force, reported in the status, and survives reloads of the files', async () => {
    const rules = join(tempRoot(), 'rules');
    mkdirSync(rules);
    writeFileSync(join(rules, 'plan.yaml'), rulesText('mode: off'));
    const opened = await open({ rules, env: { PLANGATE_WORKSPACE_MODE: 'spends_only', PLANGATE_WORKSPACE_WINDOW_MIN: '5' } });
    pg = opened.pg;
    const s = await pg.gate.settingsFor('0xSOLO');
    expect(s.mode).toEqual({ value: 'spends_only', scope: 'workspace', source: 'env:PLANGATE_WORKSPACE_MODE' });
    expect(s.windowMin).toEqual({ value: 5, scope: 'workspace', source: 'env:PLANGATE_WORKSPACE_WINDOW_MIN' });
    expect(pg.status().env?.pinned).toEqual({ PLANGATE_WORKSPACE_MODE: 'spends_only', PLANGATE_WORKSPACE_WINDOW_MIN: '5' });
    const revision = pg.status().rules.revision;

    writeFileSync(join(rules, 'plan.yaml'), rulesText('mode: side_effects', 'mode: off'));
    expect(await pg.reload()).toMatchObject({ outcome: 'loaded' });
    expect(pg.status().rules.revision).not.toBe(revision);
    expect((await pg.gate.settingsFor('0xSOLO')).mode.source).toBe('env:PLANGATE_WORKSPACE_MODE');
    expect((await pg.gate.settingsFor('0xW')).mode).toMatchObject({ value: 'off', scope: 'crew', id: 'desk' });
  });
});
