import { readFile } from 'node:fs/promises';
import { loadPolicy } from '@open-policy-agent/opa-wasm';
import { describe, expect, it } from 'vitest';
import { rawEvaluator } from '../../src/engine/abi.js';
import { DEFAULT_WASM_URL } from '../../src/engine/policy.js';

const RULES = {
  planRequired: { workspace: { mode: 'side_effects', windowMin: 30, source: 'rules/ws.yaml:1:1' }, crews: {}, agents: {} },
  tools: { exact: { 'github.merge_pull_request': 'effect' }, patterns: [], default: 'effect' },
};

function input(tool: string, body: string): object {
  const now = 1_780_000_000_000;
  return {
    now,
    call: { agent: '0xA', tool },
    agent: { id: '0xA', known: true, crews: [] },
    upstream: [],
    messages: [{ id: 'm1', thread: 'agent:0xA', author: '0xA', authorKind: 'agent', kind: 'plan', body, at: now - 60_000 }],
  };
}

async function loaded(): Promise<Awaited<ReturnType<typeof loadPolicy>>> {
  const policy = await loadPolicy(await readFile(DEFAULT_WASM_URL), { initial: 16, maximum: 4096 });
  policy.setData({ plangate: { rules: RULES } });
  return policy;
}

describe('the engine’s input path into the SDK’s instance', () => {
  it('answers what the SDK’s evaluate() answers, for both entrypoints', async () => {
    const sdk = await loaded();
    const fast = rawEvaluator(await loaded());
    for (const tool of ['github.merge_pull_request', 'fs.read_file', 'weird “tool” ✓']) {
      for (const entrypoint of ['plangate/decide', 'plangate/decision']) {
        const x = input(tool, 'plan: ünïcødé 🚀');
        expect(fast(x, entrypoint)).toEqual(sdk.evaluate(x, entrypoint));
      }
    }
  });

  it('grows linear memory for an input larger than the room left, and still agrees', async () => {
    const sdk = await loaded();
    const policy = await loaded();
    const fast = rawEvaluator(policy);
    const before = policy.mem.buffer.byteLength;
    const big = input('github.merge_pull_request', '€'.repeat(700_000)); // 2.1 MB of UTF-8, more than the 1 MiB it starts with
    const answer = fast(big, 'plangate/decide') as Array<{ result: { allowed: boolean; code?: string } }>;
    expect(policy.mem.buffer.byteLength).toBeGreaterThan(before);
    expect(answer).toEqual(sdk.evaluate(big, 'plangate/decide'));
    expect(answer[0]?.result).toMatchObject({ allowed: true, plan: { id: 'm1', via: 'fresh' } });
    // After the memory grew, small inputs are read and written through the new memory.
    for (const tool of ['fs.read_file', 'github.merge_pull_request']) {
      const x = input(tool, 'plan ✓');
      expect(fast(x, 'plangate/decision')).toEqual(sdk.evaluate(x, 'plangate/decision'));
    }
  });

  it('refuses an entrypoint the policy does not have', async () => {
    const fast = rawEvaluator(await loaded());
    expect(() => fast({}, 'plangate/nope')).toThrow(/not valid/);
    expect(() => fast({}, 'toString')).toThrow(/not valid/);
  });

  it('falls back to the SDK’s evaluate() for an instance it does not recognise', () => {
    const calls: unknown[] = [];
    const fake = { evaluate: (input: unknown, entrypoint: unknown) => (calls.push([input, entrypoint]), [{ result: 1 }]) };
    const evaluate = rawEvaluator(fake as never);
    expect(evaluate({ a: 1 }, 'e')).toEqual([{ result: 1 }]);
    expect(calls).toEqual([[{ a: 1 }, 'e']]);
  });
});
