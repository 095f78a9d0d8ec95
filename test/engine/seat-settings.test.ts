/**
 * The described settings a decision reports: asked of the policy once per
 * seat, asked again when the kept ones do not carry the hot answer's values,
 * and never another seat's; a policy built before the hot answer gave values
 * is still read.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PlangateError } from '../../src/core/errors.js';
import type { EffectiveSettings, Lineage, SettingValues } from '../../src/core/types.js';
import { Engine, ENTRYPOINTS } from '../../src/engine/policy.js';
import { seatSettings } from '../../src/engine/seat-settings.js';
import { findOpa } from '../http/opa-server.js';
import { buildPolicyWasm } from '../support/policy-build.js';

const POLICY = fileURLToPath(new URL('../../policies/plangate/', import.meta.url));

const valuesOf = (s: EffectiveSettings): SettingValues => ({ mode: s.mode.value, windowMin: s.windowMin.value, acceptUpstream: s.acceptUpstream.value, enforce: s.enforce.value });

function described(windowMin: number, id: string): EffectiveSettings {
  return {
    mode: { value: 'side_effects', scope: 'crew', id, source: `rules/${id}.yaml:1:1` },
    windowMin: { value: windowMin, scope: 'crew', id },
    acceptUpstream: { value: false, scope: 'default' },
    enforce: { value: true, scope: 'default' },
  };
}

describe('seatSettings', () => {
  it('asks the policy once per seat, keyed by its id and its crews', () => {
    const asked: string[] = [];
    const of = seatSettings((seat) => {
      asked.push(`${seat.id}/${seat.crews.join(',')}`);
      return described(15, seat.crews[0] ?? 'none');
    });
    const a: Lineage = { id: 'A', known: true, crews: ['desk', 'news'] };
    const v = valuesOf(described(15, 'desk'));
    expect(of(a, v).mode.id).toBe('desk');
    expect(of({ ...a }, v).mode.id).toBe('desk');
    // Another chain is another key, even when the joined ids would read the same.
    expect(of({ id: 'A', known: true, crews: ['desk,news'] }, v).mode.id).toBe('desk,news');
    expect(of({ id: 'A', known: true, crews: ['news'] }, v).mode.id).toBe('news');
    expect(asked).toEqual(['A/desk,news', 'A/desk,news', 'A/news']);
  });

  it('asks again when the kept settings do not carry the values of the hot answer', () => {
    let window = 15;
    let asked = 0;
    const of = seatSettings(() => (asked++, described(window, 'desk')));
    const seat: Lineage = { id: 'A', known: true, crews: ['desk'] };
    of(seat, valuesOf(described(15, 'desk')));
    window = 20;
    expect(of(seat, valuesOf(described(20, 'desk'))).windowMin.value).toBe(20);
    expect(asked).toBe(2);
  });

  it('gives seats with equal settings one frozen object', () => {
    const of = seatSettings(() => described(15, 'desk'));
    const v = valuesOf(described(15, 'desk'));
    const a = of({ id: 'A', known: true, crews: ['desk'] }, v);
    const b = of({ id: 'B', known: true, crews: ['desk'] }, v);
    expect(b).toBe(a);
    expect(Object.isFrozen(a) && Object.isFrozen(a.mode)).toBe(true);
  });

  it('refuses settings that disagree with the decision', () => {
    const of = seatSettings(() => described(15, 'desk'));
    expect(() => of({ id: 'A', known: true, crews: [] }, valuesOf(described(30, 'desk')))).toThrow(PlangateError);
  });

  it('keeps at most its bound of seats', () => {
    let asked = 0;
    const of = seatSettings(() => (asked++, described(15, 'desk')), 3);
    const v = valuesOf(described(15, 'desk'));
    for (const id of ['A', 'B', 'C', 'D', 'A']) of({ id, known: true, crews: [] }, v);
    // D found the table full and emptied it, so A was asked for again.
    expect(asked).toBe(5);
  });
});

describe('Engine.decide', () => {
  it('reports the settings described, as plangate/effective answers them for the seat', async () => {
    const engine = await Engine.load({
      data: {
        planRequired: { workspace: { mode: 'spends_only', source: 'rules/ws.yaml:1:1' }, crews: { desk: { mode: 'side_effects', windowMin: 10, source: 'rules/desk.yaml:2:3' } }, agents: {} },
        tools: { exact: {}, patterns: [] },
      } as never,
    });
    const agent: Lineage = { id: '0xW', known: true, crews: ['desk'] };
    const d = engine.decide({ now: 1, call: { agent: '0xW', tool: 'github.merge_pull_request' }, agent, upstream: [], messages: [] } as never);
    expect(d.settings).toEqual(engine.effective(agent));
    expect(d.settings.mode).toEqual({ value: 'side_effects', scope: 'crew', id: 'desk', source: 'rules/desk.yaml:2:3' });
    expect(d.allowed).toBe(false);
  });
});

const opa = findOpa();

/**
 * A policy built from these rules as they were before the hot answer gave
 * the settings as values (`answer["settings"] := settings.in_force`), by the
 * pinned OPA: what a `--policy` file built from an older checkout answers.
 */
function buildOlderPolicy(bin: string): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-older-'));
  try {
    const src = join(dir, 'src');
    mkdirSync(src);
    for (const f of readdirSync(POLICY)) if (f.endsWith('.rego') && !f.endsWith('_test.rego')) copyFileSync(join(POLICY, f), join(src, f));
    const compose = readFileSync(join(src, 'compose.rego'), 'utf8');
    if (!compose.includes('answer["settings"] := settings.values')) throw new Error('compose.rego no longer answers settings.values');
    writeFileSync(join(src, 'compose.rego'), compose.replace('answer["settings"] := settings.values', 'answer["settings"] := settings.in_force'));
    return buildPolicyWasm({ bin }, src, dir, Object.values(ENTRYPOINTS));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.runIf(opa)('a policy built before the hot answer gave the settings as values', () => {
  it('is still read: its described settings are the decision\'s', { timeout: 120_000 }, async () => {
    const data = {
      planRequired: { workspace: { mode: 'spends_only', source: 'rules/ws.yaml:1:1' }, crews: { desk: { mode: 'side_effects', windowMin: 10, source: 'rules/desk.yaml:2:3' } }, agents: {} },
      tools: { exact: {}, patterns: [] },
    } as never;
    const older = await Engine.load({ data, wasm: buildOlderPolicy(opa!.bin) });
    const current = await Engine.load({ data });
    const agent: Lineage = { id: '0xW', known: true, crews: ['desk'] };
    const input = { now: 1, call: { agent: '0xW', tool: 'github.merge_pull_request' }, agent, upstream: [], messages: [] } as never;
    expect(typeof (older.evaluate(ENTRYPOINTS.decide, input) as { settings: { mode: unknown } }).settings.mode).toBe('object');
    expect(older.decide(input)).toEqual(current.decide(input));
  });
});

if (!opa) {
  describe('a policy built before the hot answer gave the settings as values', () => {
    const why = 'no opa binary found — needs the pinned opa CLI (.tools/bin/opa or opa on PATH; CI installs it)';
    // Under CI=true a missing OPA is a failure, never a skip.
    if (process.env['CI'] === 'true') it('runs against the pinned opa', () => { throw new Error(why); });
    else it.todo(`SKIPPED: ${why}`);
  });
}
