/**
 * Refusals: the audit trail's refused calls as a filterable table and a
 * chart over time by check, and — apart — what shadow-mode rules would have
 * refused, per rule. Audit events carry no message body, so none is shown.
 */
import { useEffect, useState } from 'preact/hooks';
import { get, query } from './api.js';
import { RefusalChart } from './chart.js';
import { breakable, bytes, CHECK_LABEL, visible } from './format.js';
import { Busy, Problem, Section, Time } from './ui.js';

interface AuditEvent {
  type: string;
  time: string;
  agent: string;
  crew?: string | null;
  tool?: string;
  code?: string;
  mode?: string;
  runId?: string | null;
  rule?: { scope: string; id?: string; source?: string };
  shadow?: true;
  holdId?: string;
  holdKind?: 'reviewer' | 'on_demand';
  reason?: string;
  path?: string | null;
  sizeBytes?: number | null;
  maxBytes?: number;
  traceId?: string;
}

interface AuditAnswer {
  events: AuditEvent[];
  limit: number;
  limitReached: boolean;
}

const CHECK_OF: Record<string, string> = { PlanRequiredBlocked: 'plan_required', PlanningHoldBlocked: 'planning_hold', ReadGuardBlocked: 'read_guard' };
const REFUSAL_TYPES = Object.keys(CHECK_OF).join(',');
const RANGES: Array<[string, string]> = [['1h', 'last hour'], ['24h', 'last 24 hours'], ['7d', 'last 7 days'], ['30d', 'last 30 days'], ['custom', 'custom']];
const RANGE_MS: Record<string, number> = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 };

interface Filters {
  crew: string;
  agent: string;
  tool: string;
  check: string;
  code: string;
  range: string;
  from: string;
  to: string;
}

const EMPTY: Filters = { crew: '', agent: '', tool: '', check: '', code: '', range: '7d', from: '', to: '' };

function bounds(f: Filters, now: number): { since: number; until: number } {
  if (f.range !== 'custom') return { since: now - (RANGE_MS[f.range] ?? RANGE_MS['7d']!), until: now };
  const since = f.from ? new Date(f.from).getTime() : now - RANGE_MS['7d']!;
  const until = f.to ? new Date(f.to).getTime() : now;
  return { since, until };
}

/** Why the read guard refused, as people read it (`over` names the sizes instead). */
const READ_GUARD_REASON: Record<string, string> = {
  lines_over: 'the lines asked for are over the ceiling',
  lines_unmeasured: 'the lines asked for could not be measured',
  outside_roots: 'outside the read roots',
  unsized: 'not a regular file',
  bad_path: 'not one plain path',
  withheld: 'too large for the policy to see',
};

/** The read guard's refusal: the path (isolated, so its text cannot turn the rest around), and why. */
function readGuardWhy(e: AuditEvent) {
  const why = e.reason === 'over' && typeof e.sizeBytes === 'number'
    ? `${bytes(e.sizeBytes)} over ${bytes(e.maxBytes ?? 0)}`
    : `${READ_GUARD_REASON[e.reason ?? ''] ?? e.reason ?? 'refused'} (ceiling ${bytes(e.maxBytes ?? 0)})`;
  return <>{e.path != null ? <bdi>{visible(e.path)}</bdi> : 'no path'}: {why}</>;
}

function ruleText(r: AuditEvent['rule']): string {
  if (!r) return '';
  return [r.scope === 'default' ? 'no rule' : `${r.scope}${r.id ? ` ${r.id}` : ''}`, r.source].filter(Boolean).join(' · ');
}

export function RefusalsPage() {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);
  const [data, setData] = useState<{ real: AuditAnswer; shadow: AuditAnswer; since: number; until: number } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let live = true;
    const { since, until } = bounds(applied, Date.now());
    const common = { crew: applied.crew, agent: applied.agent, tool: applied.tool, check: applied.check, code: applied.code, since, until, limit: 1000 };
    setBusy(true);
    setError(null);
    Promise.all([
      get<AuditAnswer>(`/v1/audit${query({ ...common, type: REFUSAL_TYPES, shadow: false })}`),
      get<AuditAnswer>(`/v1/audit${query({ ...common, type: 'PlanRequiredBlocked', shadow: true })}`),
    ]).then(([real, shadow]) => {
      if (live) setData({ real, shadow, since, until });
    }, (err: unknown) => {
      if (live) setError(err);
    }).finally(() => {
      if (live) setBusy(false);
    });
    return () => { live = false; };
  }, [applied]);

  const field = (k: keyof Filters) => (e: Event) => setDraft({ ...draft, [k]: (e.target as HTMLInputElement).value });

  return (
    <main id="main" tabIndex={-1}>
      <h1>Refusals</h1>
      <form class="card filters" aria-label="Filters" onSubmit={(e) => { e.preventDefault(); setApplied({ ...draft }); }}>
        {(['crew', 'agent', 'tool', 'code'] as const).map((k) => (
          <label key={k}>{k}<input name={k} value={draft[k]} onInput={field(k)} /></label>
        ))}
        <label>check
          <select name="check" value={draft.check} onChange={field('check')}>
            <option value="">any</option>
            {Object.entries(CHECK_LABEL).map(([v, l]) => <option key={v} value={v}>{l}</option>)}
          </select>
        </label>
        <label>time
          <select name="range" value={draft.range} onChange={field('range')}>
            {RANGES.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
          </select>
        </label>
        {draft.range === 'custom' && (
          <>
            <label>from<input type="datetime-local" name="from" value={draft.from} onInput={field('from')} /></label>
            <label>to<input type="datetime-local" name="to" value={draft.to} onInput={field('to')} /></label>
          </>
        )}
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>Apply</button>
          <button type="button" onClick={() => { setDraft(EMPTY); setApplied(EMPTY); }}>Clear</button>
        </div>
      </form>
      {busy && <Busy label="Reading the audit trail" />}
      <Problem error={error} />
      {data && (
        <>
          <Section title={`Refused calls (${data.real.events.length}${data.real.limitReached ? '+' : ''})`} id="refused">
            {data.real.limitReached && <p class="note">Showing the newest {data.real.limit}; narrow the filters to see older ones.</p>}
            <RefusalChart events={data.real.events.map((e) => ({ time: e.time, check: CHECK_OF[e.type] ?? '' }))} since={data.since} until={data.until} />
            <RefusalTable events={data.real.events} label="Refused calls" />
          </Section>
          <Section title="Shadow mode: what would have been refused" id="shadow">
            <p class="muted">Calls that went through because the rule in force does not enforce (<code>enforce: false</code>), grouped by that rule.</p>
            <ShadowByRule events={data.shadow.events} />
          </Section>
        </>
      )}
    </main>
  );
}

function RefusalTable({ events, label }: { events: AuditEvent[]; label: string }) {
  if (events.length === 0) return <p class="empty">No refused calls match.</p>;
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table class="cards">
        <thead><tr><th scope="col">time</th><th scope="col">check</th><th scope="col">agent</th><th scope="col">crew</th><th scope="col">tool</th><th scope="col">code</th><th scope="col">why</th></tr></thead>
        <tbody>
          {events.map((e, i) => (
            <tr key={`${e.time}-${i}`}>
              <td data-label="time"><Time iso={e.time} /></td>
              <td data-label="check">{CHECK_LABEL[CHECK_OF[e.type] ?? ''] ?? e.type}</td>
              <td data-label="agent">{e.agent}</td>
              <td data-label="crew">{e.crew ?? <span class="muted">none</span>}</td>
              <td data-label="tool"><code>{breakable(e.tool ?? '')}</code></td>
              <td data-label="code"><code>{breakable(e.code ?? '')}</code></td>
              <td data-label="why">{e.type === 'PlanRequiredBlocked' ? `${e.mode} · ${ruleText(e.rule)}`
                : e.type === 'ReadGuardBlocked' ? readGuardWhy(e)
                : `${e.holdKind === 'reviewer' ? 'reviewer' : 'on-demand'} hold ${e.holdId ?? ''}`}{e.runId ? <> · <span title="the run the call named; its decision says whether it counted">claimed run</span> <bdi>{visible(e.runId)}</bdi></> : ''}{e.traceId ? <> · trace <code class="trace-id">{visible(e.traceId)}</code></> : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ShadowByRule({ events }: { events: AuditEvent[] }) {
  if (events.length === 0) return <p class="empty">No shadow-mode rule would have refused a call.</p>;
  const groups = new Map<string, AuditEvent[]>();
  for (const e of events) {
    const key = `${e.rule?.scope ?? ''} ${e.rule?.id ?? ''} ${e.mode ?? ''} ${e.rule?.source ?? ''}`;
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  return (
    <ul class="shadow-rules">
      {[...groups.values()].map((g) => {
        const e = g[0]!;
        const tools = [...new Set(g.map((x) => x.tool))];
        const agents = [...new Set(g.map((x) => x.agent))];
        return (
          <li key={ruleText(e.rule)} class="shadow-rule">
            <h3><code>{e.rule?.scope === 'workspace' ? 'workspace' : `${e.rule?.scope} ${e.rule?.id}`}: {e.mode}</code></h3>
            <p><strong>{g.length}</strong> would-be refusal{g.length === 1 ? '' : 's'} · {agents.length} agent{agents.length === 1 ? '' : 's'} ({agents.join(', ')}) · tools {tools.join(', ')}
              {e.rule?.source ? <span class="muted"> · {e.rule.source}</span> : null}</p>
            <details>
              <summary>Show the calls</summary>
              <RefusalTable events={g} label={`Would-be refusals under ${ruleText(e.rule)}`} />
            </details>
          </li>
        );
      })}
    </ul>
  );
}
