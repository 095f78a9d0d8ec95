/**
 * Per-seat quotas through the gate, with the compiled policy: every write a
 * seat can make is counted and refused over quota naming it; a hook's
 * refusal of plangate's own tool names it; one seat's writes never move
 * another's count; a count that fails refuses the write (fail closed).
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, PlangateError, QuotaExceededError } from '../../src/core/errors.js';
import { QUOTA_ON_COUNT_FAILURE } from '../../src/core/quotas.js';
import { createGate } from '../../src/gate/gate.js';
import { runToolCall } from '../../src/gate/tool-call.js';
import { checkRules } from '../../src/rules/load.js';
import { snippet } from '../docs/snippets.js';
import { makeWorld, MIN, seedOrg } from '../support/world.js';
import { openPostgresStore } from '../../src/facts/postgres/store.js';
import { freshSchemaUrl, havePostgres } from '../support/postgres.js';

const RULES = `quotas:
  messages: { rate: 2, windowMin: 10, standing: 3 }
  delegations: { rate: 1 }
  runs: { standing: 1 }
  holdPlans: { rate: 5, standing: 1 }
`;

function rules(text = RULES) {
  const check = checkRules([{ file: 'q.yaml', text }]);
  expect(check.problems).toEqual([]);
  return check.data!;
}

async function refusal(p: Promise<unknown>): Promise<QuotaExceededError> {
  const e = await p.then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(QuotaExceededError);
  return e as QuotaExceededError;
}

const say = (author: string) => ({ thread: `agent:${author}`, author, kind: 'plan', body: 'merge #12' });

for (const driver of ['memory', 'sqlite'] as const) {
  describe(`quotas through the gate (${driver})`, () => {
    it('refuses a message over the rate with Retry-After, and over the standing count without', async () => {
      const w = await makeWorld(rules(), { store: driver });
      await seedOrg(w.store);
      await w.gate.sayAsAgent(say('0xWORKER'));
      await w.gate.sayAsAgent(say('0xWORKER'));
      const e = await refusal(w.gate.sayAsAgent(say('0xWORKER')));
      expect(e.code).toBe(ErrorCode.QuotaExceeded);
      expect(e.quota).toBe('quota:messages:rate');
      expect(e.message).toMatch(/^quota:messages:rate - 0xWORKER has sent 2 messages in the last 10 minutes; its quota is 2 \(quotas\.messages\.rate, the rule at q\.yaml:2:3\)/);
      expect(e.retryAfterSec).toBe(600);
      expect((await w.store.listThread('agent:0xWORKER', 10)).length).toBe(2);
      // Another seat's count is its own.
      await w.gate.sayAsAgent(say('0xMGR'));
      // The host posting as the seat counts too; a person's post does not.
      await w.gate.say({ ...say('0xOPS'), authorKind: 'human' });
    });

    it('counts the standing rows once the window has passed', async () => {
      const base = rules();
      const store = (await makeWorld(base, { store: driver })).store;
      await seedOrg(store);
      for (let i = 0; i < 3; i++) await store.postMessage({ ...say('0xWORKER'), authorKind: 'agent', at: 1000 + i });
      const { engine } = await makeWorld(base);
      const gate = createGate({ engine, store, clock: () => 1000 + 60 * MIN });
      const e = await refusal(gate.sayAsAgent(say('0xWORKER')));
      expect(e.quota).toBe('quota:messages:standing');
      expect(e.retryAfterSec).toBeUndefined();
    });

    it('bounds delegations by their manager, runs by their seat, and plans to the reviewer by the hold', async () => {
      const w = await makeWorld(rules(), { store: driver });
      await seedOrg(w.store);
      await w.gate.delegations.record({ manager: '0xMGR', worker: '0xWORKER', by: '0xMGR' });
      expect((await refusal(w.gate.delegations.record({ manager: '0xMGR', worker: '0xOPS', by: 'operator' }))).quota).toBe('quota:delegations:rate');
      await w.gate.delegations.record({ manager: '0xOPS', worker: '0xWORKER', by: '0xOPS' });
      await w.gate.runs.start({ seat: '0xWORKER', by: 'orchestrator' });
      expect((await refusal(w.gate.runs.start({ seat: '0xWORKER', by: 'orchestrator' }))).quota).toBe('quota:runs:standing');
      await w.gate.holds.place('0xWORKER', { by: 'ops' });
      await w.gate.holds.submitPlan('0xWORKER', { body: 'plan one' });
      expect((await refusal(w.gate.holds.submitPlan('0xWORKER', { body: 'plan two' }))).quota).toBe('quota:holdPlans:standing');
    });

    it('a hook is refused plangate\'s own tool over quota, naming it; under quota it goes to plangate', async () => {
      const w = await makeWorld(rules(), { store: driver });
      await seedOrg(w.store);
      const deps = { gate: w.gate, quota: w.gate.quota };
      const ports = { refuse: (r: { code: string; text: string }) => `refused ${r.code}: ${r.text}`, own: () => 'own', forward: () => 'forwarded' };
      const call = { seat: '0xWORKER', tool: 'mcp__plangate__plangate_say', ownName: 'plangate_say' };
      expect(await runToolCall(deps, call, ports)).toBe('own');
      await w.gate.sayAsAgent(say('0xWORKER'));
      await w.gate.sayAsAgent(say('0xWORKER'));
      expect(await runToolCall(deps, call, ports)).toMatch(/^refused quota:messages:rate: quota:messages:rate - 0xWORKER/);
    });
  });
}

describe('quotas: defaults, failures and bad rules', () => {
  it('applies the defaults without a quotas section', async () => {
    const w = await makeWorld(rules('tools: { default: effect }\n'));
    const v = w.engine.quota({ kind: 'messages', seat: '0xW', now: 0 });
    expect(v.limits).toEqual({ kind: 'messages', rate: 600, windowMin: 60, standing: 50000 });
  });

  it('refuses the write when the count fails (fail closed), and stores nothing', async () => {
    expect(QUOTA_ON_COUNT_FAILURE).toBe('fail_closed');
    const w = await makeWorld(rules());
    await seedOrg(w.store);
    const broken = { ...w.store, quotaCounts: async () => { throw new PlangateError(ErrorCode.StoreFailure, 'disk gone'); } };
    const gate = createGate({ engine: w.engine, store: broken, clock: () => w.now });
    const e = await gate.sayAsAgent(say('0xWORKER')).then(() => undefined, (x: unknown) => x as PlangateError);
    expect(e?.code).toBe(ErrorCode.StoreFailure);
    expect(e?.message).toMatch(/messages quota of 0xWORKER could not be counted.*refused/);
    expect(await w.store.listThread('agent:0xWORKER', 10)).toEqual([]);
  });

  it('refuses the write when there is no policy to judge it', async () => {
    const w = await makeWorld(rules());
    const gate = createGate({ engine: { decide: w.engine.decide.bind(w.engine), explain: w.engine.explain.bind(w.engine), effective: w.engine.effective.bind(w.engine) }, store: w.store });
    const e = await gate.sayAsAgent(say('0xWORKER')).then(() => undefined, (x: unknown) => x as PlangateError);
    expect(e?.code).toBe(ErrorCode.PolicyUnavailable);
  });

  it('gives a bad quota its file:line:col', () => {
    const check = checkRules([{ file: 'q.yaml', text: 'quotas:\n  messages: { rate: -1 }\n  everything: { rate: 1 }\n' }]);
    expect(check.problems.map((p) => `${p.file}:${p.line}:${p.col}: ${p.message}`)).toEqual([
      'q.yaml:2:21: quotas.messages: rate must be an integer from 0 to 100000 (got -1)',
      'q.yaml:3:3: quotas: unknown key "everything" (expected messages, delegations, runs, holdPlans, approvalRequests)',
    ]);
  });

  it('the docs example is a valid rule file with what it says', () => {
    const data = rules(snippet('quotas'));
    expect(data.quotas?.messages).toMatchObject({ rate: 120, windowMin: 10 });
    expect(data.quotas?.delegations).toMatchObject({ standing: 500 });
  });
});

describe.runIf(havePostgres('quotas through the gate on PostgreSQL'))('quotas through the gate (postgres)', () => {
  it('refuses over the rate and leaves another seat alone', async () => {
    const fresh = await freshSchemaUrl('quotas_gate');
    const store = await openPostgresStore(fresh.url);
    try {
      const { engine, now } = await makeWorld(rules());
      await seedOrg(store);
      const gate = createGate({ engine, store, clock: () => now });
      await gate.sayAsAgent(say('0xWORKER'));
      await gate.sayAsAgent(say('0xWORKER'));
      const e = await refusal(gate.sayAsAgent(say('0xWORKER')));
      expect(e.quota).toBe('quota:messages:rate');
      expect(e.retryAfterSec).toBe(600);
      await gate.sayAsAgent(say('0xMGR'));
      await gate.delegations.record({ manager: '0xMGR', worker: '0xWORKER', by: '0xMGR' });
      expect((await refusal(gate.delegations.record({ manager: '0xMGR', worker: '0xOPS', by: '0xMGR' }))).quota).toBe('quota:delegations:rate');
    } finally {
      await store.close();
      await fresh.drop();
    }
  });
});
