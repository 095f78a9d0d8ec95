/**
 * `plangate init --hook` never leaves the seat silently ungated: where no
 * rule sets a plan-required mode for it, the seat gets `side_effects` (and
 * an unplanned Write is then refused); a mode set on purpose (off, shadow,
 * or a crew's) is kept and said; `plangate status` warns about rules that
 * gate no one.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPlangate } from '../../src/main/open.js';
import { cli, tempDir } from '../cli/run.js';

function world() {
  const root = tempDir('plangate-init-mode-');
  const w = { root, bin: join(root, 'bin'), project: join(root, 'project'), rules: join(root, 'rules'), home: join(root, 'home'), store: join(root, 'plangate.db') };
  for (const d of [w.project, w.home, w.bin]) mkdirSync(d);
  writeFileSync(join(w.bin, 'plangate'), '#!/bin/sh\n', { mode: 0o755 });
  return w;
}
type World = ReturnType<typeof world>;

function init(w: World, ...global: string[]) {
  return cli(['--rules', w.rules, ...global, 'init', '--hook', 'claude-code', '--agent', '0xDEV', '--project', w.project], { HOME: w.home, PATH: w.bin });
}

/** How the hook's plangate decides an unplanned Write by the seat. */
async function unplannedWrite(w: World, store = ':memory:') {
  const pg = await openPlangate({ rules: w.rules, store, audit: join(w.root, 'audit.jsonl'), log: () => {} });
  try {
    return await pg.gate.decide({ agent: '0xDEV', tool: 'Write', args: { file_path: 'a.txt', content: 'x' } });
  } finally {
    await pg.close();
  }
}

describe('plangate init --hook puts the seat under a plan-required mode', () => {
  it('no rules at all: adds side_effects for the seat in its own file, so an unplanned Write is refused; twice = same bytes', async () => {
    const w = world();
    const r = await init(w, '--store', w.store);
    expect(r.status, r.out + r.err).toBe(0);
    expect(r.out).toContain(`created ${join(w.rules, 'plan-required.yaml')}: plan-required mode side_effects for 0xDEV (no rule set a mode for it`);
    expect(r.out).toMatch(/plan-required for 0xDEV: mode side_effects \(the agent rule for 0xDEV, plan-required\.yaml:\d+:\d+\), window 30 min/);
    // The classification file stays plangate's own (a second init still knows it).
    expect(readFileSync(join(w.rules, 'claude-code.yaml'), 'utf8')).not.toContain('planRequired');
    const decision = await unplannedWrite(w);
    expect(decision.allowed).toBe(false);
    expect(decision.code).toBe('plan_required:Write:none');
    const before = readFileSync(join(w.rules, 'plan-required.yaml'), 'utf8');
    const again = await init(w);
    expect(again.status).toBe(0);
    expect(again.out).not.toContain('plan-required.yaml: plan-required mode');
    expect(readFileSync(join(w.rules, 'plan-required.yaml'), 'utf8')).toBe(before);
    // No store was made for the question: the hook makes its own on its first call.
    expect(existsSync(w.store)).toBe(false);
    const checked = await cli(['check', w.rules]);
    expect(checked.status, checked.out + checked.err).toBe(0);
  });

  it('an agents map elsewhere: the rule goes beside the other agents', async () => {
    const w = world();
    mkdirSync(w.rules);
    writeFileSync(join(w.rules, 'seats.yaml'), 'planRequired:\n  agents:\n    0xOTHER: { mode: spends_only }\n');
    const r = await init(w);
    expect(r.out).toContain(`updated ${join(w.rules, 'seats.yaml')}: plan-required mode side_effects for 0xDEV`);
    expect(readFileSync(join(w.rules, 'seats.yaml'), 'utf8')).toMatch(/0xOTHER: \{ mode: spends_only \}\n\s+0xDEV:/);
    expect(existsSync(join(w.rules, 'plan-required.yaml'))).toBe(false);
  });

  it('a mode set on purpose is kept and said: off by an agent rule, shadow by the workspace', async () => {
    const w = world();
    mkdirSync(w.rules);
    writeFileSync(join(w.rules, 'seats.yaml'), 'planRequired:\n  agents:\n    0xDEV: { mode: off }\n');
    let r = await init(w);
    expect(r.status).toBe(0);
    expect(r.out).toMatch(/warning: 0xDEV runs under mode off \(the agent rule for 0xDEV, seats\.yaml:\d+:\d+\): .*plangate plan-required set --agent 0xDEV --mode side_effects/);
    expect(readFileSync(join(w.rules, 'seats.yaml'), 'utf8')).toBe('planRequired:\n  agents:\n    0xDEV: { mode: off }\n');
    expect((await unplannedWrite(w)).allowed).toBe(true);

    const v = world();
    mkdirSync(v.rules);
    writeFileSync(join(v.rules, 'workspace.yaml'), 'planRequired:\n  workspace: { mode: side_effects, enforce: false }\n');
    r = await init(v);
    expect(r.out).toMatch(/plan-required for 0xDEV: mode side_effects \(the workspace rule, workspace\.yaml:\d+:\d+\), window 30 min, shadow/);
    expect(r.out).toMatch(/warning: 0xDEV is in shadow mode/);
    expect(existsSync(join(v.rules, 'plan-required.yaml'))).toBe(false);
  });

  it("a crew's rule in force through the store's org: no agent rule is added over it", async () => {
    const w = world();
    mkdirSync(w.rules);
    writeFileSync(join(w.rules, 'crews.yaml'), 'planRequired:\n  crews:\n    desk: { mode: spends_only, windowMin: 15 }\n');
    const org = (...args: string[]) => cli(['--rules', w.rules, '--store', w.store, '--audit', join(w.root, 'audit.jsonl'), 'org', ...args]);
    expect((await org('crew', 'desk')).status).toBe(0);
    expect((await org('agent', '0xDEV', '--crew', 'desk')).status).toBe(0);
    const r = await init(w, '--store', w.store);
    expect(r.status, r.out + r.err).toBe(0);
    expect(r.out).toMatch(/plan-required for 0xDEV: mode spends_only \(the crew rule for desk, crews\.yaml:\d+:\d+\), window 15 min/);
    expect(existsSync(join(w.rules, 'plan-required.yaml'))).toBe(false);
  });

  it('a policy that cannot load: plangate would fail open, said, exit 1', async () => {
    const w = world();
    const bad = join(w.root, 'broken.wasm');
    writeFileSync(bad, 'not wasm');
    const r = await init(w, '--policy', bad);
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/warning: plangate fails open with these rules \(.+\): no call of this host is refused/);
  });
});

describe('plangate status: rules that gate no one', () => {
  it('warns when no rule sets a mode other than off, and not once one does', async () => {
    const w = world();
    mkdirSync(w.rules);
    writeFileSync(join(w.rules, 'tools.yaml'), 'tools:\n  effect: [Write]\n');
    let r = await cli(['--rules', w.rules, 'status']);
    expect(r.status).toBe(0);
    expect(r.out).toMatch(/warning: no rule sets a plan-required mode other than off, so every call goes through without a plan/);
    expect(r.out).toContain('enforcing: 1 rule file(s)');
    expect(r.out).not.toContain('failing open');
    r = await cli(['--rules', w.rules, 'status', '--json']);
    expect(JSON.parse(r.out).gatingRules).toBe(0);
    writeFileSync(join(w.rules, 'seats.yaml'), 'planRequired:\n  agents:\n    0xDEV: { mode: side_effects }\n');
    r = await cli(['--rules', w.rules, 'status']);
    expect(r.out).not.toContain('warning: no rule sets');
    r = await cli(['--rules', w.rules, 'status', '--json']);
    expect(JSON.parse(r.out).gatingRules).toBe(1);
  });
});
