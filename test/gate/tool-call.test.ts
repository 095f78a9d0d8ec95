/**
 * The tool-call pipeline every door uses (gate/tool-call.ts), on a real
 * gate: plangate's own tools answered undecided, a refusal with its fields,
 * a forward counted by how it ended, and a door's errors passed through.
 */
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/core/types.js';
import { runToolCall, type CallOutcome, type ToolCall, type ToolCallPorts } from '../../src/gate/tool-call.js';
import { MIN, makeWorld, rulesData, seedOrg } from '../support/world.js';

const rules = rulesData({ workspace: { mode: 'side_effects', source: 'rules/a.yaml:2:3' }, tools: { exact: { 'fs.read': 'read' }, patterns: [] } });

/** Ports that say which one ran. */
function ports(forward: () => string = () => 'forwarded'): ToolCallPorts<string> {
  return {
    refuse: (r) => `refused ${r.check} ${r.code} ${r.reason}: ${r.text.slice(0, 20)}`,
    own: (tool, decision?: Decision) => `own ${tool}${decision ? ' decided' : ''}`,
    forward,
    down: (error) => (error instanceof Error && error.message === 'down' ? 'down' : undefined),
  };
}

describe('runToolCall', () => {
  it('answers plangate\'s own tools without a decision, refuses with the fields, forwards once allowed, and counts each once', async () => {
    const w = await makeWorld(rules);
    await seedOrg(w.store);
    const decided: string[] = [];
    const counted: Array<[string, CallOutcome]> = [];
    const deps = {
      gate: { decide: async (...a: Parameters<typeof w.gate.decide>) => { decided.push(a[0].tool); return w.gate.decide(...a); } },
      channelFor: async () => 'send_plan',
      count: (tool: string, outcome: CallOutcome) => void counted.push([tool, outcome]),
    };
    const call = (c: Partial<ToolCall>): ToolCall => ({ seat: '0xWORKER', tool: 'github.merge', args: { number: 7 }, ...c });

    expect(await runToolCall(deps, call({ tool: 'mcp__pg__plangate_say', ownName: 'plangate_say' }), ports())).toBe('own say');
    expect(await runToolCall(deps, call({ tool: 'send_plan', ownName: 'send_plan' }), ports())).toBe('own channel');
    // A name that is not plangate's own on plangate's server is decided like any tool.
    expect(await runToolCall(deps, call({ tool: 'plangate_say' }), ports())).toMatch(/^refused plan_required plan_required:plangate_say:none none: /);
    expect(await runToolCall(deps, call({}), ports())).toMatch(/^refused plan_required plan_required:github.merge:none none: /);
    expect(await runToolCall(deps, call({ tool: 'fs.read' }), ports())).toBe('forwarded');
    await w.gate.say({ thread: 'agent:0xWORKER', author: '0xWORKER', authorKind: 'agent', kind: 'plan', body: 'merge PR 7', at: w.now - MIN });
    expect(await runToolCall(deps, call({}), ports(() => { throw new Error('down'); }))).toBe('down');
    await expect(runToolCall(deps, call({}), ports(() => { throw new Error('executor failed'); }))).rejects.toThrow('executor failed');
    await expect(runToolCall(deps, call({ args: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i])) }), ports())).rejects.toThrow('more than the 64');
    await expect(runToolCall(deps, call({ target: async () => { throw new Error('Tool nope not found'); } }), ports())).rejects.toThrow('not found');

    expect(decided).toEqual(['plangate_say', 'github.merge', 'fs.read', 'github.merge', 'github.merge']);
    expect(counted).toEqual([
      ['mcp__pg__plangate_say', 'own'], ['send_plan', 'own'], ['plangate_say', 'refused'], ['github.merge', 'refused'], ['fs.read', 'allowed'], ['github.merge', 'upstream_down'],
    ]);
  });

  it("takes the policy's word for the reviewer channel, and without a channel lookup never takes a name for it", async () => {
    const w = await makeWorld(rules);
    await seedOrg(w.store);
    const channel = await runToolCall({ gate: w.gate }, { seat: '0xWORKER', tool: 'plangate_submit_plan', ownName: 'plangate_submit_plan' }, ports());
    expect(channel).toBe('own channel decided');
  });
});
