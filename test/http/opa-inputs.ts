/**
 * Random inputs for the OPA differential test: policy inputs shaped like the
 * ones the gate builds (lineages, delegation chains, plan and note messages
 * of every age, run ids, holds, read arguments), a few with fields missing
 * or of the wrong type, and seat inputs for the other entrypoints.
 */
import fc from 'fast-check';

const NOW = 1_780_000_000_000;
const MIN = 60_000;
const AGENTS = ['0xWORKER', '0xBOT', '0xMGR', '0xA', '0xB'];
const CREWS = ['desk', 'trading', 'ops', 'lab'];
const TOOLS = [
  'github.merge_pull_request', 'github.create_issue', 'github.get_repo', 'github.list_prs', 'fs.read_file',
  'social.publish_x', 'social.publish_xy', 'wallet.propose_spend', 'payments.refund', 'plangate.say',
  'plangate_submit_plan', 'deploy.run', 'docs.search', 'x', 'read_text_file',
];

/** A count of lines as an agent may give it: mostly whole numbers, sometimes not. */
const lineCount = fc.oneof(fc.integer({ min: 1, max: 5000 }), fc.constantFrom(0, -1, 2.5, '10', null));

/** What the host measured of the lines asked for: the right ones, other ones, or none. */
const spans = fc.array(
  fc.record(
    { from: fc.constantFrom('head', 'tail'), count: fc.integer({ min: 1, max: 5000 }), skip: fc.integer({ min: 1, max: 99 }), bytes: fc.option(fc.integer({ min: 0, max: 2_000_000 }), { nil: null }) },
    { requiredKeys: ['from', 'count', 'bytes'] },
  ),
  { maxLength: 2 },
);

const lineage = (id: fc.Arbitrary<string>) =>
  fc.record({ id, known: fc.boolean(), crews: fc.shuffledSubarray(CREWS, { maxLength: 3 }) });

const thread = fc.oneof(
  fc.constantFrom(...AGENTS).map((a) => `agent:${a}`),
  fc.constantFrom(...CREWS).map((c) => `crew:${c}`),
  fc.constant('org'),
  fc.constant('crew:elsewhere'),
);

const message = fc.record(
  {
    thread,
    author: fc.constantFrom(...AGENTS, 'alice'),
    authorKind: fc.constantFrom('agent', 'agent', 'human'),
    kind: fc.constantFrom('plan', 'plan', 'note', 'status'),
    ageMs: fc.integer({ min: -10 * MIN, max: 180 * MIN }),
    runId: fc.constantFrom('run-1', 'run-2'),
  },
  { requiredKeys: ['thread', 'author', 'authorKind', 'kind', 'ageMs'] },
);

const hold = fc.record({
  id: fc.integer({ min: 1, max: 99 }).map(String),
  kind: fc.constantFrom('reviewer', 'on_demand'),
  task: fc.constantFrom(null, 'task-1'),
  placedBy: fc.constantFrom('alice', '0xMGR'),
  placedAt: fc.integer({ min: NOW - 600 * MIN, max: NOW }),
  plans: fc.integer({ min: 0, max: 2 }),
  pushBacks: fc.integer({ min: 0, max: 2 }),
});

/** A decision input shaped as the gate builds it (also used by test/property/hot.property.test.ts). */
export const decisionInput = fc
  .record(
    {
      now: fc.integer({ min: NOW, max: NOW + 1000 * MIN }),
      agent: lineage(fc.constantFrom(...AGENTS)),
      tool: fc.constantFrom(...TOOLS),
      runId: fc.constantFrom('run-1', 'run-2', 'run-3'),
      delegatedBy: fc.shuffledSubarray(AGENTS, { maxLength: 2 }),
      upstreamKnown: fc.array(fc.boolean(), { minLength: 2, maxLength: 2 }),
      upstreamCrews: fc.array(fc.shuffledSubarray(CREWS, { maxLength: 2 }), { minLength: 2, maxLength: 2 }),
      messages: fc.array(message, { maxLength: 6 }),
      hold,
      args: fc.record(
        { path: fc.constantFrom('a.log', 'b.txt'), offset: fc.integer({ min: 0, max: 100 }), head: lineCount, tail: lineCount },
        { requiredKeys: ['path'] },
      ),
      size: fc.integer({ min: 0, max: 10_000_000 }),
      spans,
      measured: fc.boolean(),
    },
    { requiredKeys: ['now', 'agent', 'tool', 'delegatedBy', 'upstreamKnown', 'upstreamCrews', 'messages'] },
  )
  .map((g) => ({
    now: g.now,
    call: {
      agent: g.agent.id,
      tool: g.tool,
      ...(g.runId !== undefined ? { runId: g.runId } : {}),
      delegatedBy: g.delegatedBy,
      ...(g.args !== undefined ? { args: g.args } : {}),
      ...(g.tool === 'read_text_file' ? { annotations: { readOnlyHint: true } } : {}),
    },
    agent: g.agent,
    upstream: g.delegatedBy.map((id, i) => ({ id, known: g.upstreamKnown[i] as boolean, crews: g.upstreamCrews[i] as string[] })),
    messages: g.messages.map((m, i) => ({
      id: String(i + 1),
      thread: m.thread,
      author: m.author,
      authorKind: m.authorKind,
      kind: m.kind,
      at: g.now - m.ageMs,
      ...(m.runId !== undefined ? { runId: m.runId } : {}),
    })),
    ...(g.hold !== undefined ? { hold: g.hold } : {}),
    ...(g.args !== undefined && g.size !== undefined ? { files: { [g.args.path]: fileFact(g.args, g.size, g.measured ? asked(g.args, g.spans ?? []) : g.spans ?? []) } } : {}),
  }));

/** The spans of the lines `args` asks for, with the bytes of `given` (as the host would measure them). */
function asked(args: { head?: unknown; tail?: unknown }, given: Array<{ bytes: number | null }>): Array<{ from: string; count: unknown; bytes: number | null }> {
  const ends = (['head', 'tail'] as const).filter((end) => Number.isInteger(args[end]) && (args[end] as number) >= 1);
  return ends.map((end, i) => ({ from: end, count: args[end], bytes: given[i]?.bytes ?? 0 }));
}

function fileFact(args: { path: string }, size: number, spans: unknown[]): object {
  return { path: args.path, kind: 'file', size, ...(spans.length > 0 ? { spans } : {}) };
}

/** A decision input with one field removed or replaced by a value of another type. */
const damaged = fc
  .tuple(decisionInput, fc.constantFrom('call.tool', 'agent', 'messages', 'now', 'agent.crews', 'call.delegatedBy', 'upstream'), fc.constantFrom(undefined, 7, 'x', null, [], {}))
  .map(([input, path, value]) => {
    const copy = structuredClone(input) as Record<string, unknown>;
    const [head, tail] = path.split('.') as [string, string | undefined];
    const target = tail === undefined ? copy : (copy[head] as Record<string, unknown>);
    const key = tail ?? head;
    if (value === undefined) delete target[key];
    else target[key] = value;
    return copy;
  });

export interface DifferentialCase {
  entrypoint: string;
  input: unknown;
}

/**
 * `n` cases, deterministic for a seed: 80% decisions (hot and explain), 5% damaged decisions,
 * 15% seat inputs spread over the other entrypoints.
 */
export function differentialCases(n: number, seed: number, entrypoints: readonly string[]): DifferentialCase[] {
  const decisions: string[] = entrypoints.filter((e) => e === 'plangate/decision' || e === 'plangate/decide');
  const others = entrypoints.filter((e) => !decisions.includes(e));
  const seat = fc.record({
    agent: lineage(fc.constantFrom(...AGENTS)),
    kind: fc.constantFrom('reviewer', 'on_demand'),
    hold: fc.option(hold, { nil: undefined }),
  }).map((r) => (r.hold === undefined ? { agent: r.agent, kind: r.kind } : r));
  const arb = fc.oneof(
    { weight: 80, arbitrary: fc.tuple(fc.constantFrom(...decisions), decisionInput).map(([entrypoint, input]) => ({ entrypoint, input })) },
    { weight: 5, arbitrary: fc.tuple(fc.constantFrom(...decisions), damaged).map(([entrypoint, input]) => ({ entrypoint, input })) },
    { weight: 15, arbitrary: fc.tuple(fc.constantFrom(...others), seat).map(([entrypoint, input]) => ({ entrypoint, input })) },
  );
  return fc.sample(arb, { numRuns: n, seed });
}
