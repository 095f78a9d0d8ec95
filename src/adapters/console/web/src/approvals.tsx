/**
 * Approvals, live: the requests for a person's yes to one exact call, newest
 * first, each with the call (tool, seat, run, the plan that counted and its
 * arguments pretty-printed, and the text of that plan), and approve, or deny
 * with a reason. The queue arrives over the approvals event stream, without a
 * reload; each card reads its plan's text once (GET /v1/approvals/:id). The
 * arguments and the plan are the agent's: they are shown as text (never as
 * markup), with invisible characters spelled out.
 */
import { useEffect, useState } from 'preact/hooks';
import type { ApprovalEntry, ApprovalPlanView, ApprovalsQueue } from '../../../http/routes/approvals-queue.js';
import { get, post, seg } from './api.js';
import { breakable, bytes, visible } from './format.js';
import { follow, type StreamState } from './stream.js';
import { Busy, Problem, Time } from './ui.js';

const STATE_LABEL: Record<StreamState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  retrying: 'Connection lost — reconnecting…',
  refused: 'Not allowed',
  unavailable: 'The approvals cannot be read right now — retrying…',
};

const iso = (ms: number): string => new Date(ms).toISOString();

export function ApprovalsPage() {
  const [queue, setQueue] = useState<ApprovalsQueue | null>(null);
  const [state, setState] = useState<StreamState>('connecting');
  const [detail, setDetail] = useState<string | undefined>();

  useEffect(() => follow('/v1/approvals/queue/events', {
    onEvent(name, data) {
      if (name === 'approvals') {
        setQueue(JSON.parse(data) as ApprovalsQueue);
        setState('live');
        setDetail(undefined);
      } else if (name === 'unavailable') {
        setState('unavailable');
        setDetail(undefined);
      }
    },
    onState(s, d) {
      setState(s);
      setDetail(d);
      if (s === 'refused') setQueue(null);
    },
  }), []);

  return (
    <main id="main" tabIndex={-1}>
      <div class="page-head">
        <h1>Approvals</h1>
        <span class={`live live-${state}`} role="status" aria-live="polite" data-testid="stream-state">{STATE_LABEL[state]}{detail ? `: ${detail}` : ''}</span>
      </div>
      {queue === null ? (state === 'refused' ? null : <Busy label="Loading the approvals" />) : (
        <>
          {queue.pending.length === 0 ? <p class="empty card">No call is waiting for approval.</p> : (
            <>
              {queue.limitReached && <p class="note" role="status">Showing the newest {queue.limit} pending requests; <code>plangate approvals list</code> lists them all.</p>}
              <ol class="approvals" aria-label="Calls waiting for approval, newest first">
                {queue.pending.map((a) => <ApprovalCard key={a.id} a={a} />)}
              </ol>
            </>
          )}
          {queue.answered.length > 0 && (
            <section class="card" aria-labelledby="answered">
              <h2 id="answered">Answered lately</h2>
              <ul class="answered">
                {queue.answered.map((a) => (
                  <li key={a.id} data-approval={a.id}>
                    <span class={`tag tag-${a.status}`}>{a.status}</span> <code>{breakable(visible(a.tool))}</code> for <bdi>{visible(a.seat)}</bdi>
                    {a.decidedBy !== null && <> · {a.status === 'denied' ? 'denied' : 'approved'} by <bdi>{visible(a.decidedBy)}</bdi></>}
                    {a.decidedAt !== null && <> · <Time iso={iso(a.decidedAt)} /></>}
                    {a.reason !== null && <> · “<bdi>{visible(a.reason)}</bdi>”</>}
                  </li>
                ))}
              </ul>
            </section>
          )}
        </>
      )}
    </main>
  );
}

/** The call's arguments, pretty-printed as text; read one by one when the queue leaves them out for their size. */
function Arguments({ a }: { a: ApprovalEntry }) {
  const [args, setArgs] = useState<Record<string, unknown> | undefined>(a.args);
  const [error, setError] = useState<unknown>(null);
  if (args === undefined) {
    return (
      <div class="args">
        <button type="button" onClick={() => void get<{ approval: { args: Record<string, unknown> } }>(`/v1/approvals/${seg(a.id)}`)
          .then((r) => setArgs(r.approval.args), setError)}>Show the arguments ({bytes(a.argsBytes)})</button>
        <Problem error={error} />
      </div>
    );
  }
  return <pre class="args" aria-label="Arguments" data-testid="args">{visible(JSON.stringify(args, null, 2))}</pre>;
}

/** The plan that counted, read once per request: the agent's text as text, or that retention pruned it. */
function PlanText({ a }: { a: ApprovalEntry }) {
  const [plan, setPlan] = useState<ApprovalPlanView | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (a.planId === null) return undefined;
    let shown = true;
    get<{ plan: ApprovalPlanView | null }>(`/v1/approvals/${seg(a.id)}`)
      .then((r) => shown && setPlan(r.plan), (err: unknown) => shown && setError(err));
    return () => { shown = false; };
  }, [a.id, a.planId]);
  if (a.planId === null) return null;
  if (plan === undefined) return <div class="plan">{error ? <Problem error={error} /> : <Busy label="Reading the plan" />}</div>;
  if (plan === null || plan.pruned) {
    return <p class="plan muted" data-testid="plan-pruned">Plan <code>{visible(a.planId)}</code> was pruned by retention: its text is no longer kept.</p>;
  }
  return (
    <div class="plan">
      <p>The plan that counted, by <bdi>{visible(plan.author)}</bdi> in <code>{breakable(visible(plan.thread))}</code>, <Time iso={iso(plan.at)} />:</p>
      <pre class="plan" aria-label="The plan that counted" data-testid="plan">{visible(plan.body)}</pre>
    </div>
  );
}

function ApprovalCard({ a }: { a: ApprovalEntry }) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  async function act(label: string, path: string, body: unknown): Promise<void> {
    setBusy(label);
    setError(null);
    try {
      await post(path, body);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  }

  function deny(e: Event): void {
    e.preventDefault();
    if (!reason.trim()) return setError(new Error('Say why the call is denied first: the agent is told.'));
    void act('Denying…', `/v1/approvals/${seg(a.id)}/deny`, { reason: reason.trim() });
  }

  const titleId = `approval-${a.id}`;
  const who = [...a.approvers.roles.map((r) => `the ${r} role`), ...a.approvers.names];
  return (
    <li class="card approval" aria-labelledby={titleId} data-approval={a.id}>
      <header class="hold-head">
        <h2 id={titleId}><code>{breakable(visible(a.tool))}</code></h2>
        <span class="tag">waiting</span>
      </header>
      <dl class="facts">
        <dt>Seat</dt><dd><bdi>{visible(a.seat)}</bdi></dd>
        <dt>Run</dt><dd>{a.runId !== null ? <bdi>{visible(a.runId)}</bdi> : <span class="muted">none</span>}</dd>
        <dt>Plan that counted</dt><dd>{a.planId !== null ? <>plan <code>{visible(a.planId)}</code></> : <span class="muted">none (no plan was required)</span>}</dd>
        <dt>Asked</dt><dd><Time iso={iso(a.requestedAt)} /></dd>
        <dt>Digest</dt><dd><code class="digest">sha256:{a.digest}</code></dd>
        <dt>Once approved</dt><dd>usable once, for {a.windowMin} minute{a.windowMin === 1 ? '' : 's'}</dd>
        <dt>Who may answer</dt><dd>{who.length > 0 ? who.join(', or ') : 'no one named by the rule'}, or an operator</dd>
      </dl>
      <PlanText a={a} />
      <Arguments a={a} />
      <form class="reply" onSubmit={deny}>
        <label for={`reason-${a.id}`}>Reason to deny</label>
        <textarea id={`reason-${a.id}`} rows={2} value={reason} placeholder="Why may this call not go through?" maxLength={2000}
          onInput={(e) => setReason((e.target as HTMLTextAreaElement).value)} />
        <div class="actions">
          <button type="button" class="primary" disabled={busy !== null}
            onClick={() => void act('Approving…', `/v1/approvals/${seg(a.id)}/approve`, {})}>Approve</button>
          <button type="submit" class="danger" disabled={busy !== null}>Deny</button>
        </div>
      </form>
      {busy && <Busy label={busy} />}
      <Problem error={error} />
    </li>
  );
}
