/**
 * PostgreSQL stopped and started again under load, with two replicas
 * serving: while it is down, decisions fail as designed (plan-required fails
 * open, saying the store failed) and writes are refused with 503
 * `store_unavailable`, never acknowledged; once it is back, both replicas decide
 * on the stored facts again, without a restart.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../http/support.js';
import { havePostgres } from '../support/postgres.js';
import { postgresBin, startCluster, startReplica, TOKENS, type Cluster, type Replica } from './support.js';

const bin = postgresBin();
if (!bin && process.env['CI'] === 'true') throw new Error('PostgreSQL server binaries are missing in CI: .ci/run installs them (apt-get install postgresql)');
if (!bin) process.stderr.write('\n!!! SKIPPED (no PostgreSQL server binaries): PostgreSQL stopped and started under load\n\n');
const run = Boolean(bin) && havePostgres('PostgreSQL stopped and started under load');

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

describe.runIf(run)('PostgreSQL stopped and started under load', () => {
  let cluster: Cluster;
  let replicas: Replica[] = [];

  beforeAll(async () => {
    cluster = startCluster(bin as string, await freePort());
    replicas = await Promise.all([startReplica(cluster.url), startReplica(cluster.url)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    cluster?.destroy();
  });

  const decide = (r: Replica, token: string, tool: string) => call(r.url, 'POST', '/v1/decide', { token, json: { tool } });

  it('fails open for plan-required and refuses writes while down, and recovers by itself', async () => {
    const [a, b] = replicas as [Replica, Replica];
    expect((await call(a.url, 'POST', '/v1/holds/0xA2', { token: TOKENS.operator, json: {} })).status).toBe(201);
    expect((await decide(b, TOKENS.worker, 'github.merge_pull_request')).json).toMatchObject({ allowed: false, code: 'plan_required:github.merge_pull_request:none' });

    // Load on both replicas through the whole outage.
    const seen: Array<{ phase: string; status: number; failOpen?: string; allowed?: boolean }> = [];
    let phase = 'up';
    let stop = false;
    const load = async (r: Replica) => {
      while (!stop) {
        const res = await decide(r, TOKENS.worker, 'github.merge_pull_request');
        seen.push({ phase, status: res.status, failOpen: res.json?.failOpen?.reason, allowed: res.json?.allowed });
      }
    };
    const workers = [load(a), load(b), load(a), load(b)];
    await new Promise((r) => setTimeout(r, 300));

    cluster.stop();
    phase = 'down';
    await new Promise((r) => setTimeout(r, 800));
    const said = await call(a.url, 'POST', '/v1/say', { token: TOKENS.worker, json: { thread: 'agent:0xWORKER', kind: 'plan', body: 'merge' } });
    expect(said.status).toBe(503);
    expect(said.headers.get('retry-after')).toBe('1');
    expect(said.json.error.code).toBe('store_unavailable');
    // An agent is told what the code means; the database's own words (its address) go to the operator's log.
    expect(said.json.error.message).toBe("plangate's store cannot be reached; retry in a moment");
    const down = await decide(b, TOKENS.worker, 'github.merge_pull_request');
    expect(down.status).toBe(200);
    expect(down.json).toMatchObject({ allowed: true, gated: false });
    expect(down.json.failOpen).toEqual({ cause: 'store', reason: "plangate's store is failing" });
    // The hold was placed through A and B never decided a call of 0xA2, yet B keeps it held:
    // it learnt the hold from the database's hold changes (a hold does not fail open).
    const held = await decide(b, TOKENS.a2, 'github.create_issue');
    expect(held.status).toBe(200);
    expect(held.json).toMatchObject({ allowed: false, check: 'planning_hold' });
    expect(held.json.failClosed).toEqual({ cause: 'store', reason: "plangate's store is failing" });
    expect(held.json.message).not.toMatch(/postgres|127\.0\.0\.1|ECONNREFUSED/);

    phase = 'restarting';
    cluster.start();
    // Both replicas come back by themselves: the pools reconnect at the next call.
    const deadline = Date.now() + 15_000;
    for (const r of [a, b]) {
      for (;;) {
        const d = await decide(r, TOKENS.worker, 'github.merge_pull_request');
        if (!d.json.failOpen) break;
        if (Date.now() > deadline) throw new Error(`replica ${r.url} did not recover: ${JSON.stringify(d.json)}`);
        await new Promise((res) => setTimeout(res, 100));
      }
    }
    phase = 'back';
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await Promise.all(workers);

    // Every call was answered; none crashed a replica.
    expect(seen.every((s) => s.status === 200)).toBe(true);
    expect(seen.some((s) => s.phase === 'down' && s.failOpen)).toBe(true);
    expect(seen.filter((s) => s.phase === 'back').every((s) => s.allowed === false && !s.failOpen)).toBe(true);
    for (const r of replicas) expect(r.child.exitCode).toBeNull();
    // The hold placed before the outage is still in force, and writes are acknowledged again.
    expect((await decide(b, TOKENS.a2, 'github.create_issue')).json).toMatchObject({ allowed: false, check: 'planning_hold' });
    const thread = await call(a.url, 'POST', '/v1/say', { token: TOKENS.worker, json: { thread: 'agent:0xWORKER', kind: 'note', body: 'after' } });
    expect(thread.status).toBe(201);
  }, 90_000);
});
