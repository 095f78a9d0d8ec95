/**
 * The holds queue, live: the active holds, newest first, each with its
 * plans and push-backs in order. The reviewer pushes back or releases; an
 * operator also unblocks, and places a hold on demand. New plans arrive over
 * the review-queue event stream, without a reload.
 */
import { useEffect, useState } from 'preact/hooks';
import type { QueueAnswer, QueueEntry as Hold } from '../../../http/routes/review-queue.js';
import { post, seg } from './api.js';
import type { Principal } from './session.js';
import { visible } from './format.js';
import { follow, type StreamState } from './stream.js';
import { Busy, Problem, Time } from './ui.js';

const STATE_LABEL: Record<StreamState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  retrying: 'Connection lost — reconnecting…',
  refused: 'Not allowed',
  unavailable: 'The queue cannot be read right now — retrying…',
};

export function HoldsPage({ me }: { me: Principal }) {
  const [queue, setQueue] = useState<QueueAnswer | null>(null);
  const holds = queue?.holds ?? null;
  const [state, setState] = useState<StreamState>('connecting');
  const [detail, setDetail] = useState<string | undefined>();

  useEffect(() => follow('/v1/review/queue/events', {
    onEvent(name, data) {
      if (name === 'queue') {
        setQueue(JSON.parse(data) as QueueAnswer);
        setState('live');
        setDetail(undefined);
      } else if (name === 'unavailable') {
        // The connection is up, but the server cannot read the queue: what is shown may be stale.
        setState('unavailable');
        setDetail(undefined);
      }
    },
    onState(s, d) {
      setState(s);
      setDetail(d);
      // A token no longer accepted: nothing stays on screen to act on.
      if (s === 'refused') setQueue(null);
    },
  }), []);

  return (
    <main id="main" tabIndex={-1}>
      <div class="page-head">
        <h1>Holds</h1>
        <span class={`live live-${state}`} role="status" aria-live="polite" data-testid="stream-state">{STATE_LABEL[state]}{detail ? `: ${detail}` : ''}</span>
      </div>
      <PlaceHold me={me} />
      {holds === null ? (state === 'refused' ? null : <Busy label="Loading the holds" />) : holds.length === 0 ? (
        <p class="empty card">No agent is on hold.</p>
      ) : (
        <>
        {queue?.limitReached && <p class="note" role="status">Showing the newest {queue.limit} holds; older active holds are not listed here (<code>GET /v1/holds</code> lists them all).</p>}
        <ol class="holds" aria-label="Active holds, newest first">
          {holds.map((h) => <HoldCard key={h.id} hold={h} me={me} />)}
        </ol>
        </>
      )}
    </main>
  );
}

function HoldCard({ hold, me }: { hold: Hold; me: Principal }) {
  const [reply, setReply] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const base = `/v1/holds/${seg(hold.agent)}`;
  // What this card shows: the server acts only on this hold, with no plan newer than the last one shown (409 otherwise).
  const lastPlanId = hold.lastPlanId;
  const seen = { holdId: hold.id, lastPlanId };

  async function act(label: string, path: string, body: unknown): Promise<boolean> {
    setBusy(label);
    setError(null);
    try {
      await post(path, body);
      return true;
    } catch (err) {
      setError(err);
      return false;
    } finally {
      setBusy(null);
    }
  }

  async function pushBack(e: Event): Promise<void> {
    e.preventDefault();
    if (!reply.trim()) return setError(new Error('Write what the agent should reconsider first.'));
    if (await act('Sending the push-back…', `${base}/push-back`, { body: reply, ...seen })) setReply('');
  }

  const titleId = `hold-${hold.id}`;
  // The queue carries a hold's newest messages only: number the plans shown from the hold's own count, and say what is left out.
  const plansShown = hold.messages.filter((m) => m.role === 'plan').length;
  let planNo = Math.max(0, hold.plans - plansShown);
  const older = Math.max(0, hold.plans + hold.pushBacks - hold.messages.length);
  return (
    <li class="card hold" aria-labelledby={titleId} data-agent={hold.agent}>
      <header class="hold-head">
        <h2 id={titleId}>{hold.agent}</h2>
        <span class="tag">{hold.kind === 'on_demand' ? 'on demand' : 'reviewer hold'}</span>
      </header>
      <p class="task">{hold.task ?? <span class="muted">No task named.</span>}</p>
      <p class="muted small">Placed by {hold.placedBy}, <Time iso={hold.placedAt} /> · {hold.plans} plan{hold.plans === 1 ? '' : 's'}, {hold.pushBacks} push-back{hold.pushBacks === 1 ? '' : 's'}</p>
      {hold.messages.length === 0 ? (
        <p class="waiting">Waiting for the agent's plan.</p>
      ) : (
        <>
          {older > 0 && <p class="note" data-testid="older">{older} older plan{older === 1 ? ' or push-back is' : 's and push-backs are'} not shown; the newest {hold.messages.length} are.</p>}
          <ol class="thread" aria-label={`Plans and push-backs for ${hold.agent}`}>
            {hold.messages.map((m) => (
              <li key={m.id} class={`msg msg-${m.role}`}>
                <p class="msg-head">
                  <strong>{m.role === 'plan' ? `Plan ${++planNo}` : `Push-back by ${m.author}`}</strong> · <Time iso={m.at} />
                  {m.runId ? <span class="muted" title="the run the agent tagged its plan with; whether it is on record is not checked here"> · tagged run <bdi>{visible(m.runId)}</bdi></span> : null}
                </p>
                <div class="body" dir="auto">{visible(m.body)}</div>
              </li>
            ))}
          </ol>
        </>
      )}
      <form class="reply" onSubmit={pushBack}>
        <label for={`reply-${hold.id}`}>Push back</label>
        <textarea id={`reply-${hold.id}`} rows={2} value={reply} placeholder="What should the agent reconsider?" maxLength={65536}
          onInput={(e) => setReply((e.target as HTMLTextAreaElement).value)} />
        <div class="actions">
          <button type="submit" disabled={busy !== null}>Push back</button>
          <button type="button" class="primary" disabled={busy !== null}
            onClick={() => void act('Releasing…', `${base}/release`, seen)}>Release</button>
          {me.role === 'operator' && (
            <button type="button" class="danger" disabled={busy !== null}
              onClick={() => void act('Unblocking…', `${base}/unblock`, { holdId: hold.id })}>Unblock</button>
          )}
        </div>
      </form>
      {busy && <Busy label={busy} />}
      <Problem error={error} />
    </li>
  );
}

function PlaceHold({ me }: { me: Principal }) {
  const [agent, setAgent] = useState('');
  const [task, setTask] = useState('');
  const [kind, setKind] = useState<'on_demand' | 'reviewer'>(me.role === 'operator' ? 'on_demand' : 'reviewer');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);

  async function submit(e: Event): Promise<void> {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      await post(`/v1/holds/${seg(agent.trim())}`, { kind, ...(task.trim() ? { task: task.trim() } : {}) });
      setDone(`${agent.trim()} is on hold.`);
      setAgent('');
      setTask('');
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <details class="card place">
      <summary>Place a hold</summary>
      <form onSubmit={submit} class="grid">
        <label for="hold-agent">Agent</label>
        <input id="hold-agent" value={agent} required placeholder="0xWORKER" onInput={(e) => setAgent((e.target as HTMLInputElement).value)} />
        <label for="hold-task">Task (optional)</label>
        <input id="hold-task" value={task} maxLength={500} placeholder="Refactor the auth middleware" onInput={(e) => setTask((e.target as HTMLInputElement).value)} />
        {me.role === 'operator' && (
          <>
            <label for="hold-kind">Kind</label>
            <select id="hold-kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as 'on_demand' | 'reviewer')}>
              <option value="on_demand">On demand (whatever the settings)</option>
              <option value="reviewer">As the reviewer (where the planning gate is on)</option>
            </select>
          </>
        )}
        <div class="actions"><button type="submit" class="primary" disabled={busy}>{busy ? 'Placing…' : 'Hold now'}</button></div>
      </form>
      {busy && <Busy label="Placing the hold" />}
      {done && <p class="ok" role="status">{done}</p>}
      <Problem error={error} />
    </details>
  );
}
