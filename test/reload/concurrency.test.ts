/**
 * Decisions run continuously while the rules are reloaded 100 times: not
 * one decision errors, and each sees one consistent rule set — never the
 * tool class of one version with the window of another.
 *
 * Version k of the rules (one file, saved atomically) carries three markers
 * that a decision reports separately: the agent's window is k+1, the probe
 * tool's class is `spend` for even k and `effect` for odd k, and the crew's
 * acceptUpstream is true for odd k. A decision that mixed two versions would
 * break the relation between them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Decision } from '../../src/core/types.js';
import type { Plangate } from '../../src/main/open.js';
import { atomicWrite, open, tempRoot } from './support.js';

const RELOADS = 100;
const WORKERS = 4;

function version(k: number): string {
  return [
    'planRequired:',
    '  workspace: { mode: side_effects }',
    '  crews:',
    `    desk: { mode: side_effects, acceptUpstream: ${k % 2 === 1} }`,
    '  agents:',
    `    0xW: { mode: side_effects, windowMin: ${k + 1} }`,
    'tools:',
    `  ${k % 2 === 0 ? 'spend' : 'effect'}: [probe.tool]`,
    '',
  ].join('\n');
}

/** The version a decision was made under, or a description of the mix. */
function versionOf(d: Decision): number | string {
  const k = d.settings.windowMin.value - 1;
  const cls = k % 2 === 0 ? 'spend' : 'effect';
  const upstream = k % 2 === 1;
  if (d.class !== cls || d.settings.acceptUpstream.value !== upstream) {
    return `mixed: window says v${k}, class ${d.class}, acceptUpstream ${d.settings.acceptUpstream.value}`;
  }
  return k;
}

let pg: Plangate | undefined;
afterEach(async () => {
  await pg?.close();
  pg = undefined;
});

describe('reloads under load', () => {
  it(`${RELOADS} reloads while decisions run: zero errors, every decision on one consistent rule set`, async () => {
    const dir = join(tempRoot(), 'rules');
    mkdirSync(dir);
    writeFileSync(join(dir, 'rules.yaml'), version(0));
    const opened = await open({ rules: dir, watch: { debounceMs: 20, rescanMs: 60_000 } });
    pg = opened.pg;
    const gate = pg.gate;

    let stop = false;
    const errors: unknown[] = [];
    const seen = new Map<number | string, number>();
    const worker = async (): Promise<void> => {
      while (!stop) {
        try {
          const d = await gate.decide({ agent: '0xW', tool: 'probe.tool' });
          const v = versionOf(d);
          seen.set(v, (seen.get(v) ?? 0) + 1);
        } catch (error) {
          errors.push(error);
        }
        // The memory store answers in microtasks; yield so file I/O (the reload) gets its turn, as requests do in a server.
        await new Promise((r) => setImmediate(r));
      }
    };
    const workers = Array.from({ length: WORKERS }, worker);

    for (let k = 1; k <= RELOADS; k++) {
      atomicWrite(join(dir, 'rules.yaml'), version(k));
      const result = await pg.reload();
      expect(['loaded', 'unchanged']).toContain(result.outcome); // the watcher may have been first
      await new Promise((r) => setImmediate(r));
    }
    await new Promise((r) => setTimeout(r, 50));
    stop = true;
    await Promise.all(workers);

    expect(errors).toEqual([]);
    const mixed = [...seen.keys()].filter((v) => typeof v === 'string');
    expect(mixed).toEqual([]);
    const versions = [...seen.keys()].filter((v): v is number => typeof v === 'number');
    expect(Math.max(...versions)).toBe(RELOADS);
    expect(versions.length).toBeGreaterThan(RELOADS / 4); // decisions really ran across the reloads
    const status = pg.status();
    expect(status.reloads).toBeGreaterThanOrEqual(RELOADS);
    expect(status).toMatchObject({ state: 'ok', reloadErrors: 0 });
    expect(status.decisions?.total).toBe([...seen.values()].reduce((a, b) => a + b, 0));
  });
});
