/**
 * Random scenarios for the plan-required property test: a small org, rules,
 * messages and one call. Everything is plain JSON so that fast-check prints
 * a failing scenario in full, and so that a counterexample can be pasted
 * into an example-based test as is.
 */
import fc from 'fast-check';
import type { AuthorKind, Mode, RulesData, SourcedPlanRule, ToolClass, ToolPattern } from '../../src/core/types.js';
import type { Store } from '../../src/facts/port.js';
import type { ModelCall, ModelDelegation, ModelMessage, ModelRun, World } from './reference-model.js';

/** Decision time used by every scenario (2026-01-01T00:00:00Z). */
export const NOW = 1_767_225_600_000;
export const MIN = 60_000;

/** Tool names from a small alphabet, so that patterns collide often. */
export const TOOL_NAMES = [
  'a.b',
  'axb',
  'a-b',
  'a:b',
  'a/b.c',
  '_a.b',
  'a.c',
  'a.bc',
  'ab',
  'a.b.c',
  'spend.x',
  'spend.xy',
  'r.y',
  'r.yy',
  'say.it',
  'z',
] as const;
/** Names no rule is built from. */
const OTHER_TOOLS = ['q.q', 'spend', 'a.b.c.d', 'r', 'ba'] as const;

const RUN_IDS = ['r1', 'r2'] as const;

export interface ScenarioMessage {
  thread: string;
  author: string;
  authorKind: AuthorKind;
  kind: string;
  /** `NOW - at`: negative for a message from the future. */
  ageMs: number;
  runId?: string;
}

/** A run the host started `startAgeMs` before NOW (negative: later), lasting `lastsMs`, ended `endedAgeMs` before NOW when set. */
export interface ScenarioRun {
  id: string;
  seat: string;
  startAgeMs: number;
  lastsMs: number;
  endedAgeMs?: number;
}

/** A delegation recorded `ageMs` before NOW, expiring `expiresInMs` after NOW when set (negative: already). */
export interface ScenarioDelegation {
  manager: string;
  worker: string;
  runId?: string;
  ageMs: number;
  expiresInMs?: number;
  revoked?: boolean;
}

export interface Scenario extends Org {
  rules: RulesData;
  /** Posted in this order (ids ascend). */
  messages: ScenarioMessage[];
  /** Runs and delegations on record (absent: none). */
  runs?: ScenarioRun[];
  delegations?: ScenarioDelegation[];
  call: ModelCall;
}

// ---------------------------------------------------------------------------
// Org

/**
 * Id sets. `plain` has ids that are prefixes of one another (`c1`/`c10`,
 * `w1`/`w10`); `tricky` has ids with `:`, `.`, `/`, `@` and `-`, ids that
 * look like thread names, and an agent named like a crew.
 */
export const ID_STYLES = {
  plain: {
    crews: ['c0', 'c1', 'c10', 'c11', 'c2', 'c20'],
    agents: ['w0', 'w1', 'w10', 'w2', 'w11', 'w3'],
    ghost: 'ghost',
    strangerCrew: 'c9',
  },
  tricky: {
    crews: ['ops/c0', 'c.1', 'x:c2', 'c@3', 'crew:c4', 'agent:c5'],
    agents: ['0xW:0', 'w.1', 'agent:w2', 'crew:c4', 'c.1', 'w-5'],
    ghost: 'gh:ost',
    strangerCrew: 'ops',
  },
} as const;

export interface Org {
  crews: Array<{ id: string; parent: string | null }>;
  agents: Array<{ id: string; crew: string }>;
  /** An agent id the org does not know. */
  ghost: string;
  /** A crew id the org does not know. */
  strangerCrew: string;
}

const orgArb: fc.Arbitrary<Org> = fc
  .record({
    style: fc.oneof({ arbitrary: fc.constant('plain' as const), weight: 3 }, { arbitrary: fc.constant('tricky' as const), weight: 1 }),
    parents: fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
    agentCrews: fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
  })
  .map(({ style, parents, agentCrews }) => {
    const ids = ID_STYLES[style];
    const crews: Org['crews'] = [];
    const depth: number[] = [];
    parents.forEach((p, i) => {
      // p % (i + 1) === i means "top level"; else the parent is an earlier crew.
      const choice = p % (i + 1);
      let parent: number | null = choice === i ? null : choice;
      if (parent !== null && (depth[parent] as number) >= 4) parent = null;
      depth[i] = parent === null ? 1 : (depth[parent] as number) + 1;
      crews.push({ id: ids.crews[i] as string, parent: parent === null ? null : (ids.crews[parent] as string) });
    });
    const agents = agentCrews.map((c, i) => ({ id: ids.agents[i] as string, crew: (crews[c % crews.length] as Org['crews'][number]).id }));
    return { crews, agents, ghost: ids.ghost, strangerCrew: ids.strangerCrew };
  });

// ---------------------------------------------------------------------------
// Rules

/** Weighted towards gating modes, so that most calls are decided on plans. */
const modeArb = fc.oneof(
  { arbitrary: fc.constant<Mode>('side_effects'), weight: 3 },
  { arbitrary: fc.constant<Mode>('spends_only'), weight: 2 },
  { arbitrary: fc.constant<Mode>('off'), weight: 1 },
);
/** Weighted towards the gateable classes. */
const classArb = fc.oneof(
  { arbitrary: fc.constant<ToolClass>('effect'), weight: 4 },
  { arbitrary: fc.constant<ToolClass>('spend'), weight: 3 },
  { arbitrary: fc.constantFrom<ToolClass>('read', 'say'), weight: 2 },
);

const windowArb = fc.oneof(fc.constantFrom(1, 2, 5, 30, 60, 120, 10_080), fc.integer({ min: 1, max: 120 }));

/**
 * A plan-required rule. With `loose`, `mode` may be absent too (outside the
 * `PlanRule` type, which requires it): the rule then only sets the window
 * and/or acceptUpstream, and the mode comes from a broader scope.
 */
function ruleArb(file: string, loose = false): fc.Arbitrary<SourcedPlanRule> {
  return fc
    .record(
      {
        mode: modeArb,
        windowMin: windowArb,
        acceptUpstream: fc.boolean(),
        // Mostly enforcing: shadow mode (false) in about one rule in six.
        enforce: fc.oneof({ arbitrary: fc.constant(true), weight: 2 }, { arbitrary: fc.constant(false), weight: 1 }),
        line: fc.integer({ min: 1, max: 99 }),
        col: fc.integer({ min: 1, max: 9 }),
      },
      { requiredKeys: loose ? ['line', 'col'] : ['mode', 'line', 'col'] },
    )
    .map(({ line, col, ...rule }) => ({ ...rule, source: `rules/${file}.yaml:${line}:${col}` }) as SourcedPlanRule);
}

/** A pattern derived from a tool name: some characters kept, some `?`, some `*`, some dropped. */
const mutatedPatternArb = fc.constantFrom(...TOOL_NAMES).chain((name) =>
  fc
    .record({
      ops: fc.array(fc.constantFrom('keep', 'keep', 'keep', 'q', 'star', 'drop'), {
        minLength: name.length,
        maxLength: name.length,
      }),
      prefix: fc.constantFrom('', '', '*', '?'),
      suffix: fc.constantFrom('', '', '*', '?'),
    })
    .map(({ ops, prefix, suffix }) => {
      let out = prefix;
      [...name].forEach((ch, i) => {
        const op = ops[i];
        out += op === 'keep' ? ch : op === 'q' ? '?' : op === 'star' ? '*' : '';
      });
      return out + suffix;
    })
    .filter((p) => p.length > 0),
);

const patternArb = fc.oneof(
  mutatedPatternArb,
  fc.constantFrom('*', '?', '**', 'a.*', '*.b', 'a.?', 'a?b', 'spend.*', '*.*', 'a*', '*y', 'r.?*', '??.?', '*.b*', 'a.b'),
);

/** Tool classes. With `loose`, `default` may be absent (outside the `RulesData` type): it then means `effect`. */
function toolsArb(loose = false): fc.Arbitrary<RulesData['tools']> {
  return fc.record(
    {
      default: classArb,
      exact: fc.dictionary(fc.constantFrom(...TOOL_NAMES, ...OTHER_TOOLS), classArb, { maxKeys: 3 }),
      patterns: fc.array(
        fc.record({ pattern: patternArb, class: classArb, line: fc.integer({ min: 1, max: 99 }) }).map(
          ({ line, ...p }): ToolPattern => ({ ...p, source: `rules/tools.yaml:${line}:5` }),
        ),
        { maxLength: 6 },
      ),
    },
    { requiredKeys: loose ? ['exact', 'patterns'] : ['default', 'exact', 'patterns'] },
  ) as fc.Arbitrary<RulesData['tools']>;
}

function planRequiredArb(org: Org, loose = false): fc.Arbitrary<RulesData['planRequired']> {
  const crewIds = [...org.crews.map((c) => c.id), org.strangerCrew];
  const agentIds = [...org.agents.map((a) => a.id), org.ghost];
  return fc.record(
    {
      workspace: fc.option(ruleArb('workspace', loose), { nil: undefined, freq: 4 }),
      crews: fc
        .array(fc.option(ruleArb('crews', loose), { nil: undefined, freq: 2 }), { minLength: crewIds.length, maxLength: crewIds.length })
        .map((rs) => Object.fromEntries(crewIds.flatMap((id, i) => (rs[i] ? [[id, rs[i]]] : [])))),
      agents: fc
        .array(fc.option(ruleArb('agents', loose), { nil: undefined, freq: 2 }), { minLength: agentIds.length, maxLength: agentIds.length })
        .map((rs) => Object.fromEntries(agentIds.flatMap((id, i) => (rs[i] ? [[id, rs[i]]] : [])))),
    },
    { requiredKeys: ['workspace', 'crews', 'agents'] },
  ).map(({ workspace, ...rest }) => (workspace ? { workspace, ...rest } : rest));
}

// ---------------------------------------------------------------------------
// Messages and the call

function threadsOf(org: Org, agentId: string): string[] {
  const out = [`agent:${agentId}`];
  let cur = org.agents.find((a) => a.id === agentId)?.crew ?? null;
  while (cur !== null) {
    out.push(`crew:${cur}`);
    const here: string = cur;
    cur = org.crews.find((c) => c.id === here)?.parent ?? null;
  }
  out.push('org');
  return out;
}

function windowsIn(rules: RulesData): number[] {
  const ws = new Set<number>([30]);
  const all = [rules.planRequired.workspace, ...Object.values(rules.planRequired.crews), ...Object.values(rules.planRequired.agents)];
  for (const r of all) if (r?.windowMin !== undefined) ws.add(r.windowMin);
  return [...ws];
}

/** How often a message is by the acting agent, by its delegation chain, by anyone: varies per scenario. */
const AUTHOR_PROFILES = [
  { own: 4, upstream: 2, anyone: 2 },
  { own: 1, upstream: 4, anyone: 1 },
  { own: 0, upstream: 3, anyone: 1 },
  { own: 1, upstream: 0, anyone: 3 },
] as const;

function messageArb(
  org: Org,
  rules: RulesData,
  call: ModelCall,
  profile: (typeof AUTHOR_PROFILES)[number],
): fc.Arbitrary<ScenarioMessage> {
  const agentIds = [...org.agents.map((a) => a.id), org.ghost];
  const allThreads = [
    ...agentIds.map((a) => `agent:${a}`),
    ...[...org.crews.map((c) => c.id), org.strangerCrew].map((c) => `crew:${c}`),
    'org',
  ];
  const authorArb = fc.oneof(
    { arbitrary: fc.constant(call.agent), weight: profile.own },
    { arbitrary: fc.constantFrom(...(call.delegatedBy?.length ? call.delegatedBy : [call.agent])), weight: profile.upstream },
    { arbitrary: fc.constantFrom(...agentIds), weight: profile.anyone },
  );
  const windows = windowsIn(rules);
  const ageArb = fc.oneof(
    { arbitrary: fc.integer({ min: -3 * MIN, max: 130 * MIN }), weight: 3 },
    { arbitrary: fc.record({ w: fc.constantFrom(...windows), d: fc.constantFrom(-1, 0, 1) }).map(({ w, d }) => w * MIN + d), weight: 3 },
    { arbitrary: fc.constantFrom(0, -1, 1, 24 * 60 * MIN, 1_000_000_000_000), weight: 1 },
  );
  return authorArb.chain((author) =>
    fc.record(
      {
        thread: fc.oneof({ arbitrary: fc.constantFrom(...threadsOf(org, author)), weight: 3 }, { arbitrary: fc.constantFrom(...allThreads), weight: 2 }),
        author: fc.constant(author),
        authorKind: fc.oneof({ arbitrary: fc.constant<AuthorKind>('agent'), weight: 6 }, { arbitrary: fc.constant<AuthorKind>('human'), weight: 1 }),
        kind: fc.oneof({ arbitrary: fc.constant('plan'), weight: 6 }, { arbitrary: fc.constantFrom('note', 'status-update'), weight: 1 }),
        ageMs: ageArb,
        // Tagged with the call's run more often than with another.
        runId: call.runId !== undefined
          ? fc.oneof({ arbitrary: fc.constant(call.runId), weight: 3 }, { arbitrary: fc.constantFrom(...RUN_IDS), weight: 1 })
          : fc.constantFrom(...RUN_IDS),
      },
      { requiredKeys: ['thread', 'author', 'authorKind', 'kind', 'ageMs'] },
    ),
  );
}

function callArb(org: Org): fc.Arbitrary<ModelCall> {
  const agentIds = org.agents.map((a) => a.id);
  const anyAgent = fc.oneof({ arbitrary: fc.constantFrom(...agentIds), weight: 8 }, { arbitrary: fc.constant(org.ghost), weight: 1 });
  return fc.record(
    {
      agent: anyAgent,
      tool: fc.oneof({ arbitrary: fc.constantFrom(...TOOL_NAMES), weight: 5 }, { arbitrary: fc.constantFrom(...OTHER_TOOLS), weight: 1 }),
      runId: fc.constantFrom(...RUN_IDS),
      delegatedBy: fc.array(anyAgent, { minLength: 0, maxLength: 2 }),
    },
    { requiredKeys: ['agent', 'tool'] },
  );
}

const H = 60 * MIN;

/** At most one recorded run per run id, belonging to the caller, its claimed chain or anyone. */
function runsArb(org: Org, call: ModelCall): fc.Arbitrary<ScenarioRun[]> {
  const seats = [call.agent, ...(call.delegatedBy ?? []), ...org.agents.map((a) => a.id)];
  const one = (id: string): fc.Arbitrary<ScenarioRun | null> => fc.oneof(
    // Often the caller's plain open run, started a few hours ago.
    { arbitrary: fc.integer({ min: 3 * H, max: 20 * H }).map((startAgeMs) => ({ id, seat: call.agent, startAgeMs, lastsMs: 24 * H })), weight: 2 },
    { arbitrary: randomRun(id), weight: 2 },
    { arbitrary: fc.constant(null), weight: 1 },
  );
  const randomRun = (id: string): fc.Arbitrary<ScenarioRun> => (
    fc.record(
      {
        id: fc.constant(id),
        seat: fc.oneof({ arbitrary: fc.constant(call.agent), weight: 4 }, { arbitrary: fc.constantFrom(...seats), weight: 2 }),
        startAgeMs: fc.oneof(
          { arbitrary: fc.constantFrom(-5 * MIN, 0, 10 * MIN, 3 * H, 23 * H, 25 * H, 50 * H), weight: 1 },
          { arbitrary: fc.integer({ min: 3 * H, max: 23 * H }), weight: 2 },
          { arbitrary: fc.integer({ min: -10 * MIN, max: 30 * H }), weight: 1 },
        ),
        lastsMs: fc.oneof({ arbitrary: fc.constantFrom(1, H, 4 * H), weight: 1 }, { arbitrary: fc.constantFrom(24 * H, 72 * H), weight: 3 }),
        // Mostly not ended.
        endedAgeMs: fc.option(fc.constantFrom(-5 * MIN, 0, 5 * MIN, 2 * H), { nil: undefined, freq: 4 }),
      },
      { requiredKeys: ['id', 'seat', 'startAgeMs', 'lastsMs', 'endedAgeMs'] },
    ) as fc.Arbitrary<ScenarioRun>
  );
  return fc.tuple(...RUN_IDS.map(one)).map((rs) => rs.filter((r): r is ScenarioRun => r !== null));
}

/** Delegations for the claimed links (live, expired, revoked, for a run, made later), plus a few between anyone. */
function delegationsArb(org: Org, call: ModelCall): fc.Arbitrary<ScenarioDelegation[]> {
  const claimed = call.delegatedBy ?? [];
  const workers = [call.agent, ...claimed.slice(0, -1)];
  const ids = [...org.agents.map((a) => a.id), org.ghost];
  // Mostly live: each way of not being live (another run, made later, expired, revoked) now and then.
  const rarely = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined, freq: 5 });
  const shape = {
    runId: rarely(fc.constantFrom(...RUN_IDS)),
    ageMs: fc.oneof({ arbitrary: fc.constantFrom(0, 1, H, 48 * H), weight: 5 }, { arbitrary: fc.constant(-5 * MIN), weight: 1 }),
    expiresInMs: rarely(fc.constantFrom(-MIN, 0, 1, H)),
    revoked: fc.oneof({ arbitrary: fc.constant(false), weight: 6 }, { arbitrary: fc.constant(true), weight: 1 }),
  };
  const link = (manager: string, worker: string): fc.Arbitrary<ScenarioDelegation | null> => fc.oneof(
    { arbitrary: fc.constant({ manager, worker, ageMs: H }), weight: 6 },
    { arbitrary: fc.record({ manager: fc.constant(manager), worker: fc.constant(worker), ...shape }), weight: 2 },
    { arbitrary: fc.constant(null), weight: 1 },
  );
  // A seat cannot delegate to itself: such a claimed link is never on record.
  const links = fc.tuple(...claimed.map((m, i) => (m === workers[i] ? fc.constant(null) : link(m, workers[i] as string))));
  const others = fc.array(
    fc.record({ manager: fc.constantFrom(...ids), worker: fc.constantFrom(...ids), ...shape })
      .filter((d) => d.manager !== d.worker),
    { maxLength: 2 },
  );
  return fc.tuple(links, others).map(([ls, os]) => [...ls.filter((d): d is ScenarioDelegation => d !== null), ...os]);
}

/** Sometimes a maximum run length in the rules. */
const runsRuleArb = fc.option(fc.constantFrom(60, 600, 1440, 2880), { nil: undefined, freq: 2 });

/**
 * Random scenarios. `loose` also leaves out fields the types require but
 * the spec gives a meaning when unset (a rule's `mode`, `tools.default`).
 */
export function scenarioArbitrary(options: { loose?: boolean } = {}): fc.Arbitrary<Scenario> {
  const loose = options.loose ?? false;
  return orgArb
    .chain((org) =>
      fc.record({ planRequired: planRequiredArb(org, loose), tools: toolsArb(loose) }).chain((rules) =>
        callArb(org).chain((call) =>
          fc
            .record({
              profile: fc.constantFrom(...AUTHOR_PROFILES),
              runs: runsArb(org, call),
              delegations: delegationsArb(org, call),
              maxMinutes: runsRuleArb,
            })
            .chain(({ profile, runs, delegations, maxMinutes }) => {
              const withRuns: RulesData = maxMinutes === undefined ? rules : { ...rules, runs: { maxMinutes, source: 'rules/runs.yaml:2:3' } };
              return fc.array(messageArb(org, withRuns, call, profile), { maxLength: 25 })
                .map((messages): Scenario => ({ ...org, rules: withRuns, messages, runs, delegations, call }));
            }),
        ),
      ),
    )
    .map((s) => JSON.parse(JSON.stringify(s)) as Scenario); // plain objects, so a counterexample pastes as is
}

export const scenarioArb: fc.Arbitrary<Scenario> = scenarioArbitrary();

// ---------------------------------------------------------------------------
// Loading a scenario

/** Puts the org and posts the messages; returns the model's world with the store's message ids. */
export async function loadScenario(store: Store, s: Scenario): Promise<World> {
  for (const c of s.crews) await store.putCrew(c);
  for (const a of s.agents) await store.putAgent(a);
  const messages: ModelMessage[] = [];
  for (const m of s.messages) {
    const stored = await store.postMessage({
      thread: m.thread,
      author: m.author,
      authorKind: m.authorKind,
      kind: m.kind,
      body: `body of a ${m.kind}`,
      at: NOW - m.ageMs,
      ...(m.runId !== undefined ? { runId: m.runId } : {}),
    });
    messages.push({
      id: stored.id,
      thread: m.thread,
      author: m.author,
      authorKind: m.authorKind,
      kind: m.kind,
      at: NOW - m.ageMs,
      ...(m.runId !== undefined ? { runId: m.runId } : {}),
    });
  }
  const runs: ModelRun[] = [];
  for (const r of s.runs ?? []) {
    const startedAt = NOW - r.startAgeMs;
    const run = await store.startRun({ id: r.id, seat: r.seat, startedBy: 'host', startedAt, expiresAt: startedAt + r.lastsMs });
    // A run cannot end before it started.
    const endedAt = r.endedAgeMs === undefined || r.endedAgeMs === null ? null : Math.max(startedAt, NOW - r.endedAgeMs);
    if (endedAt !== null) await store.endRun(run.id, { by: 'host', at: endedAt });
    runs.push({ id: r.id, seat: r.seat, startedAt, expiresAt: startedAt + r.lastsMs, endedAt });
  }
  const delegations: ModelDelegation[] = [];
  for (const d of s.delegations ?? []) {
    const createdAt = NOW - d.ageMs;
    // An expiry must come after the delegation was made.
    const expiresAt = d.expiresInMs === undefined ? null : Math.max(createdAt + 1, NOW + d.expiresInMs);
    const rec = await store.delegate({
      manager: d.manager, worker: d.worker, createdBy: 'host', createdAt,
      ...(d.runId !== undefined ? { runId: d.runId } : {}), ...(expiresAt !== null ? { expiresAt } : {}),
    });
    if (d.revoked) await store.revokeDelegation(rec.id, NOW - 1);
    delegations.push({ manager: d.manager, worker: d.worker, runId: d.runId ?? null, createdAt, expiresAt, revoked: d.revoked === true });
  }
  return { now: NOW, crews: s.crews, agents: s.agents, rules: s.rules, messages, runs, delegations };
}

// ---------------------------------------------------------------------------
// Patterns with characters that are special elsewhere (glob, regex)

/**
 * A pattern built from a tool name with one construct that a glob or regex
 * engine would read specially (`[b]`, `{b,q}`, `\b`, `b+`, `(b)`, …). In
 * plangate patterns only `*` and `?` are special, so such a pattern only
 * matches a name that contains those characters literally: never one of ours.
 */
export const metaPatternArb: fc.Arbitrary<string> = fc
  .record({
    name: fc.constantFrom(...TOOL_NAMES),
    at: fc.nat(),
    construct: fc.constantFrom(
      (c: string) => `[${c}]`,
      (c: string) => `[${c}q]`,
      () => `[!q]`,
      () => `[^q]`,
      (c: string) => `[a-z${c}]`,
      (c: string) => `{${c},q}`,
      (c: string) => `\\${c}`,
      (c: string) => `${c}+`,
      (c: string) => `${c}{1}`,
      (c: string) => `(${c})`,
      (c: string) => `${c}|q`,
      (c: string) => `^${c}`,
      (c: string) => `${c}$`,
    ),
    star: fc.constantFrom('', '*'),
  })
  .map(({ name, at, construct, star }) => {
    const i = at % name.length;
    return name.slice(0, i) + construct(name[i] as string) + name.slice(i + 1) + star;
  });
