/**
 * Several stateless replicas on one PostgreSQL: real `plangate serve`
 * processes, real HTTP, a real database. What one replica writes is in force
 * on the other at the next call; racing hold placements give one hold; a
 * replica killed with SIGKILL loses nothing it answered for, and the other
 * keeps serving.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../http/support.js';
import { freshSchemaUrl, havePostgres } from '../support/postgres.js';
import { startReplica, TOKENS, type Replica } from './support.js';

const run = havePostgres('two plangate serve replicas on one PostgreSQL (plans, holds, races, SIGKILL)');
const SPEND = 'wallet.propose_spend';

describe.runIf(run)('two replicas on one PostgreSQL', () => {
  let url: string;
  let drop: () => Promise<void>;
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    const fresh = await freshSchemaUrl('replicas');
    url = fresh.url;
    drop = fresh.drop;
    // The load test below posts as fast as it can: far above the default messages quota.
    const quotas = { 'quotas.yaml': 'quotas:\n  messages: { rate: 100000, standing: 200000 }\n' };
    [a, b] = await Promise.all([startReplica(url, {}, quotas), startReplica(url, {}, quotas)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await drop?.();
  });

  const decide = (r: Replica, token: string, tool = SPEND) => call(r.url, 'POST', '/v1/decide', { token, json: { tool } });

  it('audits to PostgreSQL by default, and refuses rule edits through the API with a pointer to Git', async () => {
    expect(a.err()).toMatch(/store postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres\?options=[^,]*, audit postgres:/);
    const edit = await call(a.url, 'PUT', '/v1/rules/plan-required/workspace', { token: TOKENS.operator, json: { mode: 'off' } });
    expect(edit.status).toBe(422);
    expect(edit.json.error.code).toBe('rules_edit_refused');
    expect(edit.json.error.message).toMatch(/other replicas[\s\S]*Change the rule files in Git/);
    expect((await call(a.url, 'GET', '/v1/rules/plan-required', { token: TOKENS.operator })).status).toBe(200);
  });

  it('counts a plan posted through A on B at the very next call', async () => {
    const before = await decide(b, TOKENS.a1);
    expect(before.json).toMatchObject({ allowed: false, code: `plan_required:${SPEND}:none` });
    const said = await call(a.url, 'POST', '/v1/say', { token: TOKENS.a1, json: { thread: 'agent:0xA1', kind: 'plan', body: 'propose the Q3 spend' } });
    expect(said.status).toBe(201);
    const after = await decide(b, TOKENS.a1);
    expect(after.json).toMatchObject({ allowed: true });
    expect(after.json.plan.id).toBe(said.json.id);
  });

  it('puts a hold placed through A in force on B, a release through B lifts it on A, and an unblock likewise', async () => {
    const placed = await call(a.url, 'POST', '/v1/holds/0xA2', { token: TOKENS.operator, json: { task: 'the migration' } });
    expect(placed.status).toBe(201);
    const held = await decide(b, TOKENS.a2, 'github.create_issue');
    expect(held.json).toMatchObject({ allowed: false, check: 'planning_hold', code: 'planning_hold:github.create_issue' });
    expect((await call(b.url, 'GET', '/v1/holds/0xA2', { token: TOKENS.operator })).json.hold.id).toBe(placed.json.hold.id);

    const released = await call(b.url, 'POST', '/v1/holds/0xA2/release', { token: TOKENS.operator, json: { by: 'reviewer', lastPlanId: null } });
    expect(released.status).toBe(200);
    const free = await decide(a, TOKENS.a2, 'github.create_issue');
    expect(free.json).toMatchObject({ allowed: true });
    expect((await call(a.url, 'GET', '/v1/holds/0xA2', { token: TOKENS.operator })).status).toBe(404);

    // Placed through B, unblocked through A: lifted on B at once.
    expect((await call(b.url, 'POST', '/v1/holds/0xA2', { token: TOKENS.operator, json: {} })).status).toBe(201);
    expect((await decide(a, TOKENS.a2, 'github.create_issue')).json).toMatchObject({ allowed: false, check: 'planning_hold' });
    expect((await call(a.url, 'POST', '/v1/holds/0xA2/unblock', { token: TOKENS.operator, json: {} })).status).toBe(200);
    expect((await decide(b, TOKENS.a2, 'github.create_issue')).json).toMatchObject({ allowed: true });
  });

  it('gives one hold and 19 already_held to 20 concurrent placements across both replicas', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(i % 2 ? a.url : b.url, 'POST', '/v1/holds/0xRACE', { token: TOKENS.operator, json: { by: `ops${i}` } })),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    const refused = answers.filter((r) => r.status === 409);
    expect(refused).toHaveLength(19);
    expect(new Set(refused.map((r) => r.json.error.code))).toEqual(new Set(['already_held']));
    const all = await call(a.url, 'GET', '/v1/holds?all=true&agent=0xRACE', { token: TOKENS.operator });
    expect(all.json.holds).toHaveLength(1);
  });

  it('loses nothing A acknowledged when A is killed with SIGKILL under load, and B never stops answering', async () => {
    type Ack = { kind: 'message'; id: string } | { kind: 'hold'; agent: string; id: string } | { kind: 'refusal' };
    const acked: Ack[] = [];
    const bFailures: string[] = [];
    let stop = false;
    let n = 0;

    async function load(r: Replica, isB: boolean): Promise<void> {
      while (!stop) {
        const i = n++;
        try {
          const op = i % 3;
          if (op === 0) {
            const res = await call(r.url, 'POST', '/v1/say', { token: TOKENS.worker, json: { thread: 'agent:0xWORKER', kind: 'note', body: `load ${i}` } });
            if (res.status === 201) acked.push({ kind: 'message', id: res.json.id });
            else if (isB) bFailures.push(`say ${res.status}`);
          } else if (op === 1) {
            const agent = `0xL${i}`;
            const res = await call(r.url, 'POST', `/v1/holds/${agent}`, { token: TOKENS.operator, json: {} });
            if (res.status === 201) acked.push({ kind: 'hold', agent, id: res.json.hold.id });
            else if (isB) bFailures.push(`hold ${res.status}`);
          } else {
            // 0xWORKER has no plan: every merge is refused and audited before the answer.
            const res = await decide(r, TOKENS.worker, 'github.merge_pull_request');
            if (res.status === 200 && res.json.allowed === false) acked.push({ kind: 'refusal' });
            else if (isB) bFailures.push(`decide ${res.status}`);
          }
        } catch (error) {
          if (isB) bFailures.push(String(error));
          else if (r.child.exitCode !== null || r.child.signalCode !== null) return; // A is gone
        }
      }
    }

    const workers = [...Array.from({ length: 4 }, () => load(a, false)), ...Array.from({ length: 4 }, () => load(b, true))];
    await new Promise((r) => setTimeout(r, 1500));
    const beforeKill = acked.length;
    a.child.kill('SIGKILL');
    await a.exited;
    await new Promise((r) => setTimeout(r, 1000));
    stop = true;
    await Promise.all(workers);

    expect(beforeKill).toBeGreaterThan(20);
    expect(bFailures).toEqual([]);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const ids = acked.flatMap((x) => (x.kind === 'message' ? [Number(x.id)] : []));
      const found = await c.query('SELECT count(*)::int AS n FROM messages WHERE id = ANY($1::bigint[])', [ids]);
      expect(found.rows[0].n).toBe(ids.length);
      const holds = acked.flatMap((x) => (x.kind === 'hold' ? [x] : []));
      const hrows = await c.query("SELECT id, agent FROM holds WHERE agent = ANY($1::text[]) AND state = 'active'", [holds.map((h) => h.agent)]);
      expect(new Map(hrows.rows.map((r) => [r.agent, String(r.id)]))).toEqual(new Map(holds.map((h) => [h.agent, h.id])));
      const refusals = acked.filter((x) => x.kind === 'refusal').length;
      const audited = await c.query("SELECT count(*)::int AS n FROM audit_events WHERE type = 'PlanRequiredBlocked' AND agent = '0xWORKER'");
      expect(audited.rows[0].n).toBeGreaterThanOrEqual(refusals);
      const placedAudit = await c.query("SELECT count(*)::int AS n FROM audit_events WHERE type = 'HoldPlaced' AND agent = ANY($1::text[])", [holds.map((h) => h.agent)]);
      expect(placedAudit.rows[0].n).toBe(holds.length);
    } finally {
      await c.end();
    }
    // B is still up and answers from the same state.
    expect((await call(b.url, 'GET', '/health')).status).toBe(200);
  }, 60_000);
});
