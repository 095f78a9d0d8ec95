/**
 * `plangate prune`: `--dry-run` says what would go and deletes nothing; a
 * prune deletes it; a bad retention variable is refused by name.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/facts/sqlite/store.js';
import { cli, tempDir } from './run.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'rules');
const DAY = 24 * 60 * 60 * 1000;

describe('plangate prune', () => {
  it('dry run, then the prune', async () => {
    const dir = tempDir();
    const rules = join(dir, 'rules');
    cpSync(EXAMPLES, rules, { recursive: true });
    const env = { PLANGATE_RULES: rules, PLANGATE_STORE: join(dir, 'store.db'), PLANGATE_AUDIT: join(dir, 'audit.jsonl'), PLANGATE_RETAIN_MESSAGES_DAYS: '30' };
    const store = openSqliteStore(env.PLANGATE_STORE);
    await store.postMessage({ thread: 'agent:0xW', author: '0xW', authorKind: 'agent', kind: 'plan', body: 'old', at: Date.now() - 40 * DAY });
    await store.postMessage({ thread: 'agent:0xW', author: '0xW', authorKind: 'agent', kind: 'plan', body: 'new', at: Date.now() - DAY });
    await store.requestApproval({ id: 'A1', seat: '0xW', tool: 't', runId: null, digest: 'a'.repeat(64), args: {}, planId: null, requestedAt: Date.now() - 41 * DAY, windowMin: 15, approvers: { roles: [], names: [] } });
    await store.answerApproval('A1', { status: 'denied', by: 'ops', at: Date.now() - 40 * DAY, reason: 'no' });
    await store.close();

    const dry = await cli(['prune', '--dry-run'], env);
    expect(dry.status).toBe(0);
    expect(dry.out).toMatch(/^would delete 1 messages \(posted before /);
    expect(dry.out).toContain(', 1 approval requests (over before ');
    const json = await cli(['prune', '--dry-run', '--json'], env);
    expect(JSON.parse(json.out)).toMatchObject({ dryRun: true, messages: 1, runs: 0, approvals: 1 });
    const done = await cli(['prune'], env);
    expect(done.out).toMatch(/^deleted 1 messages/);
    expect((await cli(['prune', '--dry-run'], env)).out).toMatch(/^would delete 0 messages/);

    const bad = await cli(['prune'], { ...env, PLANGATE_RETAIN_HOLDS_DAYS: 'ninety' });
    expect(bad.status).not.toBe(0);
    expect(bad.err).toContain('env:PLANGATE_RETAIN_HOLDS_DAYS: expected a whole number of at least 0, got "ninety"');
  });
});
