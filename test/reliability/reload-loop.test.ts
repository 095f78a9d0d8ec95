/**
 * A failed reload is tried once per change: while the files stay bad the
 * watcher does not read, validate and hash them again after every quiet
 * period. The next change is tried (once), and a fix is put in force.
 */
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PolicyRuntime, type LoadResult } from '../../src/main/runtime.js';
import { watchPolicyInputs, type PolicyWatcher } from '../../src/main/watch.js';
import { DEFAULT_PATHS } from '../../src/main/config.js';
import { EXAMPLES } from '../http/support.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let watcher: PolicyWatcher | undefined;
afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
});

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(20);
  }
}

describe('the reload loop', () => {
  it('one failed reload per change, however long the files stay bad', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plangate-loop-'));
    const rules = join(dir, 'rules');
    cpSync(EXAMPLES, rules, { recursive: true });
    const logs: string[] = [];
    const rt = await PolicyRuntime.start({ rulesDir: rules, policy: DEFAULT_PATHS.policy, env: {}, log: (t) => logs.push(t) });
    const outcomes: LoadResult['outcome'][] = [];
    watcher = watchPolicyInputs({
      rulesDir: rules,
      policy: DEFAULT_PATHS.policy,
      debounceMs: 40,
      rescanMs: 60_000,
      reload: async () => {
        const r = await rt.load({ settleMs: 5 });
        outcomes.push(r.outcome);
        return r;
      },
    });
    await watcher.ready;
    await sleep(200);
    outcomes.length = 0;

    writeFileSync(join(rules, 'bad.yaml'), 'planRequired:\n  crews:\n    ops: { mode: sideways }\n');
    await until(() => outcomes.includes('failed'));
    await sleep(1500); // some 35 quiet periods
    expect(outcomes.filter((o) => o === 'failed')).toHaveLength(1);
    expect(rt.status().reloadErrors).toBe(1);

    writeFileSync(join(rules, 'bad.yaml'), 'planRequired:\n  crews:\n    ops: { mode: worse }\n');
    await until(() => outcomes.filter((o) => o === 'failed').length === 2);
    await sleep(800);
    expect(outcomes.filter((o) => o === 'failed')).toHaveLength(2);

    writeFileSync(join(rules, 'bad.yaml'), 'planRequired:\n  crews:\n    ops: { mode: off }\n');
    await until(() => outcomes.includes('loaded'));
    expect(rt.status()).toMatchObject({ state: 'ok', reloads: 1, reloadErrors: 2 });
    expect(logs.filter((l) => l.includes('reload failed'))).toHaveLength(2);
  });
});
