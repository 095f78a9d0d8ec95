/**
 * Engine.decide: the decision is the hot answer with the call's tool and
 * seat added from the input (the policy does not repeat them) and its
 * settings described; an input whose tool is not a name gets no decision.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/core/errors.js';
import type { PolicyInput } from '../../src/core/types.js';
import { Engine, ENTRYPOINTS } from '../../src/engine/policy.js';
import { loadRules } from '../../src/rules/load.js';
import { EXAMPLES } from '../http/support.js';

const NOW = 1_780_000_000_000;
const input = (tool: unknown, known: unknown = true): PolicyInput =>
  ({ now: NOW, call: { agent: '0xW', tool, delegatedBy: [] }, agent: { id: '0xW', known, crews: [] }, upstream: [], messages: [] }) as unknown as PolicyInput;

describe('Engine.decide', () => {
  it("adds the call's tool and seat, which the hot answer leaves out", async () => {
    const engine = await Engine.load({ data: (await loadRules(EXAMPLES)).data });
    const hot = engine.evaluate(ENTRYPOINTS.decide, input('github.merge_pull_request')) as Record<string, unknown>;
    expect(hot).not.toHaveProperty('tool');
    expect(hot).not.toHaveProperty('agent');
    const d = engine.decide(input('github.merge_pull_request'));
    expect(d).toMatchObject({ tool: 'github.merge_pull_request', agent: '0xW', agentKnown: true });
    expect(engine.decide(input('github.merge_pull_request', 'yes')).agentKnown).toBe(false);
  });

  it('gives no decision for a tool that is not a name', async () => {
    const engine = await Engine.load({ data: (await loadRules(EXAMPLES)).data });
    for (const tool of [5, null, ['a']]) expect(() => engine.decide(input(tool))).toThrow(expect.objectContaining({ code: ErrorCode.PolicyResultInvalid }));
  });
});
