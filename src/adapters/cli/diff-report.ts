/**
 * `plangate diff` for people: the rules that changed, the seats whose
 * settings change (grouped by crew), the tools whose class changes, and the
 * past decisions that would flip.
 */
import type { DiffReport } from '../../main/diff/diff.js';
import type { FlipCounts } from '../../main/diff/replay.js';
import type { RuleChange } from '../../main/diff/rules.js';
import { MAX_LISTED_AGENTS, type SeatGroup } from '../../main/diff/settings.js';

function value(v: unknown): string {
  if (v === undefined) return '(unset)';
  if (v === null) return '(none)';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function scopeText(scope: string): string {
  const [kind, ...rest] = scope.split(':');
  const name = rest.join(':');
  switch (kind) {
    case 'crew': return `crew ${name}`;
    case 'agent': return `agent ${name}`;
    case 'tool': return `tool ${name}`;
    case 'pattern': return `tool pattern ${name}`;
    case 'profile': return `profile ${name}`;
    case 'readGuard': return name ? `read guard for ${name}` : 'read guard';
    default: return scope;
  }
}

function ruleLine(c: RuleChange, report: DiffReport): string {
  const where = [c.oldSource ? `${report.old}/${c.oldSource}` : '—', c.newSource ? `${report.new}/${c.newSource}` : '—'].join(' → ');
  const what = c.old === undefined ? 'added' : c.new === undefined ? 'removed' : 'changed';
  if (c.field === '(defined)') return `  ${scopeText(c.scope)}: ${what}  (${where})`;
  return `  ${scopeText(c.scope)}: ${c.field} ${value(c.old)} → ${value(c.new)}  (${where})`;
}

function groupLine(g: SeatGroup): string {
  const changes = g.changes.map((c) => `${c.field} ${value(c.old)} → ${value(c.new)}`).join(', ');
  const listed = g.agents.slice(0, MAX_LISTED_AGENTS).join(', ') + (g.agents.length > MAX_LISTED_AGENTS ? `, … ${g.agents.length - MAX_LISTED_AGENTS} more` : '');
  if (g.others) return `  any other seat (not in the org, named by no rule): ${changes}`;
  if (g.crew === null) return `  ${g.agents.length === 1 ? `agent ${listed}` : `${g.agents.length} agents (${listed})`}, not in the org: ${changes}`;
  if (g.wholeCrew) return `  crew ${g.crew} and its ${g.agents.length} agent${g.agents.length === 1 ? '' : 's'}: ${changes}`;
  return `  ${g.agents.length} of the ${g.crewSize} agents of crew ${g.crew} (${listed}): ${changes}`;
}

function top(record: Record<string, number>, n = 5): string {
  const entries = Object.entries(record).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const shown = entries.slice(0, n).map(([k, v]) => `${k} ${v}`).join(', ');
  return entries.length > n ? `${shown}, … ${entries.length - n} more` : shown;
}

function flipLines(title: string, f: FlipCounts): string[] {
  if (f.total === 0) return [];
  return [
    `  ${title}: ${f.total}`,
    `    by crew: ${top(f.byCrew)}`,
    `    by tool: ${top(f.byTool)}`,
    `    by code: ${top(f.byCode)}`,
    ...f.examples.map((e) => `    e.g. line ${e.line} ${e.time} ${e.agent} → ${e.tool}: ${e.old} → ${e.new}`),
  ];
}

/**
 * Renders a diff report.
 *
 * @example
 * io.out(renderDiff(report));
 */
export function renderDiff(report: DiffReport): string {
  const out: string[] = [`plangate diff ${report.old} → ${report.new}`];
  out.push(report.rules.length === 0 ? 'rules: no setting changes' : `rules: ${report.rules.length} setting(s) change`);
  for (const c of report.rules) out.push(ruleLine(c, report));
  if (report.settings === undefined) out.push('seats: no org given (--org FILE or --store PATH): settings per seat not compared');
  else if (report.settings.length === 0) out.push(`seats: no effective setting changes for the ${report.seats ?? 0} agent(s) of the org`);
  else {
    const seats = report.settings.reduce((n, g) => n + (g.crew !== null ? g.agents.length : 0), 0);
    out.push(`seats: effective settings change for ${seats} of the ${report.seats ?? 0} agent(s) of the org`);
    for (const g of report.settings) out.push(groupLine(g));
  }
  if (report.toolsCompared === 0) out.push('tools: no tool names to compare (--tools, --audit or --replay)');
  else if (report.tools.length === 0) out.push(`tools: no class changes among ${report.toolsCompared} tool name(s)`);
  else {
    out.push(`tools: ${report.tools.length} of ${report.toolsCompared} tool name(s) change class`);
    for (const t of report.tools) out.push(`  ${t.tool}: ${t.old} → ${t.new}`);
  }
  const r = report.replay;
  if (r) {
    const flips = r.toRefused.total + r.toAllowed.total;
    out.push(`replay ${r.file}: ${r.replayed} decision(s) replayed (${r.fromDecisionLog} from a decision log, ${r.fromAudit} audit refusals), ${flips} would flip`);
    out.push(...flipLines('allowed → refused', r.toRefused));
    out.push(...flipLines('refused → allowed', r.toAllowed));
    out.push(...flipLines('refused by another check or code', r.refusedDifferently));
    if (r.fromAudit > 0) out.push('  note: the audit holds refusals without plan facts; a decision log (serve --decision-log) also shows allowed calls that would be refused');
    if (r.undetermined > 0) out.push(`  ${r.undetermined} decision(s) need a file size the log does not hold: not compared`);
    if (r.unreadable > 0) out.push(`  ${r.unreadable} line(s) not readable as a decision (first at line ${r.firstUnreadable})`);
  }
  out.push(report.changed ? 'behaviour changes: yes' : 'behaviour changes: none');
  return out.join('\n');
}
