/**
 * A suite's facts in a fresh in-memory store: the org, the messages, the
 * holds, the runs and the delegations. Times are the suite's `now` minus an
 * age, or a given time.
 */
import { toError } from '../../core/errors.js';
import type { Problem } from '../../core/errors.js';
import { createMemoryStore } from '../../facts/memory/store.js';
import type { Store } from '../../facts/port.js';
import type { Suite } from './load.js';
import { recordRunsAndDelegations } from './recorded.js';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * Milliseconds of a duration such as `90s`, `10m`, `3h`, `2d` (the schema checks the form).
 *
 * @example
 * durationMs('10m') // 600000
 */
export function durationMs(text: string): number {
  const m = /^(\d+)([smhd])$/.exec(text);
  if (!m) throw new Error(`not a duration: ${text}`);
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

/** A seeded suite: its store, its time, and a note when runs and delegations were not recorded. */
export interface SeededSuite {
  store: Store;
  now: number;
  note?: string;
}

/**
 * Seeds a memory store with a suite's facts. Returns located problems (a
 * crew whose parent is missing, an age and a time both given, …) instead.
 *
 * @example
 * const seeded = await seedSuite(suite); // { store, now } or { problems }
 */
export async function seedSuite(suite: Suite): Promise<SeededSuite | { problems: Problem[] }> {
  const now = Date.parse(suite.now);
  const problems: Problem[] = [];
  const problem = (at: Array<string | number>, message: string): void => {
    problems.push({ file: suite.path, ...suite.locate(at), message });
  };
  const startOf = (where: Array<string | number>) => (item: { age?: string; at?: string }): number => {
    if (item.age !== undefined && item.at !== undefined) problem(where, 'give age or at, not both');
    return item.at !== undefined ? Date.parse(item.at) : now - (item.age !== undefined ? durationMs(item.age) : 0);
  };
  const store = createMemoryStore();
  const step = async (at: Array<string | number>, run: () => Promise<unknown>): Promise<void> => {
    try {
      await run();
    } catch (error) {
      problem(at, toError(error).message);
    }
  };

  // Parents first: a crew's parent must exist before it.
  const pending = Object.entries(suite.org.crews);
  while (pending.length > 0) {
    const i = pending.findIndex(([, parent]) => parent === null || !pending.some(([id]) => id === parent));
    if (i < 0) {
      for (const [id] of pending) problem(['org', 'crews', id], `crew "${id}" is part of a cycle of parents`);
      break;
    }
    const [[id, parent]] = pending.splice(i, 1) as [[string, string | null]];
    await step(['org', 'crews', id], () => store.putCrew({ id, parent }));
  }
  for (const [id, crew] of Object.entries(suite.org.agents)) {
    await step(['org', 'agents', id], () => store.putAgent({ id, crew }));
  }
  for (const [i, m] of suite.messages.entries()) {
    const at = startOf(['messages', i])(m);
    await step(['messages', i], () => store.postMessage({
      thread: m.thread,
      author: m.author,
      authorKind: m.authorKind ?? 'agent',
      kind: m.kind,
      body: m.body ?? '',
      at,
      ...(m.run !== undefined ? { runId: m.run } : {}),
    }));
  }
  for (const [i, h] of suite.holds.entries()) {
    const placedAt = startOf(['holds', i])(h);
    await step(['holds', i], async () => {
      await store.placeHold({ agent: h.agent, kind: h.kind ?? 'on_demand', placedBy: h.by ?? 'ops', placedAt, ...(h.task !== undefined ? { task: h.task } : {}) });
      const post = (role: 'plan' | 'pushback', author: string, authorKind: 'agent' | 'human', n: number) => store.postHoldMessage(h.agent, role, {
        thread: `agent:${h.agent}`, author, authorKind, kind: role === 'plan' ? 'plan' : 'note', body: `${role} ${n}`, at: placedAt,
      });
      for (let n = 1; n <= (h.plans ?? 0); n += 1) await post('plan', h.agent, 'agent', n);
      for (let n = 1; n <= (h.pushBacks ?? 0); n += 1) await post('pushback', h.by ?? 'ops', 'human', n);
    });
  }
  const note = await recordRunsAndDelegations(store, suite, now, startOf, durationMs, step);
  for (const [i, c] of suite.cases.entries()) {
    if (c.call.delegation !== undefined && !suite.delegations.some((d) => d.id === c.call.delegation)) {
      problem(['cases', i, 'call', 'delegation'], `no delegation "${c.call.delegation}" in this suite`);
    }
  }
  if (problems.length > 0) {
    await store.close();
    return { problems };
  }
  return { store, now, ...(note ? { note } : {}) };
}
