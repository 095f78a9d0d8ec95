/**
 * The pinned MCP tools refused as changed and not yet pinned again (on the
 * rules page, an operator's): which upstream and tool, the digests pinned
 * and seen, who was refused and when, and the command that pins again.
 * Digests only: a changed description is the upstream's text and is not
 * shown here.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get } from './api.js';
import { Busy, Problem, Section, Time } from './ui.js';

interface ChangedTool {
  upstream: string;
  upstreamTool: string;
  tool: string;
  pinnedDigest: string;
  seenDigest: string;
  refusals: number;
  agents: string[];
  firstRefused: string;
  lastRefused: string;
  pinsFile: string;
}

interface ChangedToolsAnswer {
  tools: ChangedTool[];
  repin: string;
  scanned: number;
  limitReached: boolean;
}

/** `sha256:0123456789ab…`, the whole digest on hover. */
function Digest({ value }: { value: string }) {
  return <code class="rev" title={value}>{value.slice(0, 'sha256:'.length + 12)}…</code>;
}

export function ChangedTools() {
  const [answer, setAnswer] = useState<ChangedToolsAnswer | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(true);

  function read(): void {
    setBusy(true);
    get<ChangedToolsAnswer>('/v1/mcp/changed-tools').then((a) => { setAnswer(a); setError(null); }, setError).finally(() => setBusy(false));
  }
  useEffect(read, []);

  return (
    <Section title="Changed tools" id="changed-tools">
      <p class="muted small">
        Pinned MCP tools the gateway refused (<code>tool_changed</code>) because their definition is not the one pinned,
        until they are pinned again. <button type="button" class="link" onClick={read} disabled={busy}>Refresh</button>
      </p>
      {busy && !answer && <Busy label="Reading the changed tools" />}
      {/* While no rules are in force the banner and the health above say so: no second alarm here. */}
      {error instanceof ApiError && error.code === 'policy_unavailable'
        ? <p class="empty">No rules are in force, so no pin can be compared.</p>
        : <Problem error={error} />}
      {answer && (answer.tools.length === 0 ? <p class="empty" data-testid="changed-tools-none">No pinned tool is refused as changed.</p> : (
        <>
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Changed tools">
            <table class="cards">
              <thead><tr>{['upstream', 'tool there', 'called as', 'pinned', 'seen', 'refused', 'pins file'].map((h) => <th key={h} scope="col">{h}</th>)}</tr></thead>
              <tbody>
                {answer.tools.map((t) => (
                  <tr key={`${t.upstream}\u0000${t.upstreamTool}`} data-testid="changed-tool">
                    <td data-label="upstream">{t.upstream}</td>
                    <td data-label="tool there"><code>{t.upstreamTool}</code></td>
                    <td data-label="called as"><code>{t.tool}</code></td>
                    <td data-label="pinned"><Digest value={t.pinnedDigest} /></td>
                    <td data-label="seen"><Digest value={t.seenDigest} /></td>
                    <td data-label="refused">{t.refusals}× by {t.agents.join(', ')}, last <Time iso={t.lastRefused} /></td>
                    <td data-label="pins file"><code>{t.pinsFile}</code></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p>Review each change upstream, then pin again with the upstream options the gateway runs with
            (<code>--upstreams FILE</code>, <code>--upstream NAME=URL</code> or <code>--name NAME -- COMMAND</code>):</p>
          <pre class="args" data-testid="repin"><code>{answer.repin} --upstreams FILE</code></pre>
          {answer.limitReached && <p class="muted small">Read from the newest {answer.scanned} refusals only.</p>}
        </>
      ))}
    </Section>
  );
}
