/**
 * `plangate audit`: read the audit trail back, newest first, with the same
 * filters as `GET /v1/audit` — one line per event for people, or JSON lines
 * (`--json`). Never a message body: events do not carry one.
 */
import { Option, type Command } from 'commander';
import type { AuditEvent, AuditQuery } from '../../../audit/port.js';
import { AUDIT_CHECKS, checkOf, parseAuditTime } from '../../../audit/query.js';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import { resolvePaths } from '../../../main/config.js';
import { openAuditReader } from '../../../main/audit.js';
import { EXIT } from '../exit.js';
import { printable } from '../printable.js';
import type { CommandContext, GlobalOptions } from '../main.js';

interface AuditOptions {
  crew?: string;
  agent?: string;
  tool?: string;
  check?: string;
  code?: string;
  type?: string;
  since?: string;
  until?: string;
  shadow?: boolean;
  limit?: string;
  json?: boolean;
}

function time(name: string, value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const t = parseAuditTime(value, now);
  if (t === undefined) throw new PlangateError(ErrorCode.InvalidInput, `--${name} must be epoch milliseconds, an ISO-8601 time or a duration such as 24h or 7d (got "${value}")`);
  return t;
}

/**
 * One line for people, e.g.
 * `2026-11-30T09:01:00.000Z  plan_required  0xWORKER (desk)  github.merge_pull_request  plan_required:github.merge_pull_request:none  crew desk plan-required.yaml:24:5`.
 */
export function auditLine(e: AuditEvent): string {
  const f = e as unknown as Record<string, unknown>;
  const what = checkOf(e) ?? e.type;
  const who = `${e.agent}${typeof f['crew'] === 'string' ? ` (${f['crew'] as string})` : ''}`;
  const parts = [e.time, f['shadow'] === true ? `${what} (shadow)` : what, who];
  if (typeof f['tool'] === 'string') parts.push(f['tool'] as string);
  if (typeof f['code'] === 'string') parts.push(f['code'] as string);
  if (e.type === 'PlanRequiredBlocked') parts.push([e.rule.scope, e.rule.id, e.rule.source].filter(Boolean).join(' '));
  if (e.type === 'ReadGuardBlocked') parts.push(`${e.path} ${e.sizeBytes} > ${e.maxBytes} bytes`);
  if ('holdId' in e) parts.push(`hold ${e.holdId}`);
  if ('by' in e) parts.push(`by ${e.by}`);
  // Some of it is an agent's (a path it asked for): one event stays one line of plain text.
  return printable(parts.join('  '));
}

export function registerAudit(program: Command, { io, wrap }: CommandContext): void {
  program
    .command('audit')
    .description('read the audit trail, newest first: refused calls, shadow-mode would-be refusals, the life of each hold')
    .option('--crew <id>', 'only events of agents in this crew')
    .option('--agent <id>', 'only this agent')
    .option('--tool <name>', 'only this tool')
    .addOption(new Option('--check <check>', 'only refusals by this check').choices(Object.keys(AUDIT_CHECKS)))
    .option('--code <code>', 'only this refusal code, e.g. plan_required:github.merge_pull_request:none')
    .option('--type <types>', 'only these event types (comma-separated), e.g. HoldPlaced,HoldReleased')
    .option('--since <time>', 'from this time: ISO-8601, epoch ms, or back from now (15m, 24h, 7d)')
    .option('--until <time>', 'up to this time (same forms)')
    .option('--shadow', 'only shadow-mode would-be refusals')
    .option('--no-shadow', 'only real events (no shadow-mode would-be refusals)')
    .option('--limit <n>', 'at most this many (default 100, at most 1000)')
    .option('--json', 'one JSON object per line')
    .action(wrap(async (opts: AuditOptions, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const now = Date.now();
      if (opts.limit !== undefined && !/^\d+$/.test(opts.limit)) throw new PlangateError(ErrorCode.InvalidInput, `--limit must be an integer from 0 to 1000 (got "${opts.limit}")`);
      const since = time('since', opts.since, now);
      const until = time('until', opts.until, now);
      const query: AuditQuery = {
        ...(opts.crew !== undefined ? { crew: opts.crew } : {}),
        ...(opts.agent !== undefined ? { agent: opts.agent } : {}),
        ...(opts.tool !== undefined ? { tool: opts.tool } : {}),
        ...(opts.check !== undefined ? { check: opts.check } : {}),
        ...(opts.code !== undefined ? { code: opts.code } : {}),
        ...(opts.type !== undefined ? { type: opts.type.split(',').filter(Boolean) as AuditQuery['type'] } : {}),
        ...(since !== undefined ? { since } : {}),
        ...(until !== undefined ? { until } : {}),
        ...(opts.shadow !== undefined ? { shadow: opts.shadow } : {}),
        ...(opts.limit !== undefined ? { limit: Number(opts.limit) } : {}),
      };
      const audit = resolvePaths(g.audit ? { audit: g.audit } : {}, io.env).audit;
      const events = await openAuditReader(audit).query(query);
      if (opts.json) {
        for (const e of events) io.out(JSON.stringify(e));
      } else if (events.length === 0) {
        io.err(`plangate: no audit events match in ${audit}`);
      } else {
        io.out(events.map(auditLine).join('\n'));
      }
      return EXIT.ok;
    }));
}
