/**
 * The human-readable account of a decision for `plangate explain`.
 */
import type { Candidate, CandidateReason, Explanation, PolicyInput, SettingSource } from '../../core/types.js';

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
export function renderExplanation(d: Explanation, input: PolicyInput): string {
  const s = d.settings;
  const lineage = input.agent.known
    ? `crews ${input.agent.crews.join(' → ')}`
    : 'unknown to the org (only its own agent rule and the workspace rule apply)';
  const verdict = !d.allowed ? 'REFUSED'
    : d.failOpen ? 'ALLOWED (FAIL-OPEN: plan-required is NOT enforced)'
    : d.shadow ? 'ALLOWED (SHADOW: would be refused)'
    : 'ALLOWED';
  const lines = [
    `${verdict}  ${d.agent} → ${d.tool}${d.code ? `  ${d.code}` : ''}`,
    '',
    `  agent            ${d.agent}, ${lineage}`,
    `  tool class       ${d.class}${d.gated ? ' (gated)' : ' (not gated)'}`,
    `  mode             ${s.mode.value}  — ${from(s.mode)}`,
    `  window           ${s.windowMin.value} min  — ${from(s.windowMin)}`,
    `  accept upstream  ${s.acceptUpstream.value ? 'yes' : 'no'}  — ${from(s.acceptUpstream)}`,
  ];
  if (s.enforce) lines.push(`  enforce          ${s.enforce.value === false ? 'no (shadow mode: refusals are recorded, not applied)' : 'yes'}  — ${from(s.enforce)}`);
  if (d.failOpen) lines.push(`  fail-open        ${d.failOpen.reason}`);
  if (d.failClosed) lines.push(`  fail-closed      ${d.failClosed.reason} (a held agent stays held: only its reviewer channel is open)`);
  if (input.call.runId) lines.push(`  run              ${input.call.runId}`);
  if (input.call.delegatedBy.length) lines.push(`  delegated by     ${input.call.delegatedBy.join(' ← ')}`);
  if (d.checks) lines.push(...checkLines(d));
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

const READ_GUARD: Record<string, string> = {
  off: 'off for this agent (no ceiling)',
  not_listed: 'not a read tool the guard watches',
  not_read: 'listed, but not classified read',
  ranged: 'reads a part of the file',
  needs_size: 'the file\'s size (or the lines asked for) was not measured',
  not_a_file: 'no regular file there (the tool reports its own error)',
  withheld: 'refused: the path or range was too large to be given to the policy',
  bad_path: 'refused: the path argument is not one plain path',
  outside_roots: 'refused: a whole-file read outside the read roots',
  unsized: 'refused: a FIFO, a device, a socket or a file of /proc, which has no size',
  lines_over: 'refused: the lines asked for take more than the ceiling',
  lines_unmeasured: 'refused: the lines asked for could not be measured in a file over the ceiling',
  over: 'refused: over the ceiling (the whole file, or the rest of it from an offset)',
  under: 'a whole file within the ceiling',
};

/** The read guard's and the planning hold's verdicts, for `explain`. */
function checkLines(d: Explanation): string[] {
  const c = d.checks;
  if (!c) return [];
  const rg = c.readGuard;
  const size = (rg.files ?? []).filter((f) => f.kind === 'file').map((f) => `, ${f.path}: ${f.kind === 'file' ? f.size : 0} bytes`).join('');
  const ceiling = rg.maxBytes > 0 ? ` (ceiling ${rg.maxBytes} bytes)` : '';
  const ph = c.planningHold;
  const hold = !ph.held ? 'not held'
    : `held (hold ${ph.hold?.id}, ${ph.hold?.kind === 'on_demand' ? 'on demand' : 'by the reviewer'})${ph.exempt ? `, but ${d.tool} stays open: ${ph.exempt === 'whitelist' ? 'whitelisted' : 'the reviewer channel'}` : ''}`;
  return [
    `  read guard       ${READ_GUARD[rg.status] ?? rg.status}${size}${ceiling}`,
    `  planning hold    ${hold}`,
    ...(d.check ? [`  decided by       ${d.check} (checks run: read guard, then planning hold, then plan-required)`] : []),
  ];
}
