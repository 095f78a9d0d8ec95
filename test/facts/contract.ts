/**
 * The store contract: one suite, run against every driver (store.test.ts).
 * A driver is correct when it passes this file unchanged.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode, PlangateError } from '../../src/core/errors.js';
import type { MessageFact, NewMessage, StoredMessage } from '../../src/core/types.js';
import type { CandidateQuery, DecisionFactsQuery, Store } from '../../src/facts/port.js';
import { MAX_BODY_BYTES, MAX_CREW_DEPTH } from '../../src/facts/validate.js';
import { MAX_HOLD_LIMIT, MAX_TASK_LENGTH } from '../../src/facts/holds.js';
import { runsContract } from './runs-contract.js';
import { quotasContract } from './quotas-contract.js';
import { approvalsContract } from './approvals-contract.js';

export type MakeStore = () => Store | Promise<Store>;

/** Asserts that `p` rejects with a PlangateError carrying `code` (and, optionally, a message matching `msg`). */
export async function expectCode(p: Promise<unknown>, code: ErrorCode, msg?: RegExp): Promise<void> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `expected a ${code} rejection`).toBeInstanceOf(PlangateError);
  expect((err as PlangateError).code).toBe(code);
  if (msg) expect((err as PlangateError).message).toMatch(msg);
}

/** The random-history properties open a store per history (a schema each on PostgreSQL): slow on a loaded machine. */
const PROPERTY_TIMEOUT_MS = 120_000;

const FACT_KEYS = ['at', 'author', 'authorKind', 'id', 'kind', 'thread'];

/** A brute-force reading of CandidateQuery's documentation, for the property test. */

/** A random message in one of `threads` by one of `authors`: mostly agents' plans, times 0–20, some run-tagged. */
function randomMessage(threads: string[], authors: string[]) {
  return fc.record({
    thread: fc.constantFrom(...threads),
    author: fc.constantFrom(...authors),
    authorKind: fc.constantFrom('agent' as const, 'agent' as const, 'human' as const),
    kind: fc.constantFrom('plan', 'plan', 'note'),
    at: fc.integer({ min: 0, max: 20 }),
    runId: fc.option(fc.constantFrom('r1', 'r2'), { nil: undefined, freq: 2 }),
  });
}
export function referenceCandidates(all: StoredMessage[], q: CandidateQuery): MessageFact[] {
  const newest = (ms: StoredMessage[], n: number) =>
    ms
      .filter((m) => m.at <= q.now)
      .sort((a, b) => b.at - a.at || Number(b.id) - Number(a.id))
      .slice(0, n);
  const picked: StoredMessage[] = [];
  for (const { author, threads } of q.plansBy) {
    for (const thread of threads) {
      const plans = all.filter(
        (m) => m.kind === 'plan' && m.authorKind === 'agent' && m.author === author && m.thread === thread,
      );
      picked.push(...newest(plans, 1));
      if (q.runId !== undefined) picked.push(...newest(plans.filter((m) => m.runId === q.runId), 1));
    }
  }
  if (q.context) {
    const { threads, author, perThread } = q.context;
    for (const thread of threads) picked.push(...newest(all.filter((m) => m.thread === thread), perThread));
    picked.push(...newest(all.filter((m) => m.author === author && m.authorKind === 'agent'), perThread));
  }
  const byId = new Map(picked.map((m) => [m.id, m]));
  return [...byId.values()]
    .sort((a, b) => b.at - a.at || Number(b.id) - Number(a.id))
    .map(({ body: _body, ...fact }) => fact);
}

/**
 * Registers the contract suite for one driver. `makeStore` is called once
 * per test and must return an empty store; the suite closes it.
 */
export function storeContract(name: string, makeStore: MakeStore): void {
  describe(`store contract: ${name}`, () => {
    let store: Store;

    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    /** Posts an agent message; `at` is required so every test states its times. */
    const post = (m: Partial<NewMessage> & { at: number }) =>
      store.postMessage({
        thread: 'agent:W',
        author: 'W',
        authorKind: 'agent',
        kind: 'plan',
        body: `body@${m.at}`,
        ...m,
      });

    describe('org', () => {
      it('creates, reads and lists crews and agents (sorted by id)', async () => {
        await store.putCrew({ id: 'root', parent: null });
        await store.putCrew({ id: 'desk', parent: 'root' });
        await store.putCrew({ id: 'b-team', parent: 'root' });
        await store.putAgent({ id: '0xWORKER', crew: 'desk' });
        await store.putAgent({ id: '0xBOSS', crew: 'root' });

        expect(await store.getCrew('desk')).toEqual({ id: 'desk', parent: 'root' });
        expect(await store.getCrew('root')).toEqual({ id: 'root', parent: null });
        expect(await store.getCrew('nope')).toBeUndefined();
        expect(await store.getAgent('0xWORKER')).toEqual({ id: '0xWORKER', crew: 'desk' });
        expect(await store.getAgent('nope')).toBeUndefined();
        expect(await store.listCrews()).toEqual([
          { id: 'b-team', parent: 'root' },
          { id: 'desk', parent: 'root' },
          { id: 'root', parent: null },
        ]);
        expect(await store.listAgents()).toEqual([
          { id: '0xBOSS', crew: 'root' },
          { id: '0xWORKER', crew: 'desk' },
        ]);
      });

      it('refuses an unknown parent crew with not_found', async () => {
        await expectCode(store.putCrew({ id: 'desk', parent: 'ghost' }), ErrorCode.NotFound, /ghost/);
        expect(await store.getCrew('desk')).toBeUndefined();
      });

      it('refuses a self-parent with conflict, even for a new crew', async () => {
        await expectCode(store.putCrew({ id: 'desk', parent: 'desk' }), ErrorCode.Conflict);
        await store.putCrew({ id: 'desk', parent: null });
        await expectCode(store.putCrew({ id: 'desk', parent: 'desk' }), ErrorCode.Conflict);
        expect(await store.getCrew('desk')).toEqual({ id: 'desk', parent: null });
      });

      it('refuses a re-parenting that would make a cycle, and leaves the org unchanged', async () => {
        await store.putCrew({ id: 'a', parent: null });
        await store.putCrew({ id: 'b', parent: 'a' });
        await store.putCrew({ id: 'c', parent: 'b' });
        await expectCode(store.putCrew({ id: 'a', parent: 'c' }), ErrorCode.Conflict, /cycle/);
        await expectCode(store.putCrew({ id: 'a', parent: 'b' }), ErrorCode.Conflict);
        expect(await store.getCrew('a')).toEqual({ id: 'a', parent: null });
        await store.putAgent({ id: 'W', crew: 'c' });
        expect((await store.lineage('W')).crews).toEqual(['c', 'b', 'a']);
      });

      it('refuses invalid ids with invalid_input', async () => {
        await store.putCrew({ id: 'ok', parent: null });
        for (const id of ['', 'has space', '__proto__', '-lead', 'x'.repeat(129), 42 as unknown as string]) {
          await expectCode(store.putCrew({ id, parent: null }), ErrorCode.InvalidInput, /crew\.id/);
          await expectCode(store.putAgent({ id, crew: 'ok' }), ErrorCode.InvalidInput, /agent\.id/);
        }
        await expectCode(store.putCrew({ id: 'fine', parent: 'bad parent' }), ErrorCode.InvalidInput, /crew\.parent/);
        await expectCode(store.putAgent({ id: 'fine', crew: 'bad crew' }), ErrorCode.InvalidInput, /agent\.crew/);
        expect(await store.listCrews()).toEqual([{ id: 'ok', parent: null }]);
        expect(await store.listAgents()).toEqual([]);
      });

      it('refuses an agent in an unknown crew with not_found', async () => {
        await expectCode(store.putAgent({ id: 'W', crew: 'ghost' }), ErrorCode.NotFound, /ghost/);
        expect(await store.getAgent('W')).toBeUndefined();
      });

      it('moves an agent to another crew', async () => {
        await store.putCrew({ id: 'root', parent: null });
        await store.putCrew({ id: 'desk', parent: 'root' });
        await store.putCrew({ id: 'ops', parent: null });
        await store.putAgent({ id: 'W', crew: 'desk' });
        expect(await store.lineage('W')).toEqual({ id: 'W', known: true, crews: ['desk', 'root'] });
        await store.putAgent({ id: 'W', crew: 'ops' });
        expect(await store.lineage('W')).toEqual({ id: 'W', known: true, crews: ['ops'] });
        expect(await store.listAgents()).toEqual([{ id: 'W', crew: 'ops' }]);
      });

      it('moves a crew, and its agents follow', async () => {
        await store.putCrew({ id: 'a', parent: null });
        await store.putCrew({ id: 'z', parent: null });
        await store.putCrew({ id: 'desk', parent: 'a' });
        await store.putAgent({ id: 'W', crew: 'desk' });
        await store.putCrew({ id: 'desk', parent: 'z' });
        expect((await store.lineage('W')).crews).toEqual(['desk', 'z']);
        await store.putCrew({ id: 'desk', parent: null });
        expect((await store.lineage('W')).crews).toEqual(['desk']);
      });

      it('gives the lineage nearest first, down to the deepest nesting allowed', async () => {
        await store.putCrew({ id: 'c1', parent: null });
        for (let i = 2; i <= MAX_CREW_DEPTH; i++) await store.putCrew({ id: `c${i}`, parent: `c${i - 1}` });
        await store.putAgent({ id: 'W', crew: `c${MAX_CREW_DEPTH}` });
        const lineage = await store.lineage('W');
        expect(lineage.known).toBe(true);
        expect(lineage.crews).toHaveLength(MAX_CREW_DEPTH);
        expect(lineage.crews[0]).toBe(`c${MAX_CREW_DEPTH}`);
        expect(lineage.crews.at(-1)).toBe('c1');
        expect(lineage.crews).toEqual(Array.from({ length: MAX_CREW_DEPTH }, (_, i) => `c${MAX_CREW_DEPTH - i}`));
        // One more level is refused.
        await expectCode(store.putCrew({ id: 'too-deep', parent: `c${MAX_CREW_DEPTH}` }), ErrorCode.Conflict, /deep/);
        expect(await store.getCrew('too-deep')).toBeUndefined();
      });

      it('refuses moving a subtree where its deepest crew would nest too deep', async () => {
        await store.putCrew({ id: 'c1', parent: null });
        for (let i = 2; i <= MAX_CREW_DEPTH - 1; i++) await store.putCrew({ id: `c${i}`, parent: `c${i - 1}` });
        await store.putCrew({ id: 'top', parent: null });
        await store.putCrew({ id: 'mid', parent: 'top' });
        await store.putCrew({ id: 'leaf', parent: 'mid' });
        // top would sit at depth 64, leaf at 66.
        await expectCode(store.putCrew({ id: 'top', parent: `c${MAX_CREW_DEPTH - 1}` }), ErrorCode.Conflict);
        expect(await store.getCrew('top')).toEqual({ id: 'top', parent: null });
        // A leaf-only crew fits at depth 64.
        await store.putCrew({ id: 'leaf', parent: `c${MAX_CREW_DEPTH - 1}` });
        await store.putAgent({ id: 'W', crew: 'leaf' });
        expect((await store.lineage('W')).crews).toHaveLength(MAX_CREW_DEPTH);
      });

      it('reports an unknown agent as known: false with no crews', async () => {
        await store.putCrew({ id: 'desk', parent: null });
        expect(await store.lineage('0xNOBODY')).toEqual({ id: '0xNOBODY', known: false, crews: [] });
        // A crew id is not an agent.
        expect(await store.lineage('desk')).toEqual({ id: 'desk', known: false, crews: [] });
      });
    });

    describe('postMessage', () => {
      const good: NewMessage = { thread: 'agent:W', author: 'W', authorKind: 'agent', kind: 'plan', body: 'x', at: 5 };

      it('stores a message, returning a string id and the given time', async () => {
        const m = await store.postMessage({ ...good, runId: 'run-1' });
        expect(m).toEqual({ ...good, runId: 'run-1', id: m.id });
        expect(m.id).toMatch(/^[0-9]+$/);
        const n = await store.postMessage(good);
        expect(Number(n.id)).toBeGreaterThan(Number(m.id));
        expect('runId' in n).toBe(false);
      });

      it('defaults the time to now', async () => {
        const before = Date.now();
        const { at: _at, ...noTime } = good;
        const m = await store.postMessage(noTime);
        expect(m.at).toBeGreaterThanOrEqual(before);
        expect(m.at).toBeLessThanOrEqual(Date.now());
        expect(Number.isInteger(m.at)).toBe(true);
      });

      it('accepts a thread whose agent or crew the org does not know, and any past or future time', async () => {
        await store.postMessage({ ...good, thread: 'crew:ghost', at: 0 });
        await store.postMessage({ ...good, thread: 'agent:ghost', at: 4_102_444_800_000 });
        await store.postMessage({ ...good, thread: 'org', at: -1 });
        expect(await store.listThread('crew:ghost', 10)).toHaveLength(1);
        expect(await store.listThread('agent:ghost', 10)).toHaveLength(1);
      });

      it('accepts the largest values allowed', async () => {
        const m = await store.postMessage({
          ...good,
          author: 'a'.repeat(128),
          kind: 'k'.repeat(32),
          body: 'b'.repeat(MAX_BODY_BYTES),
          runId: 'r'.repeat(128),
          at: Number.MAX_SAFE_INTEGER,
        });
        expect(m.body).toHaveLength(MAX_BODY_BYTES);
        const [back] = await store.listThread('agent:W', 1);
        expect(back).toEqual(m);
      });

      const bad: Array<[string, Partial<Record<keyof NewMessage, unknown>>]> = [
        ['thread', { thread: 'nope' }],
        ['thread', { thread: 'agent:' }],
        ['thread', { thread: 'agent:bad id' }],
        ['thread', { thread: 'crew:__proto__' }],
        ['thread', { thread: 42 }],
        ['author', { author: '' }],
        ['author', { author: 'a'.repeat(129) }],
        ['author', { author: null }],
        ['authorKind', { authorKind: 'bot' }],
        ['authorKind', { authorKind: undefined }],
        ['kind', { kind: 'Plan' }],
        ['kind', { kind: '' }],
        ['kind', { kind: '1plan' }],
        ['kind', { kind: 'pl an' }],
        ['kind', { kind: 'k'.repeat(33) }],
        ['body', { body: 7 }],
        ['body', { body: undefined }],
        ['body', { body: 'b'.repeat(MAX_BODY_BYTES + 1) }],
        // 32 769 characters but 65 538 UTF-8 bytes: the limit is in bytes.
        ['body', { body: 'é'.repeat(MAX_BODY_BYTES / 2 + 1) }],
        ['at', { at: 1.5 }],
        ['at', { at: Number.NaN }],
        ['at', { at: Number.POSITIVE_INFINITY }],
        ['at', { at: '123' }],
        ['at', { at: null }],
        ['runId', { runId: '' }],
        ['runId', { runId: 'r'.repeat(129) }],
        ['runId', { runId: 5 }],
      ];
      it.each(bad)('refuses a bad %s (%j) with invalid_input naming the field', async (field, patch) => {
        const m = { ...good, ...patch } as NewMessage;
        await expectCode(store.postMessage(m), ErrorCode.InvalidInput, new RegExp(`message\\.${field}\\b`));
        expect(await store.listThread('agent:W', 10)).toEqual([]);
      });

      it('refuses a non-object with invalid_input', async () => {
        await expectCode(store.postMessage(null as unknown as NewMessage), ErrorCode.InvalidInput);
      });

      // PostgreSQL cannot store U+0000 in text: every driver refuses it alike, rather than one failing as a broken store.
      it.each(['body', 'author', 'runId'] as const)('refuses a NUL character in the %s with invalid_input, storing nothing', async (field) => {
        await expectCode(store.postMessage({ ...good, runId: 'r1', [field]: 'a\u0000b' }), ErrorCode.InvalidInput, new RegExp(`message\\.${field}\\b`));
        expect(await store.listThread('agent:W', 10)).toEqual([]);
      });
    });

    describe('candidates', () => {
      const ALL = ['agent:W', 'crew:desk', 'org'];
      const plansOf = (author: string, threads = ALL) => ({ author, threads });
      const ats = (fs: MessageFact[]) => fs.map((f) => f.at);

      it('returns the newest plan per (author, thread), newest first, never notes', async () => {
        await post({ at: 100 });
        const p200 = await post({ at: 200 });
        const p150 = await post({ at: 150, thread: 'crew:desk' });
        await post({ at: 120, thread: 'crew:desk' });
        await post({ at: 300, kind: 'note' });
        await post({ at: 310, kind: 'note', thread: 'org' });
        const got = await store.candidates({ now: 1000, plansBy: [plansOf('W')] });
        expect(got.map((f) => f.id)).toEqual([p200.id, p150.id]);
      });

      it('returns facts without bodies, with exactly the fact fields', async () => {
        await post({ at: 100, runId: 'r1' });
        await post({ at: 200 });
        const got = await store.candidates({
          now: 1000,
          runId: 'r1',
          plansBy: [plansOf('W')],
          context: { threads: ALL, author: 'W', perThread: 5 },
        });
        expect(got).toHaveLength(2);
        expect(Object.keys(got[0] as object).sort()).toEqual(FACT_KEYS);
        expect(Object.keys(got[1] as object).sort()).toEqual([...FACT_KEYS, 'runId'].sort());
        for (const f of got) expect(f).not.toHaveProperty('body');
        expect(got[1]).toEqual({
          id: got[1]?.id,
          thread: 'agent:W',
          author: 'W',
          authorKind: 'agent',
          kind: 'plan',
          at: 100,
          runId: 'r1',
        });
      });

      it('returns an old run-tagged plan even when newer untagged plans exist', async () => {
        const old = await post({ at: 100, runId: 'r1' });
        await post({ at: 200 });
        await post({ at: 300 });
        const newest = await post({ at: 400, runId: 'r2' });
        await post({ at: 350, runId: 'r1', kind: 'note' });
        await post({ at: 360, runId: 'r1', author: 'W', authorKind: 'human' });
        await post({ at: 370, runId: 'r1', author: 'X' });

        const withRun = await store.candidates({ now: 1000, runId: 'r1', plansBy: [plansOf('W')] });
        expect(withRun.map((f) => f.id)).toEqual([newest.id, old.id]);
        const noRun = await store.candidates({ now: 1000, plansBy: [plansOf('W')] });
        expect(noRun.map((f) => f.id)).toEqual([newest.id]);
        const otherRun = await store.candidates({ now: 1000, runId: 'r9', plansBy: [plansOf('W')] });
        expect(otherRun.map((f) => f.id)).toEqual([newest.id]);
      });

      it('looks for the run-tagged plan in each thread separately', async () => {
        const inCrew = await post({ at: 100, runId: 'r1', thread: 'crew:desk' });
        const inOwn = await post({ at: 50, runId: 'r1' });
        await post({ at: 500, thread: 'crew:desk' });
        await post({ at: 600 });
        const got = await store.candidates({ now: 1000, runId: 'r1', plansBy: [plansOf('W')] });
        expect(got.map((f) => f.at)).toEqual([600, 500, 100, 50]);
        expect(got.map((f) => f.id)).toContain(inCrew.id);
        expect(got.map((f) => f.id)).toContain(inOwn.id);
      });

      it('never returns messages after now (now itself included)', async () => {
        await post({ at: 100 });
        await post({ at: 500 });
        await post({ at: 900, runId: 'r1' });
        expect(ats(await store.candidates({ now: 499, runId: 'r1', plansBy: [plansOf('W')] }))).toEqual([100]);
        expect(ats(await store.candidates({ now: 500, runId: 'r1', plansBy: [plansOf('W')] }))).toEqual([500]);
        expect(ats(await store.candidates({ now: 99, runId: 'r1', plansBy: [plansOf('W')] }))).toEqual([]);
        expect(ats(await store.candidates({ now: 900, runId: 'r1', plansBy: [plansOf('W')] }))).toEqual([900]);
        const ctx = await store.candidates({
          now: 499,
          plansBy: [],
          context: { threads: ['agent:W'], author: 'W', perThread: 10 },
        });
        expect(ats(ctx)).toEqual([100]);
      });

      it('never returns a human as a plan author, even under the agent’s name', async () => {
        const mine = await post({ at: 100 });
        await post({ at: 900, authorKind: 'human' });
        await post({ at: 901, authorKind: 'human', runId: 'r1' });
        const got = await store.candidates({ now: 1000, runId: 'r1', plansBy: [plansOf('W')] });
        expect(got.map((f) => f.id)).toEqual([mine.id]);
      });

      it('returns only the named authors’ plans', async () => {
        const w = await post({ at: 100 });
        const x = await post({ at: 200, author: 'X' });
        const m = await post({ at: 300, author: 'M', thread: 'crew:desk' });
        expect((await store.candidates({ now: 1000, plansBy: [plansOf('W')] })).map((f) => f.id)).toEqual([w.id]);
        const both = await store.candidates({ now: 1000, plansBy: [plansOf('W'), plansOf('M')] });
        expect(both.map((f) => f.id)).toEqual([m.id, w.id]);
        expect(x.id).not.toBe(w.id);
        // M's plan is in crew:desk; asking for M's own thread only finds nothing.
        expect(await store.candidates({ now: 1000, plansBy: [plansOf('M', ['agent:M'])] })).toEqual([]);
      });

      it('returns nothing for an empty query or unknown names', async () => {
        await post({ at: 100 });
        expect(await store.candidates({ now: 1000, plansBy: [] })).toEqual([]);
        expect(await store.candidates({ now: 1000, plansBy: [plansOf('ghost')] })).toEqual([]);
        expect(await store.candidates({ now: 1000, plansBy: [plansOf('W', ['crew:ghost', 'not a thread'])] })).toEqual(
          [],
        );
      });

      it('adds context: the newest perThread messages per thread, and by the author anywhere', async () => {
        // agent:W: a note by W, a human note, a plan by W, a note by X.
        const a1 = await post({ at: 10, kind: 'note' });
        const a2 = await post({ at: 20, kind: 'note', author: 'boss', authorKind: 'human' });
        const a3 = await post({ at: 30 });
        const a4 = await post({ at: 40, kind: 'note', author: 'X' });
        // crew:desk: three messages by others.
        const c1 = await post({ at: 11, thread: 'crew:desk', author: 'X', kind: 'note' });
        const c2 = await post({ at: 21, thread: 'crew:desk', author: 'Y', kind: 'note' });
        const c3 = await post({ at: 31, thread: 'crew:desk', author: 'Z', kind: 'status' });
        // W elsewhere (threads not in the context list), and W as a human.
        const e1 = await post({ at: 50, thread: 'crew:other', kind: 'note' });
        const e2 = await post({ at: 60, thread: 'agent:X', kind: 'note' });
        await post({ at: 70, thread: 'crew:other', kind: 'note', authorKind: 'human' });
        // After now.
        await post({ at: 2000, kind: 'note' });
        void a1;
        void c1;

        const got = await store.candidates({
          now: 1000,
          plansBy: [],
          context: { threads: ['agent:W', 'crew:desk'], author: 'W', perThread: 2 },
        });
        // agent:W newest 2: a4, a3. crew:desk newest 2: c3, c2. W as agent newest 2: e2, e1.
        expect(got.map((f) => f.id)).toEqual([e2.id, e1.id, a4.id, c3.id, a3.id, c2.id]);
        expect(got.map((f) => f.id)).not.toContain(a2.id);

        const none = await store.candidates({
          now: 1000,
          plansBy: [],
          context: { threads: ['agent:W', 'crew:desk'], author: 'W', perThread: 0 },
        });
        expect(none).toEqual([]);
      });

      it('deduplicates by id', async () => {
        const p = await post({ at: 100, runId: 'r1' });
        const got = await store.candidates({
          now: 1000,
          runId: 'r1',
          plansBy: [plansOf('W', ['agent:W', 'agent:W']), plansOf('W')],
          context: { threads: ['agent:W', 'agent:W'], author: 'W', perThread: 3 },
        });
        expect(got.map((f) => f.id)).toEqual([p.id]);
      });

      it('breaks ties in time by id: the later post is newer', async () => {
        const first = await post({ at: 100 });
        const second = await post({ at: 100 });
        const got = await store.candidates({ now: 1000, plansBy: [plansOf('W')] });
        expect(got.map((f) => f.id)).toEqual([second.id]);
        const ctx = await store.candidates({
          now: 1000,
          plansBy: [],
          context: { threads: ['agent:W'], author: 'nobody', perThread: 5 },
        });
        expect(ctx.map((f) => f.id)).toEqual([second.id, first.id]);
      });

      it('keeps order when messages arrive out of time order', async () => {
        const late = await post({ at: 300 });
        const early = await post({ at: 100 });
        const mid = await post({ at: 200 });
        expect((await store.candidates({ now: 250, plansBy: [plansOf('W')] })).map((f) => f.id)).toEqual([mid.id]);
        const ctx = await store.candidates({
          now: 1000,
          plansBy: [],
          context: { threads: ['agent:W'], author: 'W', perThread: 3 },
        });
        expect(ctx.map((f) => f.id)).toEqual([late.id, mid.id, early.id]);
      });

      it('refuses a malformed query with invalid_input', async () => {
        await expectCode(store.candidates({ now: Number.NaN, plansBy: [] }), ErrorCode.InvalidInput, /now/);
        await expectCode(
          store.candidates({ now: 1, plansBy: 'W' as unknown as CandidateQuery['plansBy'] }),
          ErrorCode.InvalidInput,
        );
        await expectCode(
          store.candidates({ now: 1, plansBy: [], context: { threads: [], author: 'W', perThread: -1 } }),
          ErrorCode.InvalidInput,
          /perThread/,
        );
        await expectCode(
          store.candidates({ now: 1, plansBy: [], context: { threads: [], author: 'W', perThread: 1e9 } }),
          ErrorCode.InvalidInput,
          /perThread/,
        );
      });

      it('agrees with a brute-force reading of the contract on random histories', async () => {
        const authors = ['W', 'X', 'M'];
        const threads = ['agent:W', 'agent:X', 'crew:desk', 'org'];
        const message = randomMessage(threads, authors);
        const query = fc.record({
          now: fc.integer({ min: -1, max: 22 }),
          runId: fc.option(fc.constantFrom('r1', 'r2', 'r3'), { nil: undefined, freq: 3 }),
          plansBy: fc.array(
            fc.record({ author: fc.constantFrom(...authors), threads: fc.subarray(threads) }),
            { minLength: 1, maxLength: 3 },
          ),
          context: fc.option(
            fc.record({
              threads: fc.subarray(threads),
              author: fc.constantFrom(...authors),
              perThread: fc.integer({ min: 0, max: 4 }),
            }),
            { nil: undefined },
          ),
        });
        let run = 0;
        const property = fc.asyncProperty(
          fc.array(message, { minLength: 5, maxLength: 60, size: 'medium' }),
          fc.array(query, { minLength: 3, maxLength: 8, size: 'medium' }),
          async (ms, qs) => {
            // Each run gets a fresh store (the first run reuses the suite's).
            const s = run++ === 0 ? store : await makeStore();
            try {
              const stored: StoredMessage[] = [];
              for (const { runId, ...rest } of ms) {
                stored.push(await s.postMessage({ ...rest, body: 'b', ...(runId !== undefined ? { runId } : {}) }));
              }
              for (const q of qs) {
                const clean: CandidateQuery = { now: q.now, plansBy: q.plansBy };
                if (q.runId !== undefined) clean.runId = q.runId;
                if (q.context !== undefined) clean.context = q.context;
                expect(await s.candidates(clean)).toEqual(referenceCandidates(stored, clean));
              }
            } finally {
              if (s !== store) await s.close();
            }
          },
        );
        await fc.assert(property, { numRuns: 60 });
      }, PROPERTY_TIMEOUT_MS);
    });

    describe('decisionFacts', () => {
      it('reads what lineage, activeHold and candidates read, for the seat and its delegation chain', async () => {
        if (!store.decisionFacts) return; // optional: the gate then reads the facts one lookup at a time
        await store.putCrew({ id: 'root', parent: null });
        await store.putCrew({ id: 'desk', parent: 'root' });
        await store.putAgent({ id: 'W', crew: 'desk' });
        await store.putAgent({ id: 'M', crew: 'root' });
        await post({ at: 10 });
        await post({ at: 20, thread: 'crew:desk', runId: 'r1' });
        await post({ at: 30, thread: 'crew:desk' });
        await post({ at: 15, author: 'M', thread: 'crew:root' });
        await post({ at: 16, author: 'M', thread: 'agent:M', kind: 'note' });
        await store.placeHold({ agent: 'W', kind: 'on_demand', placedBy: 'ops', placedAt: 5 });
        const q = { agent: 'W', delegatedBy: ['M', 'X'], now: 100, runId: 'r1', context: 2 };
        const got = await store.decisionFacts(q);
        const agent = await store.lineage('W');
        const upstream = [await store.lineage('M'), await store.lineage('X')];
        expect(got.agent).toEqual(agent);
        expect(got.upstream).toEqual(upstream);
        expect(got.hold).toEqual(await store.activeHold('W'));
        const plansBy = [agent, ...upstream].map((s) => ({ author: s.id, threads: [`agent:${s.id}`, ...s.crews.map((c) => `crew:${c}`), 'org'] }));
        expect(got.messages).toEqual(await store.candidates({ now: 100, runId: 'r1', plansBy, context: { threads: plansBy[0]!.threads, author: 'W', perThread: 2 } }));
        expect(got.messages.map((m) => m.at)).toContain(20);
        const unheld = await store.decisionFacts({ agent: 'M', delegatedBy: [], now: 100 });
        expect(unheld.hold).toBeUndefined();
        expect(unheld.messages.map((m) => m.at)).toEqual([15]);
        // The run, read in the same snapshot: what getRun says, null when none is recorded.
        expect(got.run).toBeNull();
        const run = await store.startRun({ id: 'r1', seat: 'W', startedBy: 'host', startedAt: 50, expiresAt: 5000 });
        const withRun = await store.decisionFacts(q);
        expect(withRun.run).toEqual(run);
        expect(withRun.run).toEqual(await store.getRun('r1'));
        expect((await store.decisionFacts({ agent: 'W', delegatedBy: [], now: 100 })).run).toBeUndefined();
      });

      it('agrees with a brute-force reading on random histories, also after the org changes', async () => {
        if (!store.decisionFacts) return;
        const seats = ['W', 'X', 'M', 'U'];
        const threads = ['agent:W', 'agent:X', 'agent:M', 'agent:U', 'crew:desk', 'crew:root', 'crew:ops', 'org'];
        const message = randomMessage(threads, seats);
        const query = fc.record({
          agent: fc.constantFrom(...seats),
          delegatedBy: fc.subarray(seats, { maxLength: 2 }),
          now: fc.integer({ min: -1, max: 22 }),
          runId: fc.option(fc.constantFrom('r1', 'r2', 'r3'), { nil: undefined, freq: 3 }),
          context: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
        });
        // Where W and X sit, before and after a move (U is never placed: unknown to the org).
        const chains: Record<string, string[]> = { desk: ['desk', 'root'], root: ['root'], ops: ['ops'] };
        const placement = fc.record({ W: fc.constantFrom('desk', 'ops'), X: fc.constantFrom('desk', 'ops', 'root'), M: fc.constantFrom('root', 'ops') });
        let run = 0;
        const property = fc.asyncProperty(
          fc.array(message, { minLength: 5, maxLength: 40, size: 'medium' }),
          fc.array(message, { maxLength: 20 }),
          fc.array(query, { minLength: 2, maxLength: 6, size: 'medium' }),
          placement,
          placement,
          async (ms, later, qs, before, after) => {
            const s = run++ === 0 ? store : await makeStore();
            try {
              await s.putCrew({ id: 'root', parent: null });
              await s.putCrew({ id: 'desk', parent: 'root' });
              await s.putCrew({ id: 'ops', parent: null });
              const stored: StoredMessage[] = [];
              const postAll = async (batch: ReadonlyArray<(typeof ms)[number]>): Promise<void> => {
                for (const { runId, ...rest } of batch) {
                  stored.push(await s.postMessage({ ...rest, body: 'b', ...(runId !== undefined ? { runId } : {}) }));
                }
              };
              await postAll(ms);
              // Decide, post more (new threads, newer plans), decide again, then move agents and decide.
              for (const [org, batch] of [[before, []], [before, later], [after, []]] as const) {
                await postAll(batch);
                for (const [id, crew] of Object.entries(org)) if (batch.length === 0) await s.putAgent({ id, crew });
                for (const q of qs) {
                  const clean: DecisionFactsQuery = { agent: q.agent, delegatedBy: q.delegatedBy, now: q.now };
                  if (q.runId !== undefined) clean.runId = q.runId;
                  if (q.context !== undefined) clean.context = q.context;
                  const got = await s.decisionFacts!(clean);
                  const lineages = [q.agent, ...q.delegatedBy].map((id) => {
                    const crew = (org as Record<string, string>)[id];
                    return crew === undefined ? { id, known: false, crews: [] } : { id, known: true, crews: chains[crew] as string[] };
                  });
                  expect([got.agent, ...got.upstream]).toEqual(lineages);
                  const plansBy = lineages.map((l) => ({ author: l.id, threads: [`agent:${l.id}`, ...l.crews.map((c) => `crew:${c}`), 'org'] }));
                  const cq: CandidateQuery = { now: q.now, plansBy };
                  if (q.runId !== undefined) cq.runId = q.runId;
                  if (q.context) cq.context = { threads: plansBy[0]!.threads, author: q.agent, perThread: q.context };
                  expect(got.messages).toEqual(referenceCandidates(stored, cq));
                  // What a caller does with the answer never reaches the record.
                  got.agent.crews.push('tampered');
                  expect((await s.lineage(q.agent)).crews).not.toContain('tampered');
                }
              }
            } finally {
              if (s !== store) await s.close();
            }
          },
        );
        await fc.assert(property, { numRuns: 40 });
      }, PROPERTY_TIMEOUT_MS);
    });

    describe('getMessage', () => {
      it('reads one message by id, with its body; an unknown or malformed id is none', async () => {
        const plan = await post({ at: 100, body: 'merge #12 after <b>review</b>', runId: 'r1' });
        const note = await post({ at: 200, body: 'a note', kind: 'note', authorKind: 'human', author: 'boss', thread: 'org' });
        expect(await store.getMessage(plan.id)).toEqual(plan);
        expect(await store.getMessage(note.id)).toEqual(note);
        const unknown = String(Number(note.id) + 1000);
        for (const id of [unknown, '0', `0${plan.id}`, '-1', '1e3', ' 1', 'x', '', '99999999999999999999']) {
          expect(await store.getMessage(id), id).toBeUndefined();
        }
      });
    });

    describe('listThread', () => {
      it('lists a thread newest first, with bodies, up to the limit', async () => {
        await post({ at: 100, body: 'one' });
        await post({ at: 300, body: 'three', kind: 'note', authorKind: 'human', author: 'boss' });
        await post({ at: 200, body: 'two', runId: 'r1' });
        await post({ at: 400, body: 'other thread', thread: 'org' });
        const all = await store.listThread('agent:W', 10);
        expect(all.map((m) => m.body)).toEqual(['three', 'two', 'one']);
        expect(all[0]).toMatchObject({ author: 'boss', authorKind: 'human', kind: 'note', at: 300 });
        expect(all[1]?.runId).toBe('r1');
        expect((await store.listThread('agent:W', 2)).map((m) => m.body)).toEqual(['three', 'two']);
        expect(await store.listThread('agent:W', 0)).toEqual([]);
        expect(await store.listThread('crew:empty', 5)).toEqual([]);
      });

      it('refuses a bad thread or limit with invalid_input', async () => {
        await expectCode(store.listThread('nope', 5), ErrorCode.InvalidInput, /thread/);
        await expectCode(store.listThread('org', -1), ErrorCode.InvalidInput, /limit/);
        await expectCode(store.listThread('org', 1.5), ErrorCode.InvalidInput, /limit/);
      });
    });

    describe('holds', () => {
      const plan = (body: string, at: number): NewMessage => ({ thread: 'agent:W', author: 'W', authorKind: 'agent', kind: 'plan', body, at });
      const pushback = (body: string, at: number): NewMessage => ({ thread: 'agent:W', author: 'rev', authorKind: 'human', kind: 'pushback', body, at });

      it('places a hold, finds it as the agent\'s active hold, and no other agent\'s', async () => {
        const hold = await store.placeHold({ agent: 'W', kind: 'on_demand', task: 'Refactor the auth middleware', placedBy: 'ops', placedAt: 100 });
        expect(hold).toEqual({
          id: expect.any(String), agent: 'W', kind: 'on_demand', task: 'Refactor the auth middleware', placedBy: 'ops', placedAt: 100,
          state: 'active', releasedBy: null, releasedAt: null, clearedBy: null, clearedAt: null, plans: 0, pushBacks: 0, lastPlanId: null,
        });
        expect(await store.activeHold('W')).toEqual(hold);
        expect(await store.activeHold('X')).toBeUndefined();
        const untimed = await store.placeHold({ agent: 'X', kind: 'reviewer', placedBy: 'rev' });
        expect(untimed.task).toBeNull();
        expect(Math.abs(untimed.placedAt - Date.now())).toBeLessThan(60_000);
      });

      it('refuses a second active hold with already_held, and allows one once the first has ended', async () => {
        const first = await store.placeHold({ agent: 'W', kind: 'on_demand', placedBy: 'ops', placedAt: 1 });
        await expectCode(store.placeHold({ agent: 'W', kind: 'reviewer', placedBy: 'rev', placedAt: 2 }), ErrorCode.AlreadyHeld, /unblock/);
        expect(await store.activeHold('W')).toEqual(first);
        await store.endHold('W', { state: 'cleared', by: 'ops', at: 3 });
        const second = await store.placeHold({ agent: 'W', kind: 'reviewer', placedBy: 'rev', placedAt: 4 });
        expect(second.id).not.toBe(first.id);
        expect(Number(second.id)).toBeGreaterThan(Number(first.id));
        expect(await store.activeHold('W')).toEqual(second);
      });

      it('links plans and push-backs to the hold, counting them; the messages are ordinary messages', async () => {
        const hold = await store.placeHold({ agent: 'W', kind: 'reviewer', placedBy: 'rev', placedAt: 100 });
        const p1 = await store.postHoldMessage('W', 'plan', plan('first plan', 110));
        expect(p1.message).toMatchObject({ thread: 'agent:W', author: 'W', kind: 'plan', body: 'first plan', at: 110 });
        expect(p1.hold).toMatchObject({ id: hold.id, plans: 1, pushBacks: 0, lastPlanId: p1.message.id });
        const pb = await store.postHoldMessage('W', 'pushback', pushback('too broad', 120));
        expect(pb.hold).toMatchObject({ plans: 1, pushBacks: 1, lastPlanId: p1.message.id });
        const p2 = await store.postHoldMessage('W', 'plan', plan('second plan', 130));
        expect(p2.hold).toMatchObject({ plans: 2, pushBacks: 1, lastPlanId: p2.message.id });
        expect(await store.activeHold('W')).toEqual(p2.hold);

        const linked = await store.holdMessages(hold.id);
        expect(linked.map((l) => [l.role, l.message.body])).toEqual([['plan', 'first plan'], ['pushback', 'too broad'], ['plan', 'second plan']]);
        expect(linked[0]?.message).toEqual(p1.message);
        // A limit keeps the newest: the latest plan is never cut off.
        expect((await store.holdMessages(hold.id, 2)).map((l) => l.message.id)).toEqual([pb.message.id, p2.message.id]);
        expect((await store.holdMessages(hold.id, 1)).map((l) => l.message.id)).toEqual([p2.message.id]);
        expect(await store.holdMessages(hold.id, 0)).toEqual([]);
        expect(await store.holdMessages('999999')).toEqual([]);
        expect(await store.holdMessages('not-an-id')).toEqual([]);

        expect((await store.listThread('agent:W', 10)).map((m) => m.body)).toEqual(['second plan', 'too broad', 'first plan']);
        const got = await store.candidates({ now: 1000, plansBy: [{ author: 'W', threads: ['agent:W'] }] });
        expect(got.map((f) => f.id)).toEqual([p2.message.id]);
      });

      it('refuses a hold message for an agent that is not held, posting nothing', async () => {
        await expectCode(store.postHoldMessage('W', 'plan', plan('p', 1)), ErrorCode.NotHeld, /W is not held/);
        expect(await store.listThread('agent:W', 5)).toEqual([]);
        await store.placeHold({ agent: 'W', kind: 'on_demand', placedBy: 'ops', placedAt: 1 });
        await expectCode(store.postHoldMessage('W', 'plan', { ...plan('p', 2), kind: 'NOT A KIND' }), ErrorCode.InvalidInput);
        await expectCode(store.postHoldMessage('W', 'approval' as 'plan', plan('p', 2)), ErrorCode.InvalidInput, /role/);
        expect((await store.activeHold('W'))?.plans).toBe(0);
        expect(await store.listThread('agent:W', 5)).toEqual([]);
      });

      it('acts on the hold the caller saw only, in the same step: another kind, hold or newer plan changes nothing', async () => {
        const hold = await store.placeHold({ agent: 'W', kind: 'on_demand', placedBy: 'ops', placedAt: 1 });
        const pushback = (body: string, at: number) => ({ thread: 'agent:W', author: 'rev', authorKind: 'human' as const, kind: 'pushback', body, at });
        await expectCode(store.endHold('W', { state: 'released', by: 'rev', at: 5, only: { kind: 'reviewer' } }), ErrorCode.NotHeld, /W has no active reviewer hold/);
        await expectCode(store.postHoldMessage('W', 'pushback', pushback('no', 6), { kind: 'reviewer' }), ErrorCode.NotHeld, /reviewer hold/);
        // Another hold than the one seen (it was replaced), or a plan newer than the one read: conflict.
        await expectCode(store.endHold('W', { state: 'cleared', by: 'ops', only: { id: String(Number(hold.id) + 1000) } }), ErrorCode.Conflict, /replaced/);
        const plan1 = await store.postHoldMessage('W', 'plan', plan('a plan', 7));
        await expectCode(store.endHold('W', { state: 'released', by: 'rev', only: { id: hold.id, lastPlanId: null } }), ErrorCode.Conflict, /sent a plan since/);
        await expectCode(store.postHoldMessage('W', 'pushback', pushback('stale', 8), { lastPlanId: null }), ErrorCode.Conflict, /sent a plan since/);
        expect(await store.activeHold('W')).toMatchObject({ id: hold.id, kind: 'on_demand', state: 'active', plans: 1, pushBacks: 0 });
        expect((await store.listThread('agent:W', 5)).map((m) => m.body)).toEqual(['a plan']);
        await expectCode(store.endHold('W', { state: 'released', by: 'rev', only: { kind: 'someone' as 'reviewer' } }), ErrorCode.InvalidInput, /kind/);
        await expectCode(store.endHold('W', { state: 'released', by: 'rev', only: { id: 'x' } }), ErrorCode.InvalidInput, /id/);
        // As seen: acted on.
        expect((await store.postHoldMessage('W', 'pushback', pushback('why', 9), { kind: 'on_demand', id: hold.id, lastPlanId: plan1.message.id })).hold.pushBacks).toBe(1);
        expect(await store.endHold('W', { state: 'cleared', by: 'ops', at: 10, only: { kind: 'on_demand', id: hold.id, lastPlanId: plan1.message.id } })).toMatchObject({ state: 'cleared' });
      });

      it('ends a hold as released or cleared, recording who and when; the hold stays as history', async () => {
        await store.placeHold({ agent: 'W', kind: 'reviewer', placedBy: 'rev', placedAt: 1 });
        const released = await store.endHold('W', { state: 'released', by: 'rev', at: 50 });
        expect(released).toMatchObject({ state: 'released', releasedBy: 'rev', releasedAt: 50, clearedBy: null, clearedAt: null });
        expect(await store.activeHold('W')).toBeUndefined();
        await expectCode(store.endHold('W', { state: 'cleared', by: 'ops', at: 60 }), ErrorCode.NotHeld);

        await store.placeHold({ agent: 'W', kind: 'on_demand', placedBy: 'ops', placedAt: 70 });
        const cleared = await store.endHold('W', { state: 'cleared', by: 'ops' });
        expect(cleared).toMatchObject({ state: 'cleared', clearedBy: 'ops', releasedBy: null, releasedAt: null });
        expect(Math.abs((cleared.clearedAt ?? 0) - Date.now())).toBeLessThan(60_000);

        const all = await store.listHolds({ agent: 'W', all: true });
        expect(all.map((h) => h.state)).toEqual(['cleared', 'released']);
      });

      it('lists active holds, or all with history, newest first, by agent, up to the limit', async () => {
        await store.placeHold({ agent: 'A', kind: 'on_demand', placedBy: 'ops', placedAt: 1 });
        await store.placeHold({ agent: 'B', kind: 'reviewer', placedBy: 'rev', placedAt: 2 });
        await store.endHold('A', { state: 'cleared', by: 'ops', at: 3 });
        await store.placeHold({ agent: 'A', kind: 'reviewer', placedBy: 'rev', placedAt: 4 });
        await store.placeHold({ agent: 'C', kind: 'on_demand', placedBy: 'ops', placedAt: 5 });
        await store.endHold('C', { state: 'released', by: 'rev', at: 6 });

        const view = (hs: Array<{ agent: string; state: string }>) => hs.map((h) => `${h.agent}:${h.state}`);
        expect(view(await store.listHolds())).toEqual(['A:active', 'B:active']);
        expect(view(await store.listHolds({ all: true }))).toEqual(['C:released', 'A:active', 'B:active', 'A:cleared']);
        expect(view(await store.listHolds({ all: true, limit: 2 }))).toEqual(['C:released', 'A:active']);
        expect(view(await store.listHolds({ agent: 'A' }))).toEqual(['A:active']);
        expect(view(await store.listHolds({ agent: 'A', all: true }))).toEqual(['A:active', 'A:cleared']);
        expect(await store.listHolds({ agent: 'C' })).toEqual([]);
        expect(await store.listHolds({ limit: 0 })).toEqual([]);
      });

      it('pages back through holds with before: each page starts below the last id of the one before', async () => {
        for (const [i, agent] of ['A', 'B', 'C', 'D', 'E'].entries()) await store.placeHold({ agent, kind: 'on_demand', placedBy: 'ops', placedAt: i + 1 });
        await store.endHold('C', { state: 'cleared', by: 'ops', at: 9 });
        const agents = (hs: Array<{ agent: string }>) => hs.map((h) => h.agent);
        const first = await store.listHolds({ limit: 2 });
        expect(agents(first)).toEqual(['E', 'D']);
        const second = await store.listHolds({ limit: 2, before: first[1]!.id });
        expect(agents(second)).toEqual(['B', 'A']);
        expect(await store.listHolds({ limit: 2, before: second[1]!.id })).toEqual([]);
        expect(agents(await store.listHolds({ all: true, limit: 2, before: first[1]!.id }))).toEqual(['C', 'B']);
        expect(agents(await store.listHolds({ agent: 'E', before: first[1]!.id }))).toEqual([]);
        expect(agents(await store.listHolds({ agent: 'B', all: true, before: first[1]!.id }))).toEqual(['B']);
        for (const bad of ['0', '-1', '1.5', 'x', '99999999999999999', '']) {
          await expectCode(store.listHolds({ before: bad }), ErrorCode.InvalidInput, /before/);
        }
      });

      it('refuses malformed holds and queries with invalid_input', async () => {
        const ok = { agent: 'W', kind: 'on_demand' as const, placedBy: 'ops', placedAt: 1 };
        await expectCode(store.placeHold({ ...ok, agent: 'not an id' }), ErrorCode.InvalidInput, /agent/);
        await expectCode(store.placeHold({ ...ok, kind: 'whim' as 'reviewer' }), ErrorCode.InvalidInput, /kind/);
        await expectCode(store.placeHold({ ...ok, placedBy: '' }), ErrorCode.InvalidInput, /placedBy/);
        await expectCode(store.placeHold({ ...ok, task: '   ' }), ErrorCode.InvalidInput, /task/);
        await expectCode(store.placeHold({ ...ok, task: 'a\u0000b' }), ErrorCode.InvalidInput, /task/);
        await expectCode(store.placeHold({ ...ok, placedBy: 'a\u0000b' }), ErrorCode.InvalidInput, /placedBy/);
        await expectCode(store.placeHold({ ...ok, task: 'x'.repeat(MAX_TASK_LENGTH + 1) }), ErrorCode.InvalidInput, /task/);
        await expectCode(store.placeHold({ ...ok, placedAt: 1.5 }), ErrorCode.InvalidInput, /placedAt/);
        await expectCode(store.endHold('W', { state: 'gone' as 'cleared', by: 'ops' }), ErrorCode.InvalidInput, /state/);
        await expectCode(store.listHolds({ limit: MAX_HOLD_LIMIT + 1 }), ErrorCode.InvalidInput, /limit/);
        await expectCode(store.listHolds({ agent: '__proto__' }), ErrorCode.InvalidInput);
        await expectCode(store.holdMessages('1', -1), ErrorCode.InvalidInput, /limit/);
        expect(await store.listHolds({ all: true })).toEqual([]);
      });
    });

    runsContract(() => store);
    quotasContract(() => store);
    approvalsContract(() => store);

    describe('close', () => {
      it('is idempotent, and the store refuses work afterwards with store_failure', async () => {
        await store.close();
        await store.close();
        await expectCode(
          store.postMessage({ thread: 'org', author: 'W', authorKind: 'agent', kind: 'plan', body: '' }),
          ErrorCode.StoreFailure,
        );
        await expectCode(store.candidates({ now: 1, plansBy: [] }), ErrorCode.StoreFailure);
        await expectCode(store.lineage('W'), ErrorCode.StoreFailure);
        await expectCode(store.placeHold({ agent: 'W', kind: 'on_demand', placedBy: 'ops' }), ErrorCode.StoreFailure);
        await expectCode(store.activeHold('W'), ErrorCode.StoreFailure);
        await expectCode(store.getRun('R1'), ErrorCode.StoreFailure);
        await expectCode(store.startRun({ seat: 'W', startedBy: 'host', expiresAt: Date.now() + 1000 }), ErrorCode.StoreFailure);
        await expectCode(store.delegationsTo('W', 1), ErrorCode.StoreFailure);
      });
    });
  });
}
