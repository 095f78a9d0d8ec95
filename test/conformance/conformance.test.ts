/**
 * Conformance cases as data: each YAML file in cases/ is a scenario — rule
 * files, an org, messages, then steps that edit the rules through the real
 * editor, post messages, and decide calls through the real policy. Adding a
 * case needs no TypeScript.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Call, PlanRule } from '../../src/core/types.js';
import { Engine } from '../../src/engine/policy.js';
import { createMemoryStore } from '../../src/facts/memory/store.js';
import { openPostgresStore } from '../../src/facts/postgres/store.js';
import { openSqliteStore } from '../../src/facts/sqlite/store.js';
import { freshSchemaUrl, havePostgres } from '../support/postgres.js';
import type { Store } from '../../src/facts/port.js';
import { createGate } from '../../src/gate/gate.js';
import { clearPlanRule, setPlanRule, type RuleScope } from '../../src/rules/edit.js';
import { loadRules } from '../../src/rules/load.js';

interface MessageSpec { thread: string; as?: string; human?: string; kind: string; ago: string; run?: string }
/** A run the host recorded: started `ago`, lasting `lasts` (default 24h), ended `endedAgo` ago when set. */
interface RunSpec { id: string; seat: string; ago: string; lasts?: string; endedAgo?: string }
/** A recorded delegation: made `ago` (default 1h), for `run` or any run, expiring `expiresIn` from now (negative: `expiredAgo`). */
interface DelegationSpec { manager: string; worker: string; ago?: string; run?: string; expiredAgo?: string; revoked?: boolean }
interface Expect {
  allowed: boolean; code?: string; gated?: boolean; mode?: string; modeScope?: string;
  windowMin?: number; via?: string; planAuthor?: string; runStatus?: string; chain?: string[]; unrecorded?: string;
}
interface Step {
  note?: string;
  set?: { workspace?: boolean; crew?: string; agent?: string; mode: PlanRule['mode']; windowMin?: number; acceptUpstream?: boolean };
  clear?: { workspace?: boolean; crew?: string; agent?: string };
  say?: MessageSpec;
  run?: RunSpec;
  endRun?: string;
  delegate?: DelegationSpec;
  decide?: { agent: string; tool: string; run?: string; delegatedBy?: string[] };
  expect?: Expect;
}
interface Case {
  note: string;
  now: string;
  rules: Record<string, string>;
  org: { crews: Record<string, string | null>; agents: Record<string, string> };
  messages?: MessageSpec[];
  runs?: RunSpec[];
  delegations?: DelegationSpec[];
  steps: Step[];
}

const CASES = join(import.meta.dirname, 'cases');

function ago(spec: string): number {
  const m = /^(\d+)(s|m|h|d)$/.exec(spec);
  if (!m) throw new Error(`bad duration ${spec}`);
  return Number(m[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
}

function scopeOf(s: { workspace?: boolean; crew?: string; agent?: string }): RuleScope {
  if (s.workspace) return { kind: 'workspace' };
  if (s.crew !== undefined) return { kind: 'crew', id: String(s.crew) };
  return { kind: 'agent', id: String(s.agent) };
}

async function post(store: Store, m: MessageSpec, now: number): Promise<void> {
  await store.postMessage({
    thread: m.thread,
    author: String(m.as ?? m.human),
    authorKind: m.as !== undefined ? 'agent' : 'human',
    kind: m.kind,
    body: 'conformance',
    at: now - ago(m.ago),
    ...(m.run ? { runId: m.run } : {}),
  });
}

async function startRun(store: Store, r: RunSpec, now: number): Promise<void> {
  const startedAt = now - ago(r.ago);
  await store.startRun({ id: String(r.id), seat: String(r.seat), startedBy: 'conformance', startedAt, expiresAt: startedAt + ago(r.lasts ?? '24h') });
  if (r.endedAgo !== undefined) await store.endRun(String(r.id), { by: 'conformance', at: now - ago(r.endedAgo) });
}

async function delegate(store: Store, d: DelegationSpec, now: number): Promise<void> {
  const createdAt = now - ago(d.ago ?? '1h');
  const rec = await store.delegate({
    manager: String(d.manager), worker: String(d.worker), createdBy: 'conformance', createdAt,
    ...(d.run !== undefined ? { runId: String(d.run) } : {}),
    ...(d.expiredAgo !== undefined ? { expiresAt: now - ago(d.expiredAgo) } : {}),
  });
  if (d.revoked) await store.revokeDelegation(rec.id, now - 1);
}

async function run(c: Case, store: Store): Promise<void> {
  const now = Date.parse(c.now);
  const dir = mkdtempSync(join(tmpdir(), 'plangate-conformance-'));
  for (const [file, text] of Object.entries(c.rules)) writeFileSync(join(dir, file), text);
  // Parents first: a crew's parent must exist before it.
  const crews = Object.entries(c.org.crews);
  while (crews.length) {
    const i = crews.findIndex(([, parent]) => parent === null || !crews.some(([id]) => id === parent));
    const [[id, parent]] = crews.splice(i, 1) as [[string, string | null]];
    await store.putCrew({ id: String(id), parent: parent === null ? null : String(parent) });
  }
  for (const [id, crew] of Object.entries(c.org.agents)) await store.putAgent({ id: String(id), crew: String(crew) });
  for (const m of c.messages ?? []) await post(store, m, now);
  for (const r of c.runs ?? []) await startRun(store, r, now);
  for (const d of c.delegations ?? []) await delegate(store, d, now);

  for (const [i, step] of c.steps.entries()) {
    const where = `step ${i + 1}${step.note ? ` (${step.note})` : ''}`;
    if (step.set) {
      const { workspace, crew, agent, ...rule } = step.set;
      await setPlanRule(dir, scopeOf({ workspace, crew, agent }), rule);
    }
    if (step.clear) await clearPlanRule(dir, scopeOf(step.clear));
    if (step.say) await post(store, step.say, now);
    if (step.run) await startRun(store, step.run, now);
    if (step.endRun !== undefined) await store.endRun(String(step.endRun), { by: 'conformance', at: now });
    if (step.delegate) await delegate(store, step.delegate, now);
    if (step.decide) {
      const rules = await loadRules(dir);
      const engine = await Engine.load({ data: rules.data, rulesRevision: rules.revision });
      const gate = createGate({ engine, store, clock: () => now });
      const call: Call = {
        agent: String(step.decide.agent),
        tool: step.decide.tool,
        ...(step.decide.run ? { runId: step.decide.run } : {}),
        ...(step.decide.delegatedBy ? { delegatedBy: step.decide.delegatedBy.map(String) } : {}),
      };
      const d = await gate.decide(call);
      const e = step.expect;
      if (!e) throw new Error(`${where}: a decide step needs an expect`);
      const got: Record<string, unknown> = { allowed: d.allowed };
      if ('code' in e) got.code = d.code;
      if ('gated' in e) got.gated = d.gated;
      if ('mode' in e) got.mode = d.settings.mode.value;
      if ('modeScope' in e) got.modeScope = d.settings.mode.scope;
      if ('windowMin' in e) got.windowMin = d.settings.windowMin.value;
      if ('via' in e) got.via = d.plan?.via;
      if ('planAuthor' in e) got.planAuthor = d.plan?.author;
      if ('runStatus' in e) got.runStatus = d.run?.status;
      if ('chain' in e) got.chain = d.delegation?.chain;
      if ('unrecorded' in e) got.unrecorded = d.delegation?.unrecorded;
      expect(got, where).toEqual({
        ...e,
        ...(e.planAuthor !== undefined ? { planAuthor: String(e.planAuthor) } : {}),
        ...(e.chain !== undefined ? { chain: e.chain.map(String) } : {}),
        ...(e.unrecorded !== undefined ? { unrecorded: String(e.unrecorded) } : {}),
      });
    }
  }
}

const files = readdirSync(CASES).filter((f) => f.endsWith('.yaml')).sort();

const kinds = ['memory', 'sqlite', ...(havePostgres('the conformance cases on PostgreSQL') ? ['postgres'] as const : [])] as const;

describe.each(kinds)('conformance (%s store)', (kind) => {
  it.each(files)('%s', async (file) => {
    const c = parse(readFileSync(join(CASES, file), 'utf8')) as Case;
    const schema = kind === 'postgres' ? await freshSchemaUrl('conformance') : undefined;
    const store = schema ? await openPostgresStore(schema.url)
      : kind === 'memory' ? createMemoryStore() : openSqliteStore(join(mkdtempSync(join(tmpdir(), 'plangate-c-')), 's.db'));
    try {
      await run(c, store);
    } finally {
      await store.close();
      await schema?.drop();
    }
  });
});
