/** `plangate audit`: the trail the gate wrote, read back with the same filters as GET /v1/audit. */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/audit/port.js';
import { auditLine } from '../../src/adapters/cli/commands/audit.js';
import { holdLine } from '../../src/adapters/cli/commands/holds.js';
import type { Hold } from '../../src/facts/port.js';
import { cli, tempDir } from './run.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'rules');

describe('plangate audit', () => {
  it('lists real refusals and shadow would-be refusals apart, filtered by crew, for people and as JSON lines', async () => {
    const dir = tempDir();
    const rules = join(dir, 'rules');
    cpSync(EXAMPLES, rules, { recursive: true });
    const g = ['--rules', rules, '--store', join(dir, 'store.db'), '--audit', join(dir, 'audit.jsonl')];
    expect((await cli([...g, 'org', 'crew', 'desk'])).status).toBe(0);
    expect((await cli([...g, 'org', 'crew', 'ops'])).status).toBe(0);
    expect((await cli([...g, 'org', 'agent', '0xWORKER', '--crew', 'desk'])).status).toBe(0);
    expect((await cli([...g, 'org', 'agent', '0xOPS', '--crew', 'ops'])).status).toBe(0);
    expect((await cli([...g, 'plan-required', 'set', '--crew', 'ops', '--mode', 'side_effects', '--shadow'])).status).toBe(0);
    expect((await cli([...g, 'decide', '--agent', '0xWORKER', '--tool', 'github.merge_pull_request'])).status).toBe(3);
    expect((await cli([...g, 'decide', '--agent', '0xOPS', '--tool', 'github.merge_pull_request'])).status).toBe(0);

    const desk = await cli([...g, 'audit', '--crew', 'desk']);
    expect(desk.status).toBe(0);
    expect(desk.out.trim().split('\n')).toHaveLength(1);
    expect(desk.out).toMatch(/plan_required {2}0xWORKER \(desk\) {2}github\.merge_pull_request {2}plan_required:github\.merge_pull_request:none {2}agent 0xWORKER seats\.yaml:\d+:\d+/);

    const shadow = await cli([...g, 'audit', '--shadow', '--json']);
    const lines = shadow.out.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual([expect.objectContaining({ agent: '0xOPS', crew: 'ops', shadow: true, rule: expect.objectContaining({ scope: 'crew', id: 'ops' }) })]);
    expect((await cli([...g, 'audit', '--no-shadow', '--json'])).out.trim().split('\n').map((l) => JSON.parse(l).agent)).toEqual(['0xWORKER']);
    expect((await cli([...g, 'audit', '--since', '1h', '--check', 'plan_required', '--json'])).out.trim().split('\n')).toHaveLength(2);

    const none = await cli([...g, 'audit', '--crew', 'nowhere']);
    expect(none).toMatchObject({ status: 0, out: '' });
    expect(none.err).toMatch(/no audit events match/);
  });

  it('prints what an agent wrote as one plain line: no newline, escape sequence or bidi override reaches the terminal', () => {
    const forged = 'big.log\n2026-12-01T00:00:00.000Z  HoldReleased  0xWORKER\u001b[2J\u202e';
    const line = auditLine({
      type: 'ReadGuardBlocked', time: '2026-12-01T10:00:00.000Z', agent: '0xWORKER', tool: 'fs.read_file', code: 'read_guard:fs.read_file',
      reason: 'over', path: forged, resolved: '/srv/big.log', sizeBytes: 5000, maxBytes: 100,
    } as unknown as AuditEvent);
    expect(line).not.toMatch(/[\n\u001b\u202e]/);
    expect(line).toContain('big.log\\u000a2026-12-01T00:00:00.000Z  HoldReleased  0xWORKER\\u001b[2J\\u202e 5000 > 100 bytes');
    expect(holdLine({ id: '1', agent: '0xW', kind: 'on_demand', state: 'active', placedBy: 'ops\rx', placedAt: 0, task: 'a\u0085b', plans: 0, pushBacks: 0 } as unknown as Hold)).not.toMatch(/[\r\u0085]/);
  });

  it('refuses bad filters with a clear message', async () => {
    const dir = tempDir();
    const g = ['--audit', join(dir, 'audit.jsonl')];
    const bad = await cli([...g, 'audit', '--since', 'yesterday']);
    expect(bad.status).toBe(1);
    expect(bad.err).toMatch(/--since must be epoch milliseconds, an ISO-8601 time or a duration/);
    expect((await cli([...g, 'audit', '--limit', '5000'])).err).toMatch(/limit must be an integer from 0 to 1000/);
    expect((await cli([...g, 'audit', '--check', 'nope'])).status).toBe(1);
  });
});
