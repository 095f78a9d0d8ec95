/**
 * Approval requests follow retention on SQLite and PostgreSQL: denied, used
 * and expired requests go (with the arguments they stored) once over for
 * longer than PLANGATE_RETAIN_APPROVALS_DAYS; a pending request and a grant
 * still usable never go; a dry run counts and deletes nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { NewApproval } from '../../src/core/approvals.js';
import { openPostgresStore } from '../../src/facts/postgres/store.js';
import { openSqliteStore } from '../../src/facts/sqlite/store.js';
import type { Store } from '../../src/facts/port.js';
import { cutoffs, DEFAULT_RETENTION, type PruneCutoffs } from '../../src/facts/retention.js';
import { pruneLine, retentionFromEnv } from '../../src/main/retention.js';
import { freshSchemaUrl, havePostgres } from '../support/postgres.js';

const DAY = 24 * 60 * 60 * 1000;
const MIN = 60_000;
const NOW = Date.UTC(2026, 5, 1, 12);
const dir = mkdtempSync(join(tmpdir(), 'plangate-prune-approvals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function request(id: string, requestedAt: number, windowMin = 15): NewApproval {
  const digest = (++n).toString(16).padStart(64, '0');
  return { id, seat: 'W', tool: 'github.merge', runId: null, digest, args: { token: `secret-${id}` }, planId: null, requestedAt, windowMin, approvers: { roles: ['approver'], names: [] } };
}

/** Requests in every state, old and new. */
async function fill(store: Store): Promise<void> {
  const ask = (id: string, at: number, windowMin?: number) => store.requestApproval(request(id, at, windowMin));
  const grant = (id: string, at: number) => store.answerApproval(id, { status: 'granted', by: 'ops', at });
  const deny = (id: string, at: number) => store.answerApproval(id, { status: 'denied', by: 'ops', at, reason: 'no' });
  // A request nobody answered for 40 days is still pending: it stays.
  await ask('p-old', NOW - 40 * DAY);
  await ask('d-old', NOW - 41 * DAY);
  await deny('d-old', NOW - 40 * DAY);
  await ask('u-old', NOW - 41 * DAY);
  await grant('u-old', NOW - 40 * DAY);
  expect(await store.useApproval('u-old', NOW - 40 * DAY + MIN)).toBe(true);
  await ask('e-old', NOW - 41 * DAY, 1);
  await grant('e-old', NOW - 40 * DAY);
  await ask('d-new', NOW - 11 * DAY);
  await deny('d-new', NOW - 10 * DAY);
  await ask('e-new', NOW - 70 * MIN);
  await grant('e-new', NOW - 60 * MIN);
  await ask('u-new', NOW - DAY - MIN);
  await grant('u-new', NOW - DAY);
  expect(await store.useApproval('u-new', NOW - DAY + MIN)).toBe(true);
  // Granted five minutes ago for fifteen: usable, whatever the setting.
  await ask('g-live', NOW - 10 * MIN);
  await grant('g-live', NOW - 5 * MIN);
}

const at = (approvalsDays: number): PruneCutoffs => cutoffs(NOW, { ...DEFAULT_RETENTION, approvalsDays }, undefined, { windowMin: 30, runMin: 1440 });
const ids = async (store: Store): Promise<string[]> => (await store.listApprovals({ limit: 100 })).map((a) => a.id).sort();

async function check(store: Store): Promise<void> {
  await fill(store);
  const all = ['d-new', 'd-old', 'e-new', 'e-old', 'g-live', 'p-old', 'u-new', 'u-old'];
  expect((await store.prune!(at(30), { dryRun: true, maxRows: 1000, batch: 2 })).approvals).toBe(3);
  expect(await ids(store)).toEqual(all);
  expect((await store.prune!(at(30), { maxRows: 1000, batch: 2 })).approvals).toBe(3);
  expect(await ids(store)).toEqual(['d-new', 'e-new', 'g-live', 'p-old', 'u-new']);
  // The stored arguments went with them.
  expect(await store.getApproval('d-old')).toBeUndefined();
  expect((await store.prune!(at(30), { maxRows: 1000, batch: 2 })).approvals).toBe(0);
  // Kept for nothing: only the pending request and the usable grant stay.
  expect((await store.prune!(at(0), { maxRows: 1000, batch: 2 })).approvals).toBe(3);
  expect(await ids(store)).toEqual(['g-live', 'p-old']);
  expect(await store.useApproval('g-live', NOW)).toBe(true);
}

describe('approval requests follow retention', () => {
  it('sqlite: answered and over go, pending and usable stay', async () => {
    const store = openSqliteStore(join(dir, 'a.db'));
    try {
      await check(store);
    } finally {
      await store.close();
    }
  });

  it('sqlite: at most maxRows a prune', async () => {
    const store = openSqliteStore(join(dir, 'b.db'));
    try {
      for (let i = 0; i < 5; i++) {
        await store.requestApproval(request(`d${i}`, NOW - 41 * DAY + i));
        await store.answerApproval(`d${i}`, { status: 'denied', by: 'ops', at: NOW - 40 * DAY, reason: 'no' });
      }
      expect((await store.prune!(at(30), { maxRows: 3, batch: 2 })).approvals).toBe(3);
      expect((await store.prune!(at(30), { maxRows: 3, batch: 2 })).approvals).toBe(2);
    } finally {
      await store.close();
    }
  });

  it('reads PLANGATE_RETAIN_APPROVALS_DAYS, by default as long as messages, and names it in the prune line', () => {
    expect(retentionFromEnv({}).approvalsDays).toBe(DEFAULT_RETENTION.messagesDays);
    expect(retentionFromEnv({ PLANGATE_RETAIN_APPROVALS_DAYS: '7' }).approvalsDays).toBe(7);
    expect(() => retentionFromEnv({ PLANGATE_RETAIN_APPROVALS_DAYS: 'week' })).toThrow(/env:PLANGATE_RETAIN_APPROVALS_DAYS/);
    const c = at(7);
    expect(c.approvalsBefore).toBe(NOW - 7 * DAY);
    const line = pruneLine({ messages: 0, runs: 0, delegations: 0, holds: 0, approvals: 2, dryRun: true, messagesBefore: NOW, runsBefore: NOW, delegationsBefore: NOW, holdsBefore: NOW, approvalsBefore: c.approvalsBefore, auditBefore: NOW });
    expect(line).toContain(`2 approval requests (over before ${new Date(NOW - 7 * DAY).toISOString()})`);
  });

  it.runIf(havePostgres('prune approvals'))('postgres: the same', async () => {
    const s = await freshSchemaUrl('prune_approvals');
    const store = await openPostgresStore(s.url);
    try {
      await check(store);
    } finally {
      await store.close();
      await s.drop();
    }
  });
});
