/**
 * Runs and delegations at the CLI: `plangate run start|end|list` and
 * `plangate delegate [revoke]`, and what `decide` makes of them.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './run.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'rules');

function workspace() {
  const dir = tempDir();
  const rules = join(dir, 'rules');
  cpSync(EXAMPLES, rules, { recursive: true });
  return { PLANGATE_RULES: rules, PLANGATE_STORE: join(dir, 'store.db'), PLANGATE_AUDIT: join(dir, 'audit.jsonl'), PLANGATE_USER: 'ci-bot' };
}

describe('plangate run and delegate', () => {
  it('a started run lets its old plan count until it is ended; list shows it', async () => {
    const env = workspace();
    expect((await cli(['org', 'crew', 'desk'], env)).status).toBe(0);
    expect((await cli(['org', 'agent', '0xW', '--crew', 'desk'], env)).status).toBe(0);
    const started = await cli(['run', 'start', '--seat', '0xW', '--id', 'R1', '--json'], env);
    expect(started.status, started.err).toBe(0);
    const run = JSON.parse(started.out);
    expect(run).toMatchObject({ id: 'R1', seat: '0xW', startedBy: 'ci-bot', endedAt: null });
    expect(run.expiresAt - run.startedAt).toBe(24 * 3_600_000);

    expect((await cli(['say', 'propose the spend', '--as', '0xW', '--kind', 'plan', '--thread', 'agent:0xW', '--run', 'R1'], env)).status).toBe(0);
    const later = String(Date.now() + 40 * 60_000); // past the 30-minute window
    const inRun = await cli(['decide', '--agent', '0xW', '--tool', 'wallet.propose_spend', '--run', 'R1', '--at', later], env);
    expect(inRun.status, inRun.err).toBe(0);
    expect(JSON.parse(inRun.out)).toMatchObject({ allowed: true, plan: { via: 'same_run' }, run: { id: 'R1', status: 'open' } });

    const ended = await cli(['run', 'end', 'R1'], env);
    expect(ended.status).toBe(0);
    expect(ended.out).toMatch(/^run R1 {2}0xW {2}ended .* by ci-bot/);
    const after = await cli(['decide', '--agent', '0xW', '--tool', 'wallet.propose_spend', '--run', 'R1', '--at', later], env);
    expect(after.status).toBe(3);
    expect(JSON.parse(after.out)).toMatchObject({ allowed: false, code: 'plan_required:wallet.propose_spend:stale', run: { status: 'ended' } });

    const list = await cli(['run', 'list', '--seat', '0xW', '--json'], env);
    expect(JSON.parse(list.out)).toEqual([expect.objectContaining({ id: 'R1', endedBy: 'ci-bot' })]);
    const dup = await cli(['run', 'start', '--seat', '0xW', '--id', 'R1'], env);
    expect(dup.status).toBe(1);
    expect(dup.err).toMatch(/already exists/);
  });

  it('a recorded delegation counts; an unrecorded claim stops the chain and the decision says so', async () => {
    const env = workspace();
    const recorded = await cli(['delegate', '--manager', '0xM', '--worker', '0xW', '--json'], env);
    expect(recorded.status, recorded.err).toBe(0);
    const d = JSON.parse(recorded.out);
    expect(d).toMatchObject({ manager: '0xM', worker: '0xW', runId: null, createdBy: 'ci-bot' });
    const decided = await cli(['decide', '--agent', '0xW', '--tool', 'wallet.propose_spend', '--delegated-by', '0xM', '--delegated-by', '0xX'], env);
    expect(JSON.parse(decided.out).delegation).toEqual({ claimed: ['0xM', '0xX'], chain: ['0xM'], unrecorded: '0xX' });
    const revoked = await cli(['delegate', 'revoke', d.id], env);
    expect(revoked.status).toBe(0);
    expect(revoked.out).toMatch(/revoked/);
    const again = await cli(['decide', '--agent', '0xW', '--tool', 'wallet.propose_spend', '--delegated-by', '0xM'], env);
    expect(JSON.parse(again.out).delegation).toEqual({ claimed: ['0xM'], chain: [], unrecorded: '0xM' });
    const self = await cli(['delegate', '--manager', '0xW', '--worker', '0xW'], env);
    expect(self.status).toBe(1);
    expect(self.err).toMatch(/itself/);
  });
});
