/**
 * Failing open (DESIGN.md, "Failing open"): when at start the rules or the
 * policy cannot be loaded, calls go through as if the mode were off, every
 * decision says so and is logged, a banner says so at boot, the status is
 * degraded — and enforcement starts by itself when a good version appears.
 * Real files in temporary directories; the watcher is real.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryAuditSink } from '../../src/audit/memory.js';
import { ErrorCode, PlangateError } from '../../src/core/errors.js';
import { writeBundle } from '../../src/engine/bundle.js';
import { emptyRulesData } from '../../src/rules/normalize.js';
import { createMemoryStore } from '../../src/facts/memory/store.js';
import { createGate } from '../../src/gate/gate.js';
import { Engine } from '../../src/engine/policy.js';
import type { Plangate } from '../../src/main/open.js';
import { atomicWrite, open, rulesText, tempRoot, until, WASM } from './support.js';

const WATCH = { debounceMs: 40, rescanMs: 60_000 };
const MERGE = { agent: '0xW', tool: 'github.merge_pull_request' };

let opened: Plangate[] = [];
afterEach(async () => {
  await Promise.all(opened.map((pg) => pg.close()));
  opened = [];
});

function goodRules(): string {
  const dir = join(tempRoot(), 'rules');
  mkdirSync(dir);
  writeFileSync(join(dir, 'plan.yaml'), rulesText('mode: side_effects'));
  return dir;
}

describe('failing open at boot', () => {
  it('a corrupt WASM: banner, every decision fails open and is logged, degraded; a good WASM starts enforcement by itself', async () => {
    const rules = goodRules();
    const policyDir = join(tempRoot(), 'policy');
    mkdirSync(policyDir);
    const policy = join(policyDir, 'policy.wasm');
    writeFileSync(policy, Buffer.from('\0asm this is not a WebAssembly module'));
    const { pg, logs, audit } = await open({ rules, policy, watch: WATCH });
    opened.push(pg);

    const banner = logs.find((l) => l.includes('PLAN-REQUIRED IS NOT ENFORCED'));
    expect(banner).toBeDefined();
    expect(banner?.split('\n').length).toBeGreaterThan(8);
    expect(banner).toContain('policy.wasm cannot be loaded');
    const status = pg.status();
    expect(status).toMatchObject({ state: 'degraded', enforcing: false, rules: { revision: null }, policy: { sha256: null } });
    expect(status.failOpen?.reason).toContain('policy.wasm cannot be loaded');

    const d = await pg.gate.decide(MERGE);
    expect(d).toMatchObject({ allowed: true, gated: false, class: 'effect', settings: { mode: { value: 'off', scope: 'default' } } });
    expect(d.failOpen?.reason).toContain('policy.wasm cannot be loaded');
    expect(d.failOpen?.cause).toBe('policy');
    expect(logs.filter((l) => l.includes('FAIL-OPEN 0xW → github.merge_pull_request'))).toHaveLength(1);
    expect(pg.status().decisions).toMatchObject({ total: 1, failOpen: 1, refused: 0 });
    expect(audit.events).toHaveLength(0);
    let ran = false;
    await pg.gate.guard(MERGE, () => {
      ran = true;
    });
    expect(ran).toBe(true);

    atomicWrite(policy, await import('node:fs').then((fs) => fs.readFileSync(WASM)));
    await until('enforcement to start', () => pg.status().enforcing);
    expect(logs.some((l) => l.includes('plan-required ENFORCEMENT STARTED'))).toBe(true);
    expect(pg.status()).toMatchObject({ state: 'ok', enforcing: true, reloads: 1 });
    expect(pg.status().failOpen).toBeUndefined();
    const refused = await pg.gate.decide(MERGE);
    expect(refused).toMatchObject({ allowed: false, code: 'plan_required:github.merge_pull_request:none' });
    expect(refused.failOpen).toBeUndefined();
  });

  it('a rules directory missing at start: fails open, then enforces once it appears', async () => {
    const rules = join(tempRoot(), 'rules');
    const { pg, logs } = await open({ rules, watch: WATCH });
    opened.push(pg);
    expect(pg.status().enforcing).toBe(false);
    expect(pg.status().failOpen?.reason).toMatch(/cannot read the rules directory: no such file or directory/);
    expect(logs[0]).toContain('PLAN-REQUIRED IS NOT ENFORCED');
    expect((await pg.gate.decide(MERGE)).failOpen).toBeDefined();

    mkdirSync(rules);
    writeFileSync(join(rules, 'plan.yaml'), rulesText('mode: side_effects'));
    await until('enforcement to start', () => pg.status().enforcing, 8000);
    expect((await pg.gate.decide(MERGE)).allowed).toBe(false);
    expect(logs.some((l) => l.includes('ENFORCEMENT STARTED'))).toBe(true);
  });

  it('an invalid rule file at start: fails open with file:line:col; a fix then reload() enforces', async () => {
    const rules = goodRules();
    writeFileSync(join(rules, 'plan.yaml'), 'planRequired:\n  workspace: { mode: side_effects\n');
    const { pg, logs } = await open({ rules });
    opened.push(pg);
    const reason = pg.status().failOpen?.reason ?? '';
    expect(reason).toMatch(/plan\.yaml:\d+:\d+: invalid YAML/);
    expect(logs[0]).toMatch(/plan\.yaml:\d+:\d+: invalid YAML/);
    const decided = await pg.gate.decide(MERGE);
    expect(decided.failOpen?.reason).toBe(reason);

    // A different bad version while failing open: logged (once) and the reason follows it.
    writeFileSync(join(rules, 'plan.yaml'), 'planRequired:\n  workspace: { mode: sometimes }\n');
    expect(await pg.reload()).toMatchObject({ outcome: 'failed', kept: 'fail_open' });
    expect(await pg.reload()).toMatchObject({ outcome: 'failed', kept: 'fail_open' });
    expect(logs.filter((l) => l.includes('still FAILING OPEN'))).toHaveLength(1);
    expect(pg.status().failOpen?.reason).toMatch(/plan\.yaml:2:22: .*sometimes/);
    expect(pg.status().reloadErrors).toBe(1);

    writeFileSync(join(rules, 'plan.yaml'), rulesText('mode: side_effects'));
    expect(await pg.reload()).toMatchObject({ outcome: 'loaded', enforcementStarted: true });
    expect(pg.status()).toMatchObject({ state: 'ok', enforcing: true });
    expect(await pg.reload()).toEqual({ outcome: 'unchanged' });
  });

  it('a missing policy file fails open, naming it', async () => {
    const rules = goodRules();
    const policy = join(tempRoot(), 'nowhere', 'policy.wasm');
    const { pg } = await open({ rules, policy });
    opened.push(pg);
    expect(pg.status().failOpen?.reason).toContain(`the policy ${policy} cannot be read: no such file (ENOENT)`);
    expect((await pg.gate.decide(MERGE)).allowed).toBe(true);
  });

  it('a rules path that is a file, not a directory, fails open too', async () => {
    const root = tempRoot();
    writeFileSync(join(root, 'rules'), 'planRequired: {}\n');
    const { pg } = await open({ rules: join(root, 'rules') });
    opened.push(pg);
    expect(pg.status().failOpen?.reason).toMatch(/not a directory/);
  });

  it('an invalid PLANGATE_WORKSPACE_* variable fails open, naming the variable', async () => {
    const rules = goodRules();
    const { pg, logs } = await open({ rules, env: { PLANGATE_WORKSPACE_MODE: 'side-effects' } });
    opened.push(pg);
    expect(pg.status().failOpen?.reason).toContain('env:PLANGATE_WORKSPACE_MODE: must be one of off, spends_only, side_effects (got "side-effects")');
    expect(logs[0]).toContain('env:PLANGATE_WORKSPACE_MODE');
    expect((await pg.gate.decide(MERGE)).allowed).toBe(true);
  });

  it('loads the policy from an OPA bundle, and fails open on a bundle without one', async () => {
    const rules = goodRules();
    const out = join(tempRoot(), 'bundle.tar.gz');
    await writeBundle({ data: emptyRulesData(), revision: 'test', out });
    const good = await open({ rules, policy: out });
    opened.push(good.pg);
    expect(good.pg.status().enforcing).toBe(true);
    expect((await good.pg.gate.decide(MERGE)).allowed).toBe(false);

    const empty = join(tempRoot(), 'empty.tar.gz');
    const { gzipSync } = await import('node:zlib');
    writeFileSync(empty, gzipSync(Buffer.alloc(1024)));
    const bad = await open({ rules, policy: empty });
    opened.push(bad.pg);
    expect(bad.pg.status().failOpen?.reason).toMatch(/holds no readable policy\.wasm/);
  });
});

describe('failing open when the store fails', () => {
  it('a store error while gathering facts lets the call through, says why, and is logged; a malformed call is still an error', async () => {
    const store = createMemoryStore();
    const locked = async (): Promise<never> => { throw new Error('database is locked'); };
    const broken = { ...store, candidates: locked, decisionFacts: locked };
    const errors: string[] = [];
    const decisions: unknown[] = [];
    const audit = createMemoryAuditSink();
    const engine = await Engine.load({ data: { ...emptyRulesData(), planRequired: { workspace: { mode: 'side_effects', source: 'a.yaml:1:1' }, crews: {}, agents: {} } } });
    const gate = createGate({ engine, store: broken, audit, onStoreError: (e) => errors.push(String(e)), onDecision: (d) => decisions.push(d) });
    const d = await gate.decide(MERGE);
    expect(d).toMatchObject({ allowed: true, gated: false, failOpen: { cause: 'store', reason: 'the store failed while gathering the facts: database is locked' } });
    expect(errors).toEqual(['Error: database is locked']);
    expect(decisions).toHaveLength(1);
    expect(audit.events).toHaveLength(0);
    await expect(gate.decide({ agent: '', tool: 'x' })).rejects.toSatisfy((e) => e instanceof PlangateError && e.code === ErrorCode.InvalidInput);
  });
});

describe('failing open keeps the last good policy', () => {
  it('a corrupt WASM after a good start keeps enforcing with the last good one', async () => {
    const rules = goodRules();
    const policyDir = join(tempRoot(), 'policy');
    mkdirSync(policyDir);
    const policy = join(policyDir, 'policy.wasm');
    copyFileSync(WASM, policy);
    const { pg } = await open({ rules, policy, watch: WATCH });
    opened.push(pg);
    const sha = pg.status().policy.sha256;
    atomicWrite(policy, 'corrupt');
    const error = await until('the reload error', () => pg.status().lastReloadError);
    expect(error.message).toContain('policy.wasm cannot be loaded');
    expect(pg.status()).toMatchObject({ enforcing: true, state: 'degraded', policy: { sha256: sha } });
    expect((await pg.gate.decide(MERGE)).allowed).toBe(false);
  });
});
