/**
 * The human-readable account of a decision for `plangate explain`.
 */
import type { Candidate, CandidateReason, Decision, PolicyInput, SettingSource } from '../../core/types.js';

const REASONS: Record<CandidateReason, string> = {
  not_plan: 'not a plan (its kind is not `plan`)',
  human_author: 'written by a human, not by the agent',
  other_author: 'written by another seat',
  upstream_not_accepted: 'written by a manager up the delegation chain, but acceptUpstream is off',
  wrong_thread: 'posted in a thread its author does not speak in',
  future: 'posted after the decision time',
  stale: 'older than the window',
};

function from(s: SettingSource<unknown>): string {
  if (s.scope === 'default') return 'default';
  const who = s.scope === 'workspace' ? 'workspace rule' : `${s.scope} rule for ${s.id}`;
  return s.source ? `${who} (${s.source})` : who;
}

function age(ms: number): string {
  if (ms < 0) return `in ${Math.ceil(-ms / 60000)} min`;
  if (ms < 60_000) return `${Math.floor(ms / 1000)} s ago`;
  return `${Math.floor(ms / 60_000)} min ago`;
}

function candidateLine(c: Candidate): string {
  const head = `#${c.id} ${c.kind} by ${c.author}${c.authorKind === 'human' ? ' (human)' : ''} in ${c.thread}, ${age(c.ageMs)}${c.runId ? `, run ${c.runId}` : ''}`;
  if (c.counts) return `  ✓ ${head} — counts${c.sameRun ? ' (same run)' : ''}`;
  return `  ✗ ${head} — ${c.reasons.map((r) => REASONS[r]).join('; ')}`;
}

/**
 * Renders a decision and the facts behind it.
 *
 * @example
 * io.out(renderExplanation(decision, input));
 */
export function renderExplanation(d: Decision, input: PolicyInput): string {
  const s = d.settings;
  const lineage = input.agent.known
    ? `crews ${input.agent.crews.join(' → ')}`
    : 'unknown to the org (only its own agent rule and the workspace rule apply)';
  const lines = [
    `${d.allowed ? 'ALLOWED' : 'REFUSED'}  ${d.agent} → ${d.tool}${d.code ? `  ${d.code}` : ''}`,
    '',
    `  agent            ${d.agent}, ${lineage}`,
    `  tool class       ${d.class}${d.gated ? ' (gated)' : ' (not gated)'}`,
    `  mode             ${s.mode.value}  — ${from(s.mode)}`,
    `  window           ${s.windowMin.value} min  — ${from(s.windowMin)}`,
    `  accept upstream  ${s.acceptUpstream.value ? 'yes' : 'no'}  — ${from(s.acceptUpstream)}`,
  ];
  if (input.call.runId) lines.push(`  run              ${input.call.runId}`);
  if (input.call.delegatedBy.length) lines.push(`  delegated by     ${input.call.delegatedBy.join(' ← ')}`);
  lines.push('');
  if (!d.gated) {
    lines.push(d.class === 'read' || d.class === 'say'
      ? `  ${d.class} calls are never gated.`
      : `  plan-required mode ${s.mode.value} does not gate ${d.class} calls.`);
  } else if (d.plan) {
    lines.push(`  satisfied by plan #${d.plan.id} by ${d.plan.author} in ${d.plan.thread} (${d.plan.via === 'same_run' ? 'same run' : 'fresh'})`);
  }
  lines.push(`  messages considered (${d.candidates.length}):`);
  if (d.candidates.length === 0) lines.push('    none');
  for (const c of d.candidates) lines.push(candidateLine(c));
  if (d.message) lines.push('', d.message);
  return lines.join('\n');
}
