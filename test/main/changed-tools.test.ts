/**
 * Which refused tools the console lists as changed: the newest refusal of
 * each upstream tool against the pin in force now.
 */
import { describe, expect, it } from 'vitest';
import type { ToolChangedBlocked } from '../../src/audit/port.js';
import { changedTools, repinCommand, CHANGED_TOOL_AGENTS } from '../../src/main/changed-tools.js';
import { pinsFileName } from '../../src/adapters/mcp/pins.js';

const D = (c: string): string => `sha256:${c.repeat(64)}`;

function refused(over: Partial<ToolChangedBlocked> & { time: string }): ToolChangedBlocked {
  return {
    type: 'ToolChangedBlocked', agent: '0xWORKER', crew: null, tool: 'peek', code: 'tool_changed:peek', runId: null,
    upstream: 'web', upstreamTool: 'peek', pinnedDigest: D('a'), seenDigest: D('b'), ...over,
  };
}

describe('changed tools', () => {
  it('lists a tool whose newest refusal saw a definition other than its pin, with every refusal counted', () => {
    const events = [
      refused({ time: '2026-12-05T10:02:00.000Z', agent: '0xOTHER' }),
      refused({ time: '2026-12-05T10:01:00.000Z' }),
      refused({ time: '2026-12-05T10:00:00.000Z' }),
    ];
    expect(changedTools(events, { web: { peek: D('a') } })).toEqual([{
      upstream: 'web', upstreamTool: 'peek', tool: 'peek', pinnedDigest: D('a'), seenDigest: D('b'), refusals: 3,
      agents: ['0xOTHER', '0xWORKER'], firstRefused: '2026-12-05T10:00:00.000Z', lastRefused: '2026-12-05T10:02:00.000Z',
      pinsFile: pinsFileName('web'),
    }]);
  });

  it('drops a tool pinned again, as it was seen or otherwise, and one no longer pinned', () => {
    const events = [refused({ time: '2026-12-05T10:00:00.000Z' })];
    expect(changedTools(events, { web: { peek: D('b') } })).toEqual([]);
    expect(changedTools(events, { web: {} })).toEqual([]);
    expect(changedTools(events, {})).toEqual([]);
    // Pinned anew since the refusal (to what the upstream lists now, which may differ from what that refusal saw): reviewed.
    expect(changedTools(events, { web: { peek: D('c') } })).toEqual([]);
  });

  it('judges by the newest refusal: changed again after a re-pin is listed again', () => {
    const events = [
      refused({ time: '2026-12-05T11:00:00.000Z', pinnedDigest: D('b'), seenDigest: D('c') }),
      refused({ time: '2026-12-05T10:00:00.000Z' }),
    ];
    expect(changedTools(events, { web: { peek: D('b') } })).toEqual([expect.objectContaining({ seenDigest: D('c'), refusals: 2 })]);
  });

  it('keeps upstreams and tools apart, newest first; an event without a seen digest is not listed', () => {
    const events = [
      refused({ time: '2026-12-05T10:03:00.000Z', upstream: 'fs', upstreamTool: 'write_file', tool: 'fs__write_file' }),
      refused({ time: '2026-12-05T10:02:00.000Z', seenDigest: null }),
      refused({ time: '2026-12-05T10:01:00.000Z', upstreamTool: 'glance', tool: 'glance' }),
    ];
    const pins = { web: { peek: D('a'), glance: D('a') }, fs: { write_file: D('a') } };
    expect(changedTools(events, pins).map((t) => `${t.upstream}/${t.upstreamTool}`)).toEqual(['fs/write_file', 'web/glance']);
    expect(changedTools([refused({ time: '2026-12-05T10:00:00.000Z', pinnedDigest: null })], pins)).toEqual([]);
  });

  it('reads pins by own keys only: an upstream or tool named after object machinery is not pinned', () => {
    const events = [
      refused({ time: '2026-12-05T10:00:00.000Z', upstream: '__proto__', upstreamTool: 'toString' }),
      refused({ time: '2026-12-05T10:00:00.000Z', upstreamTool: 'constructor' }),
    ];
    expect(changedTools(events, { web: { peek: D('a') } })).toEqual([]);
  });

  it('names at most a bounded number of seats per tool', () => {
    const events = Array.from({ length: CHANGED_TOOL_AGENTS + 5 }, (_, i) => refused({ time: `2026-12-05T10:00:${String(i).padStart(2, '0')}.000Z`, agent: `0xA${i}` }));
    const [t] = changedTools(events, { web: { peek: D('a') } });
    expect(t?.refusals).toBe(CHANGED_TOOL_AGENTS + 5);
    expect(t?.agents).toHaveLength(CHANGED_TOOL_AGENTS);
  });

  it('quotes the rules directory for a shell', () => {
    expect(repinCommand('/srv/plangate/rules')).toBe('plangate pin --rules /srv/plangate/rules');
    expect(repinCommand("/srv/it's rules")).toBe(`plangate pin --rules '/srv/it'\\''s rules'`);
    expect(repinCommand('/tmp/$(reboot)')).toBe("plangate pin --rules '/tmp/$(reboot)'");
  });
});
