/**
 * The benchmark world: an org of 100 crews nested 4 deep and 10,000 agents,
 * a deterministic stream of messages, the rules, and the calls to decide.
 * Everything comes from one seeded PRNG, so two runs build the same world.
 *
 * Messages are seeded in two phases so that fact-gathering can be measured
 * before and after adding messages that have nothing to do with a fixed
 * sample of agents:
 *   phase A: 100k messages drawn from the whole org;
 *   phase B: 900k more, never by a sample agent and never in a sample
 *            agent's own thread or in the thread of a crew on a sample
 *            agent's lineage (some land in `org`, by other authors).
 */
import Database from 'better-sqlite3';
import type { Call, RulesData } from '../src/core/types.js';
import type { Store } from '../src/facts/port.js';
import { prng } from '../test/support/rng.js';

/** Decision time for every call; messages lie in the two days before it. */
export const NOW = Date.parse('2026-06-01T12:00:00Z');
export const MIN = 60_000;
const SPAN_MS = 2 * 24 * 60 * MIN;

export const AGENTS = 10_000;
export const CREWS = 100;
export const RUN_IDS = 5_000;

export { prng };

export interface CrewRow { id: string; parent: string | null; depth: number }
export interface AgentRow { id: string; crew: string }

export interface Org {
  crews: CrewRow[];
  agents: AgentRow[];
  crewIndex: Map<string, CrewRow>;
  /** crew → agents whose crew is this crew or one below it (they speak in its thread). */
  speakers: Map<string, string[]>;
  /** crew → agents directly in it. */
  members: Map<string, string[]>;
  /** crew → its chain, nearest first. */
  chain: Map<string, string[]>;
}

/**
 * 4 roots × 3 × 3 = 52 crews on levels 1–3, plus 48 on level 4 (spread
 * round-robin over the level-3 crews): 100 crews, 4 deep. Agents are spread
 * evenly, 100 per crew.
 */
export function buildOrg(): Org {
  const crews: CrewRow[] = [];
  const roots = [0, 1, 2, 3].map((i) => ({ id: `r${i}`, parent: null, depth: 1 }));
  crews.push(...roots);
  const l2 = roots.flatMap((p) => [1, 2, 3].map((i) => ({ id: `${p.id}.${i}`, parent: p.id, depth: 2 })));
  crews.push(...l2);
  const l3 = l2.flatMap((p) => [1, 2, 3].map((i) => ({ id: `${p.id}.${i}`, parent: p.id, depth: 3 })));
  crews.push(...l3);
  const l4count = CREWS - crews.length;
  for (let k = 0; k < l4count; k++) {
    const p = l3[k % l3.length] as CrewRow;
    crews.push({ id: `${p.id}.${1 + Math.floor(k / l3.length)}`, parent: p.id, depth: 4 });
  }
  const crewIndex = new Map(crews.map((c) => [c.id, c]));
  const chain = new Map<string, string[]>();
  for (const c of crews) {
    const out: string[] = [];
    for (let cur: CrewRow | undefined = c; cur; cur = cur.parent ? crewIndex.get(cur.parent) : undefined) out.push(cur.id);
    chain.set(c.id, out);
  }
  const agents: AgentRow[] = [];
  const members = new Map<string, string[]>(crews.map((c) => [c.id, []]));
  const speakers = new Map<string, string[]>(crews.map((c) => [c.id, []]));
  for (let i = 0; i < AGENTS; i++) {
    const crew = (crews[i % crews.length] as CrewRow).id;
    const id = `0xA${i.toString(16).toUpperCase().padStart(5, '0')}`;
    agents.push({ id, crew });
    members.get(crew)!.push(id);
    for (const c of chain.get(crew)!) speakers.get(c)!.push(id);
  }
  return { crews, agents, crewIndex, speakers, members, chain };
}

/**
 * The fixed sample for the fact-gathering measurement: every agent of two
 * level-4 crews under different roots (200 agents).
 */
export function sampleOf(org: Org): { agents: string[]; crews: string[] } {
  const leaves = org.crews.filter((c) => c.depth === 4);
  const a = leaves.find((c) => c.id.startsWith('r0.'))!;
  const b = leaves.find((c) => c.id.startsWith('r2.'))!;
  const agents = [...org.members.get(a.id)!, ...org.members.get(b.id)!];
  const crews = [...new Set([...org.chain.get(a.id)!, ...org.chain.get(b.id)!])];
  return { agents, crews };
}

/**
 * What messages unrelated to `seats` must avoid: those seats as authors,
 * their own threads and the threads of every crew on their lineages. (`org`
 * stays allowed: it is shared, so unrelated authors may post there.)
 */
export function unrelatedTo(org: Org, seats: Iterable<string>): { threads: Set<string>; authors: Set<string> } {
  const crewOf = new Map(org.agents.map((a) => [a.id, a.crew]));
  const threads = new Set<string>();
  const authors = new Set<string>();
  for (const seat of seats) {
    authors.add(seat);
    threads.add(`agent:${seat}`);
    for (const c of org.chain.get(crewOf.get(seat)!)!) threads.add(`crew:${c}`);
  }
  return { threads, authors };
}

/** One message row, as the SQLite `messages` table holds it. */
export interface Msg {
  thread: string;
  author: string;
  authorKind: 'agent' | 'human';
  kind: string;
  body: string;
  at: number;
  runId: string | null;
}

const HUMANS = ['alice@example.com', 'bob@example.com', 'carol@example.com', 'dan@example.com', 'erin@example.com'];

export interface MessageMix {
  agentThreads: number;
  crewThreads: number;
  orgThreads: number;
  plans: number;
  humans: number;
  withRunId: number;
}

/**
 * A generator of messages. Threads: 70% agent threads, 25% crew threads,
 * 5% `org`. Authors: in an agent thread the owner 80%, another agent 12%, a
 * human 8%; in a crew thread an agent who speaks there 90%, a human 10%; in
 * `org` any agent 92%, a human 8%. Kinds: agents post `plan` 15%, else
 * `note`; humans `plan` 2%. 20% carry a run id (one of 5,000). Times are
 * uniform over the last two days.
 *
 * `exclude` (phase B) redraws any message in an excluded thread or by an
 * excluded author.
 */
export function messageStream(org: Org, seed: number, exclude?: { threads: Set<string>; authors: Set<string> }) {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const mix: MessageMix = { agentThreads: 0, crewThreads: 0, orgThreads: 0, plans: 0, humans: 0, withRunId: 0 };
  /** agent → a run id it tagged a plan with, in its own thread (for same-run calls). */
  const runPlanOf = new Map<string, string>();

  function draw(): Msg {
    const r = rnd();
    let thread: string;
    let author: string;
    let authorKind: 'agent' | 'human' = 'agent';
    if (r < 0.7) {
      const owner = pick(org.agents).id;
      thread = `agent:${owner}`;
      const a = rnd();
      if (a < 0.8) author = owner;
      else if (a < 0.92) author = pick(org.agents).id;
      else { author = pick(HUMANS); authorKind = 'human'; }
    } else if (r < 0.95) {
      const crew = pick(org.crews).id;
      thread = `crew:${crew}`;
      if (rnd() < 0.9) author = pick(org.speakers.get(crew)!);
      else { author = pick(HUMANS); authorKind = 'human'; }
    } else {
      thread = 'org';
      if (rnd() < 0.92) author = pick(org.agents).id;
      else { author = pick(HUMANS); authorKind = 'human'; }
    }
    const kind = rnd() < (authorKind === 'agent' ? 0.15 : 0.02) ? 'plan' : 'note';
    const at = NOW - Math.floor(rnd() * SPAN_MS);
    const runId = rnd() < 0.2 ? `run-${Math.floor(rnd() * RUN_IDS)}` : null;
    const body = kind === 'plan' ? `plan: merge PR #${Math.floor(rnd() * 10_000)} once CI is green` : `note ${Math.floor(rnd() * 1e6)}: looking at the logs`;
    return { thread, author, authorKind, kind, body, at, runId };
  }

  function next(): Msg {
    let m = draw();
    if (exclude) {
      while (exclude.threads.has(m.thread) || exclude.authors.has(m.author)) m = draw();
    }
    if (m.thread.startsWith('agent:')) mix.agentThreads++;
    else if (m.thread === 'org') mix.orgThreads++;
    else mix.crewThreads++;
    if (m.kind === 'plan') mix.plans++;
    if (m.authorKind === 'human') mix.humans++;
    if (m.runId !== null) {
      mix.withRunId++;
      if (m.kind === 'plan' && m.authorKind === 'agent' && m.thread === `agent:${m.author}`) runPlanOf.set(m.author, m.runId);
    }
    return m;
  }

  return { next, mix, runPlanOf };
}

/**
 * The rules: workspace side_effects (60 min), a few crew rules with shorter
 * windows (one spends_only, one accepting upstream plans), a few agent
 * carve-outs, and a handful of tool classes and patterns.
 */
export function benchRules(org: Org): RulesData {
  const src = (line: number): string => `rules/bench.yaml:${line}:3`;
  const agents: RulesData['planRequired']['agents'] = {};
  // 20 carve-outs (mode off) and 10 agents with a tight window.
  for (let i = 0; i < 20; i++) agents[(org.agents[i * 487] as AgentRow).id] = { mode: 'off', source: src(100 + i) };
  for (let i = 0; i < 10; i++) agents[(org.agents[i * 911 + 5] as AgentRow).id] = { mode: 'side_effects', windowMin: 5, source: src(130 + i) };
  return {
    planRequired: {
      workspace: { mode: 'side_effects', windowMin: 60, acceptUpstream: false, source: src(2) },
      crews: {
        r1: { mode: 'side_effects', windowMin: 15, source: src(10) },
        'r2.1': { mode: 'side_effects', windowMin: 20, acceptUpstream: true, source: src(14) },
        'r0.2.3': { mode: 'side_effects', windowMin: 10, source: src(18) },
        r3: { mode: 'spends_only', source: src(22) },
        'r3.1.1': { mode: 'side_effects', windowMin: 30, acceptUpstream: true, source: src(26) },
      },
      agents,
    },
    tools: {
      default: 'effect',
      exact: {
        'github.merge_pull_request': 'effect',
        'payments.propose_spend': 'spend',
        'fs.read_file': 'read',
        'plangate.say': 'say',
      },
      patterns: [
        { pattern: 'github.get_*', class: 'read', source: src(50) },
        { pattern: 'github.*', class: 'effect', source: src(51) },
        { pattern: 'payments.*', class: 'spend', source: src(52) },
        { pattern: 'search.*', class: 'read', source: src(53) },
        { pattern: 'slack.post_*', class: 'effect', source: src(54) },
        { pattern: 'fs.write_*', class: 'effect', source: src(55) },
      ],
    },
  };
}

/** Tools that classify as `effect` or `spend` under {@link benchRules}. */
export const GATED_TOOLS = [
  'github.merge_pull_request',
  'github.create_issue',
  'payments.propose_spend',
  'payments.refund',
  'slack.post_message',
  'fs.write_file',
  'deploy.release',
];

/**
 * `n` calls for agents drawn from `agents`, gated tools only. 70% carry no
 * run id, 15% the run id of one of the agent's own plans (when it has one),
 * 15% a random run id; 10% are delegated by an agent of the parent crew.
 */
export function makeCalls(org: Org, agents: readonly string[], n: number, seed: number, runPlanOf: Map<string, string>): Call[] {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const crewOf = new Map(org.agents.map((a) => [a.id, a.crew]));
  const calls: Call[] = [];
  for (let i = 0; i < n; i++) {
    const agent = pick(agents);
    const call: Call = { agent, tool: pick(GATED_TOOLS) };
    const r = rnd();
    if (r < 0.15) {
      const own = runPlanOf.get(agent);
      call.runId = own ?? `run-${Math.floor(rnd() * RUN_IDS)}`;
    } else if (r < 0.3) {
      call.runId = `run-${Math.floor(rnd() * RUN_IDS)}`;
    }
    if (rnd() < 0.1) {
      const parent = org.crewIndex.get(crewOf.get(agent)!)!.parent;
      if (parent) call.delegatedBy = [pick(org.members.get(parent)!)];
    }
    calls.push(call);
  }
  return calls;
}

/** Inserts crews and agents with a raw connection (parents first). */
export function insertOrg(db: Database.Database, org: Org): void {
  const crew = db.prepare('INSERT INTO crews (id, parent) VALUES (?, ?)');
  const agent = db.prepare('INSERT INTO agents (id, crew) VALUES (?, ?)');
  db.transaction(() => {
    for (const c of [...org.crews].sort((a, b) => a.depth - b.depth)) crew.run(c.id, c.parent);
    for (const a of org.agents) agent.run(a.id, a.crew);
  })();
}

/** Bulk-inserts `n` messages from `next` into the store's `messages` table: one transaction, one prepared statement. */
export function insertMessages(db: Database.Database, n: number, next: () => Msg): void {
  const ins = db.prepare(
    'INSERT INTO messages (thread, author, author_kind, kind, body, at, run_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const m = next();
      ins.run(m.thread, m.author, m.authorKind, m.kind, m.body, m.at, m.runId);
    }
  })();
}

/** A raw connection tuned for a bulk load of a store file that is not open elsewhere. */
export function bulkConnection(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  return db;
}

/**
 * Copies the org and every message of an SQLite store file into another
 * store through its public API (putCrew, putAgent, postMessage), so both
 * hold the same world. Messages go in time order so that the memory store
 * appends instead of splicing into the middle of its sorted arrays.
 * Returns the number of messages copied.
 */
export async function copyWorld(fromPath: string, to: Store): Promise<number> {
  const db = new Database(fromPath, { readonly: true });
  try {
    const crews = db.prepare('SELECT id, parent FROM crews').all() as Array<{ id: string; parent: string | null }>;
    const depth = (id: string | null): number => (id === null ? 0 : 1 + depth(crews.find((c) => c.id === id)?.parent ?? null));
    for (const c of [...crews].sort((x, y) => depth(x.id) - depth(y.id))) await to.putCrew(c);
    for (const a of db.prepare('SELECT id, crew FROM agents').iterate() as IterableIterator<AgentRow>) await to.putAgent(a);
    let n = 0;
    const rows = db.prepare('SELECT thread, author, author_kind, kind, body, at, run_id FROM messages ORDER BY at, id').iterate();
    for (const r of rows as IterableIterator<{ thread: string; author: string; author_kind: 'agent' | 'human'; kind: string; body: string; at: number; run_id: string | null }>) {
      await to.postMessage({
        thread: r.thread, author: r.author, authorKind: r.author_kind, kind: r.kind, body: r.body, at: r.at,
        ...(r.run_id !== null ? { runId: r.run_id } : {}),
      });
      n++;
    }
    return n;
  } finally {
    db.close();
  }
}
