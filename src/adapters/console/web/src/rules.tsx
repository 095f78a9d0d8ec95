/**
 * The rules in force: health (enforcing or failing open, and why; the last
 * reload error; the revision), every plan-required rule with its source,
 * the pinned MCP tools refused as changed, the tool classes, the
 * planning-gate defaults and profiles, the read-guard tools, and "as seat":
 * what one agent runs under and where each value comes from.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, seg } from './api.js';
import { ChangedTools } from './changed-tools.js';
import { bytes } from './format.js';
import { Busy, Problem, Section, Time } from './ui.js';

interface Health {
  status: 'ok' | 'degraded';
  reasons?: string[];
  enforcing?: boolean;
  failOpen?: { reason: string; since: string };
  lastReloadError?: { message: string; problems?: Array<{ file?: string; line?: number; col?: number; message: string }>; at: string };
  rules?: { revision: string | null; loadedAt: string | null; files: string[] };
}

interface PlanRule { mode: string; windowMin?: number; acceptUpstream?: boolean; enforce?: boolean; source: string; sources?: Record<string, string> }
interface PlanningSettings { enabled?: boolean; whitelist?: string[]; reviewerChannel?: string; readGuardMaxBytes?: number; source?: string }
interface RulesAnswer {
  revision: string;
  loadedAt: string | null;
  files: string[];
  rules: {
    planRequired: { workspace?: PlanRule; crews: Record<string, PlanRule>; agents: Record<string, PlanRule> };
    tools: { default: string; exact: Record<string, string>; patterns: Array<{ pattern: string; class: string; source: string }> };
    planningGate?: {
      defaults?: PlanningSettings;
      profiles: Record<string, PlanningSettings>;
      crews: Record<string, { profile: string; source: string }>;
      agents: Record<string, { profile: string; source: string }>;
    };
    readGuard?: { tools: Record<string, { path?: string; paths?: string; range: string[]; lines?: { head?: string; tail?: string }; skip?: string[]; source: string }> };
  };
}

interface Sourced { value: unknown; scope: string; id?: string; source?: string }
interface PlanningSourced { value: unknown; from: 'profile' | 'defaults' | 'builtin'; profile?: string; source?: string }
interface SeatAnswer {
  agent: string;
  known: boolean;
  crews: string[];
  planRequired: Record<string, Sourced>;
  quotas?: Array<{ kind: string; rate: number; windowMin: number; standing: number; source?: string }>;
  planningGate: null | ({ profile: { name: string | null; scope: string; id?: string; source?: string } } & Record<'enabled' | 'whitelist' | 'reviewerChannel' | 'readGuardMaxBytes', PlanningSourced>);
}

const show = (v: unknown): string => (v === undefined ? '—' : Array.isArray(v) ? (v.length ? v.join(', ') : '(none)') : String(v));

export function RulesPage() {
  return (
    <main id="main" tabIndex={-1}>
      <h1>Rules in force</h1>
      <HealthCard />
      <ChangedTools />
      <AsSeat />
      <RulesTables />
    </main>
  );
}

function HealthCard() {
  const [h, setH] = useState<Health | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => { get<Health>('/health').then(setH, setError); }, []);
  return (
    <Section title="Health" id="health">
      <Problem error={error} />
      {!h && !error && <Busy label="Reading the health" />}
      {h && (
        <dl class="facts">
          <dt>status</dt><dd><span class={`tag tag-${h.status}`} data-testid="health-status">{h.status}</span></dd>
          {h.enforcing !== undefined && (<><dt>plan-required</dt><dd>{h.enforcing ? 'enforcing' : <strong class="warn">NOT enforced: failing open</strong>}</dd></>)}
          {h.failOpen && (<><dt>failing open because</dt><dd>{h.failOpen.reason} <span class="muted">(since <Time iso={h.failOpen.since} />)</span></dd></>)}
          <dt>last reload error</dt>
          <dd>{h.lastReloadError ? (
            <>
              <span class="warn">{h.lastReloadError.message}</span> <span class="muted">(<Time iso={h.lastReloadError.at} />; the last good rules stay in force)</span>
              {h.lastReloadError.problems?.length ? <ul>{h.lastReloadError.problems.map((p, i) => <li key={i}><code>{[p.file, p.line, p.col].filter((x) => x !== undefined).join(':')}</code> {p.message}</li>)}</ul> : null}
            </>
          ) : 'none'}</dd>
          {h.rules && (<><dt>rules revision</dt><dd><code class="rev">{h.rules.revision ?? 'none'}</code>{h.rules.loadedAt ? <> · loaded <Time iso={h.rules.loadedAt} /></> : null}</dd></>)}
          {/* The reasons repeat the failure and the reload error shown above; show them only when neither is. */}
          {h.reasons && h.reasons.length > 0 && !h.failOpen && !h.lastReloadError && (<><dt>reasons</dt><dd><ul>{h.reasons.map((r) => <li key={r}>{r}</li>)}</ul></dd></>)}
        </dl>
      )}
    </Section>
  );
}

function RulesTables() {
  const [r, setR] = useState<RulesAnswer | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => { get<RulesAnswer>('/v1/rules').then(setR, setError); }, []);
  if (error) {
    return <Section title="Rules" id="rules"><p class="problem" role="alert">{error instanceof ApiError && error.status === 403 ? 'Only an operator may read the rules.' : (error as Error).message}</p></Section>;
  }
  if (!r) return <Busy label="Reading the rules" />;
  const pr = r.rules.planRequired;
  const rows: Array<[string, PlanRule]> = [
    ...(pr.workspace ? [['workspace', pr.workspace] as [string, PlanRule]] : []),
    ...Object.entries(pr.crews).map(([id, rule]) => [`crew ${id}`, rule] as [string, PlanRule]),
    ...Object.entries(pr.agents).map(([id, rule]) => [`agent ${id}`, rule] as [string, PlanRule]),
  ];
  const pg = r.rules.planningGate;
  return (
    <>
      <Section title="Plan-required rules" id="plan-required">
        <p class="muted small">Revision <code class="rev">{r.revision}</code>{r.loadedAt ? <> · loaded <Time iso={r.loadedAt} /></> : null} · files {r.files.join(', ')}</p>
        <Table head={['scope', 'mode', 'window', 'accept upstream', 'enforce', 'source']} label="Plan-required rules"
          rows={rows.map(([scope, rule]) => [scope, rule.mode, rule.windowMin !== undefined ? `${rule.windowMin} min` : '—', show(rule.acceptUpstream), rule.enforce === false ? 'shadow' : show(rule.enforce), <code>{rule.source}</code>])} />
      </Section>
      <Section title="Tool classes" id="tools">
        <p>A tool nothing matches is <strong>{r.rules.tools.default}</strong>.</p>
        <Table head={['tool', 'class', 'source']} label="Tool classes"
          rows={[
            ...Object.entries(r.rules.tools.exact).map(([t, c]) => [<code>{t}</code>, c, 'exact name']),
            ...r.rules.tools.patterns.map((p) => [<code>{p.pattern}</code>, p.class, <code>{p.source}</code>]),
          ]} />
      </Section>
      <Section title="Planning-gate profiles" id="profiles">
        {!pg ? <p class="empty">No rule file sets the planning gate: it is off, and the read guard too.</p> : (
          <>
            <Table head={['profile', 'reviewer may hold', 'whitelist', 'reviewer channel', 'read ceiling', 'source']} label="Planning-gate profiles"
              rows={[...(pg.defaults ? [['defaults', pg.defaults] as const] : []), ...Object.entries(pg.profiles)].map(([name, s]) => [
                name, show(s.enabled), show(s.whitelist), show(s.reviewerChannel), s.readGuardMaxBytes === undefined ? '—' : s.readGuardMaxBytes === 0 ? 'off' : bytes(s.readGuardMaxBytes), <code>{s.source}</code>,
              ])} />
            <Table head={['picked by', 'profile', 'source']} label="Profile picks"
              rows={[...Object.entries(pg.crews).map(([id, p]) => [`crew ${id}`, p.profile, <code>{p.source}</code>]), ...Object.entries(pg.agents).map(([id, p]) => [`agent ${id}`, p.profile, <code>{p.source}</code>])]} />
          </>
        )}
        {r.rules.readGuard && (
          <Table head={['read tool', 'path argument', 'range arguments', 'line arguments', 'start arguments', 'source']} label="Read-guard tools"
            rows={Object.entries(r.rules.readGuard.tools).map(([t, g]) => [<code>{t}</code>, g.path ?? `${g.paths ?? ''} (several)`, show(g.range), show(Object.entries(g.lines ?? {}).map(([end, a]) => `${a} (${end})`)), show(g.skip ?? []), <code>{g.source}</code>])} />
        )}
      </Section>
    </>
  );
}

function AsSeat() {
  const [agent, setAgent] = useState('');
  const [seat, setSeat] = useState<SeatAnswer | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function submit(e: Event): Promise<void> {
    e.preventDefault();
    if (!agent.trim()) return;
    setBusy(true);
    setError(null);
    try {
      setSeat(await get<SeatAnswer>(`/v1/seats/${seg(agent.trim())}`));
    } catch (err) {
      setSeat(null);
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const from = (s: Sourced | undefined): string => (!s ? '—' : [s.scope === 'default' ? 'built-in default' : `${s.scope} rule${s.id ? ` ${s.id}` : ''}`, s.source].filter(Boolean).join(' · '));
  const fromPlanning = (s: PlanningSourced | undefined): string => (!s ? '—'
    : [s.from === 'profile' ? `profile ${s.profile ?? ''}` : s.from === 'defaults' ? 'planning-gate defaults' : 'built-in default', s.source].filter(Boolean).join(' · '));
  const pick = (p: NonNullable<SeatAnswer['planningGate']>['profile']): string => (p.name === null ? 'no profile picked'
    : [`${p.scope} ${p.scope === 'default' ? '' : p.id ?? ''}`.trim() + ' picks it', p.source].filter(Boolean).join(' · '));
  return (
    <Section title="As seat" id="as-seat">
      <form class="inline" onSubmit={submit}>
        <label for="seat-agent">Agent id</label>
        <input id="seat-agent" value={agent} placeholder="0xWORKER" onInput={(e) => setAgent((e.target as HTMLInputElement).value)} />
        <button type="submit" class="primary" disabled={busy}>Show</button>
      </form>
      {busy && <Busy label="Reading the seat's settings" />}
      <Problem error={error} />
      {seat && (
        <div data-testid="seat">
          <p>{seat.known ? <>{seat.agent} is in crew{seat.crews.length > 1 ? 's' : ''} <strong>{seat.crews.join(' ← ')}</strong>.</> : <>The org does not know <strong>{seat.agent}</strong>: it runs under its own agent rule, if any, else the workspace rule.</>}</p>
          <Table head={['setting', 'value', 'from']} label={`Settings of ${seat.agent}`}
            rows={[
              ...Object.entries(seat.planRequired).map(([k, s]) => [k, show(s.value), from(s)]),
              ...(seat.planningGate ? [
                ['planning profile', seat.planningGate.profile.name ?? '(none)', pick(seat.planningGate.profile)],
                ...(['enabled', 'whitelist', 'reviewerChannel', 'readGuardMaxBytes'] as const).map((k) => {
                  const s = seat.planningGate?.[k];
                  return [k === 'enabled' ? 'enabled (reviewer may hold)' : k, show(s?.value), fromPlanning(s)];
                }),
              ] : []),
              ...(seat.quotas ?? []).map((q) => [`quota ${q.kind}`, `${q.rate} per ${q.windowMin} min, ${q.standing} kept`, q.source ?? 'built-in default']),
            ]} />
        </div>
      )}
    </Section>
  );
}

function Table({ head, rows, label }: { head: string[]; rows: Array<Array<unknown>>; label: string }) {
  if (rows.length === 0) return <p class="empty">None.</p>;
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table class="cards">
        <thead><tr>{head.map((h) => <th key={h} scope="col">{h}</th>)}</tr></thead>
        <tbody>{rows.map((r, i) => <tr key={i}>{r.map((c, j) => <td key={j} data-label={head[j]}>{c as never}</td>)}</tr>)}</tbody>
      </table>
    </div>
  );
}
